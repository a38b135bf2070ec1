package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeltaLiteSinkITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    @TempDir Path dir;

    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 4})
    void partitionedTableEqualsTheModel(int parallelism) throws Exception {
        ChangeScript script = ChangeScript.generate(42, 6_000, 1_500, 6, false);
        Path table = dir.resolve("orders");
        run(script, table, parallelism, true);
        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
    }

    @Test
    void unpartitionedTableEqualsTheModel() throws Exception {
        ChangeScript script = ChangeScript.generate(7, 4_000, 800, 0, false);
        Path table = dir.resolve("unpartitioned");
        run(script, table, 4, false);
        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
    }

    @Test
    void compositeKeysAndPartitionMovesEqualTheModel() throws Exception {
        ChangeScript script = ChangeScript.generate(11, 5_000, 400, 4, true);
        Path table = dir.resolve("composite");
        run(script, table, 4, true);
        assertTableEquals(table, script.expected());
    }

    private static void run(ChangeScript script, Path table, int parallelism, boolean partitioned)
            throws Exception {
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(300), 0);
        DeltaLiteSinkBuilder builder =
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .option(
                                DeltaLiteOptions.TARGET_FILE_SIZE,
                                org.apache.flink.configuration.MemorySize.parse("64kb"));
        if (partitioned) {
            builder.partitionKey("day");
        }
        SinkJobs.sink(SinkJobs.changes(env, script, 4_000), builder.build(), parallelism);
        env.execute("deltalite-it");
    }

    static void assertTableEquals(Path table, List<Object[]> expected) {
        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(Rows.sorted(expected));
    }

    static void assertEachCheckpointCommittedOnce(Path table) {
        List<String> ids = DeltaHistory.transactionIds(table);
        assertThat(ids).isNotEmpty();
        assertThat(new HashSet<>(ids)).hasSameSizeAs(ids);
    }
}
