package io.deltalite.flink.sink;

import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertEachCheckpointCommittedOnce;
import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertTableEquals;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class DeltaLiteSinkBehaviourITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    /** What the commit listener saw, by table; the mini cluster runs in this JVM. */
    static final ConcurrentLinkedQueue<UpsertStats> COMMITS = new ConcurrentLinkedQueue<>();

    @TempDir Path dir;

    @Test
    void aBufferFarSmallerThanACheckpointIsMergedEarlyAndStaysCorrect() throws Exception {
        // ~12,000 changes in one or two checkpoints through a 24 KiB buffer: dozens of early
        // merges per checkpoint, each planned against the results of the previous ones.
        ChangeScript script = ChangeScript.generate(21, 12_000, 900, 3, false);
        Path table = dir.resolve("small-buffer");
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(3), 0);
        SinkJobs.sink(
                SinkJobs.changes(env, script, 8_000),
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .option(DeltaLiteOptions.MAX_BUFFERED_BYTES, MemorySize.parse("24kb"))
                        .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("32kb"))
                        .build(),
                2);
        env.execute("small-buffer");

        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
        // Far fewer commits than early merges: the buffer never held a whole checkpoint.
        assertThat(DeltaHistory.transactionIds(table)).hasSizeLessThan(10);
    }

    @Test
    void checkpointsWithoutChangesMakeNoCommit() throws Exception {
        ChangeScript script = ChangeScript.generate(22, 12, 100, 2, false);
        Path table = dir.resolve("sparse");
        // 4 records per second and a checkpoint every 100 ms: most checkpoints see nothing.
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(100), 0);
        SinkJobs.sink(
                SinkJobs.changes(env, script, 4),
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .build(),
                1);
        env.execute("sparse");

        assertTableEquals(table, script.expected());
        List<DeltaHistory.Commit> commits = DeltaHistory.commits(table);
        // Version 0 creates the table; every later version holds at least one change.
        assertThat(commits.subList(1, commits.size()))
                .allSatisfy(commit -> assertThat(commit.adds() + commit.removes()).isPositive());
        assertThat(commits.size() - 1).isLessThanOrEqualTo(script.size());
    }

    @Test
    void deltaLogCheckpointsAreWrittenAtTheTablesInterval() throws Exception {
        ChangeScript script = ChangeScript.generate(23, 3_000, 300, 2, false);
        Path table = dir.resolve("log-checkpoints");
        COMMITS.clear();
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(100), 0);
        SinkJobs.sink(
                SinkJobs.changes(env, script, 1_500),
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .tableProperty("delta.checkpointInterval", "3")
                        .commitListener((checkpoint, stats, millis) -> COMMITS.add(stats))
                        .build(),
                2);
        env.execute("log-checkpoints");

        assertTableEquals(table, script.expected());
        long lastVersion = DeltaHistory.commits(table).size() - 1;
        assertThat(lastVersion).isGreaterThanOrEqualTo(3);
        try (Stream<Path> log = Files.list(table.resolve("_delta_log"))) {
            List<String> checkpoints =
                    log.map(path -> path.getFileName().toString())
                            .filter(name -> name.endsWith(".checkpoint.parquet"))
                            .toList();
            assertThat(checkpoints).isNotEmpty();
            assertThat(checkpoints)
                    .allSatisfy(
                            name -> assertThat(Long.parseLong(name.substring(0, 20)) % 3).isZero());
        }
        // The listener saw every commit, with its version.
        assertThat(COMMITS).extracting(UpsertStats::version).contains(lastVersion);
    }
}
