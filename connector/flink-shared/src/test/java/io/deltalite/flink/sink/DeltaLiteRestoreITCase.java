package io.deltalite.flink.sink;

import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertEachCheckpointCommittedOnce;
import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertTableEquals;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.internal.faults.FaultInjection.Point;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.NoKeyIndexDisagreements;
import io.deltalite.flink.testing.SinkJobs;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(NoKeyIndexDisagreements.class)
class DeltaLiteRestoreITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    @TempDir Path dir;

    @AfterEach
    void disarm() {
        FaultInjection.disarmAll();
    }

    /**
     * Distribution by partition, the key index on and checked against the exact probe at every
     * merge: stopped with a savepoint at parallelism 4, restored at 2, stopped again and restored
     * at 3. Each restore hands the partitions to other writers, whose indexes start empty and must
     * cover what the writers before them committed — and what they had prepared but not committed.
     */
    @Test
    void savepointRestoresAtParallelismFourThenTwoThenThreeLoseAndDoubleNothing() throws Exception {
        ChangeScript script = ChangeScript.generate(99, 9_000, 1_000, 4, false);
        Path table = dir.resolve("t");
        Path savepoints = dir.resolve("savepoints");
        int[] parallelisms = {4, 2, 3};
        String savepoint = null;
        int committedBefore = 0;
        for (int run = 0; run < parallelisms.length; run++) {
            boolean last = run == parallelisms.length - 1;
            StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(250), 0);
            if (savepoint != null) {
                env.configure(
                        new org.apache.flink.configuration.Configuration()
                                .set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint));
            }
            // Slow enough that most of the input is left for the last job, even on a busy
            // machine where three commits take a while.
            SinkJobs.sink(
                    SinkJobs.changes(env, script, last ? 4_000 : 600),
                    sink(script, table),
                    parallelisms[run]);
            if (last) {
                env.execute("restored-at-" + parallelisms[run]);
                break;
            }
            JobClient job = env.executeAsync("at-" + parallelisms[run]);
            savepoint = SinkJobs.savepointAfterCommits(job, table, committedBefore, 3, savepoints);
            committedBefore = DeltaHistory.transactionIds(table).size();
        }

        assertThat(DeltaHistory.transactionIds(table)).hasSizeGreaterThan(committedBefore);
        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
        assertThat(DeltaHistory.missingReferencedFiles(table)).isEmpty();
    }

    @Test
    void aLateCommitDoesNotDuplicateKeysUpdatedByTheNextCheckpoint() throws Exception {
        // Few keys, many updates: every checkpoint updates keys the previous one wrote.
        ChangeScript script = ChangeScript.generate(5, 4_000, 150, 3, false);
        Path table = dir.resolve("late");
        AtomicInteger delayed = new AtomicInteger();
        FaultInjection.arm(
                Point.BEFORE_COMMIT,
                (location, occurrence) -> {
                    if (occurrence <= 3) {
                        delayed.incrementAndGet();
                        Thread.sleep(1_500);
                    }
                });
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(200), 0);
        SinkJobs.sink(SinkJobs.changes(env, script, 1_500), sink(script, table), 2);
        env.execute("late-commit");

        assertThat(delayed.get()).isEqualTo(3);
        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
    }

    @Test
    void anExternalWriterBetweenPrepareAndCommitIsMergedAgainst() throws Exception {
        // First half inserts keys 0..599, second half updates every one of them. The external
        // writer commits while checkpoint 2 is being committed; it upserts keys 500..599, whose
        // updates come only at the very end of the script, and a key of its own.
        List<ChangeScript.Change> changes = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (long id = 0; id < 600; id++) {
                Object[] row = {id, day(id), (int) (round * 1000 + id), "r" + round};
                changes.add(
                        new ChangeScript.Change(
                                round == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER, row));
            }
        }
        ChangeScript script = ChangeScript.of(changes);
        Path table = dir.resolve("contended");
        AtomicInteger external = new AtomicInteger();
        FaultInjection.arm(
                Point.BEFORE_COMMIT,
                (location, occurrence) -> {
                    if (occurrence == 2) {
                        external.incrementAndGet();
                        writeExternally(table);
                    }
                });
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(200), 0);
        SinkJobs.sink(SinkJobs.changes(env, script, 300), sink(script, table), 2);
        env.execute("contended");

        assertThat(external.get()).isEqualTo(1);
        List<Object[]> expected = new ArrayList<>(script.expected());
        expected.add(new Object[] {5_000L, day(5_000), -1, "external-only"});
        assertTableEquals(table, expected);
        assertThat(DeltaHistory.transactionIds(table)).anyMatch(id -> id.startsWith("external@"));
        assertEachCheckpointCommittedOnce(table);
    }

    /** Another writer upserts keys 500..599 of the script, and one of its own, into the table. */
    private static void writeExternally(Path table) {
        TableDefinition definition =
                new TableDefinition(
                        List.of(
                                new ValueType.Field(
                                        "id", ValueType.of(ValueType.Kind.BIGINT), false),
                                new ValueType.Field(
                                        "day", ValueType.of(ValueType.Kind.STRING), true),
                                new ValueType.Field(
                                        "amount", ValueType.of(ValueType.Kind.INT), true),
                                new ValueType.Field(
                                        "note", ValueType.of(ValueType.Kind.STRING), true)),
                        List.of("id"),
                        List.of("day"),
                        Map.of());
        try (UpsertHarness other =
                UpsertHarness.open(
                        table.toString(), definition, MergeOptions.DEFAULTS, "external")) {
            for (long id = 500; id < 600; id++) {
                other.upsert(id, day(id), -1, "external");
            }
            other.upsert(5_000L, day(5_000), -1, "external-only");
            other.commit();
        }
    }

    private static String day(long id) {
        return "2024-01-0" + (1 + id % 3);
    }

    private static DeltaLiteSink sink(ChangeScript script, Path table) {
        return DeltaLiteSink.forTable(table.toString())
                .rowType(script.rowType())
                .primaryKey(script.primaryKey())
                .partitionKey("day")
                .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("64kb"))
                .option(DeltaLiteOptions.KEY_INDEX, KeyIndexMode.ON)
                // Every merge also runs the exact probe: an index gone stale fails the test.
                .option(DeltaLiteOptions.KEY_INDEX_VALIDATE, true)
                .build();
    }

    static boolean exists(Path path) {
        return Files.exists(path);
    }
}
