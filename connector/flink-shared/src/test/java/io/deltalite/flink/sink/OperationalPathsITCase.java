package io.deltalite.flink.sink;

import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertEachCheckpointCommittedOnce;
import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertTableEquals;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.internal.faults.FaultInjection.Point;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.NoKeyIndexDisagreements;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once on the operational paths an operator takes: redeploying without state, tolerating
 * failed checkpoints, starting a second job from a savepoint of a running one.
 */
@ExtendWith(NoKeyIndexDisagreements.class)
class OperationalPathsITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    @TempDir Path dir;

    @AfterEach
    void disarm() {
        FaultInjection.disarmAll();
    }

    /**
     * A job with a fixed app id is run three times without state, as a SQL job is redeployed: the
     * checkpoint ids of every run start at 1 again, and every run's rows land. Each run after the
     * first also updates and deletes rows of the run before, which its writers' key indexes (built
     * anew at each start, validated at every merge) must find in the files committed then.
     */
    @Test
    void everyStatelessRunWithAFixedAppIdCommitsAllItsRows() throws Exception {
        Path table = dir.resolve("redeployed");
        Map<Long, Object[]> live = new java.util.HashMap<>();
        for (int run = 0; run < 3; run++) {
            ChangeScript changes = newKeysAndChangesOfTheRunBefore(run, 3_000, live);
            StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(150), 0);
            SinkJobs.sink(SinkJobs.changes(env, changes, 6_000), fixedAppIdSink(changes, table), 2);
            env.execute("redeploy-" + run);
            assertTableEquals(table, new ArrayList<>(live.values()));
        }
        assertEachCheckpointCommittedOnce(table);
    }

    /**
     * {@code count} inserts of new keys and, after the first run, changes of every seventh key of
     * the run before: a delete for every seventh of those, else an update; {@code live} follows the
     * rows they leave.
     */
    private static ChangeScript newKeysAndChangesOfTheRunBefore(
            int run, int count, Map<Long, Object[]> live) {
        List<ChangeScript.Change> changes = new ArrayList<>(newKeys(run, count).changes());
        if (run > 0) {
            for (long i = 0; i < count; i += 7) {
                long id = (run - 1) * 1_000_000L + i;
                Object[] before = live.get(id);
                if (i % 49 == 0) {
                    changes.add(new ChangeScript.Change(RowKind.DELETE, before));
                } else {
                    Object[] after = before.clone();
                    after[3] = "updated in run " + run;
                    changes.add(new ChangeScript.Change(RowKind.UPDATE_BEFORE, before));
                    changes.add(new ChangeScript.Change(RowKind.UPDATE_AFTER, after));
                }
            }
        }
        for (ChangeScript.Change change : changes) {
            switch (change.kind()) {
                case INSERT, UPDATE_AFTER -> live.put((Long) change.values()[0], change.values());
                case DELETE -> live.remove((Long) change.values()[0]);
                default -> {}
            }
        }
        return ChangeScript.of(changes);
    }

    /** The same in batch mode, where each run's results are committed once at the end. */
    @Test
    void everyBatchRunWithAFixedAppIdCommitsAllItsRows() throws Exception {
        Path table = dir.resolve("batch");
        List<Object[]> expected = new ArrayList<>();
        for (int run = 0; run < 3; run++) {
            ChangeScript keys = newKeys(run, 3_000);
            expected.addAll(keys.expected());
            StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(150), 0);
            env.setRuntimeMode(RuntimeExecutionMode.BATCH);
            SinkJobs.sink(SinkJobs.changes(env, keys, 100_000), fixedAppIdSink(keys, table), 2);
            env.execute("batch-" + run);
            assertTableEquals(table, expected);
        }
        assertEachCheckpointCommittedOnce(table);
    }

    /**
     * One writer is stalled past the checkpoint timeout, so a checkpoint that the other writer
     * already prepared expires (a tolerated failure); the stalled writer, told of the abort before
     * the checkpoint's barrier reaches it, skips that checkpoint. Later checkpoints complete and
     * commit. The expired checkpoint's results are committed before the next checkpoint's, not
     * dropped because a later one committed.
     */
    @Test
    void aCheckpointOnlySomeWritersPreparedIsCommittedBeforeTheNextOne() throws Exception {
        ChangeScript script = ChangeScript.generate(404, 7_500, 600, 6, false);
        Path table = dir.resolve("declined");
        AtomicInteger stalls = new AtomicInteger();
        FaultInjection.arm(
                Point.WRITE,
                (location, occurrence) -> {
                    // Once, early in the run, the writer that gets this record stalls.
                    if (occurrence == 1_500) {
                        stalls.incrementAndGet();
                        Thread.sleep(2_500);
                    }
                });
        Configuration configuration = new Configuration();
        configuration.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofMillis(800));
        configuration.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, 100);
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(200), 0);
        env.configure(configuration);
        SinkJobs.sink(SinkJobs.changes(env, script, 1_500), sink(script, table), 2);
        env.execute("tolerated-checkpoint-failures");

        assertThat(stalls.get()).isEqualTo(1);
        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
    }

    /**
     * A savepoint is taken from a running job, which goes on; a second job starts from the
     * savepoint and writes the same table. No file that the first job still commits is deleted, and
     * both jobs' commits leave a readable table equal to the model.
     */
    @Test
    void aSecondJobFromASavepointOfARunningJobDeletesNothingTheFirstCommits() throws Exception {
        ChangeScript script = ChangeScript.generate(77, 6_000, 800, 4, false);
        Path table = dir.resolve("blue-green");
        Path savepoints = dir.resolve("savepoints");
        AtomicBoolean slowCommits = new AtomicBoolean(true);
        FaultInjection.arm(
                Point.BEFORE_COMMIT,
                (location, occurrence) -> {
                    // The first job's commits lag behind its checkpoints, so that it holds
                    // prepared, uncommitted checkpoints when the second job starts.
                    if (slowCommits.get()) {
                        Thread.sleep(700);
                    }
                });
        StreamExecutionEnvironment blue = SinkJobs.environment(Duration.ofMillis(150), 0);
        SinkJobs.sink(SinkJobs.changes(blue, script, 1_500), sink(script, table), 2);
        JobClient blueJob = blue.executeAsync("blue");
        while (DeltaHistory.transactionIds(table).size() < 2) {
            Thread.sleep(50);
        }
        String savepoint =
                blueJob.triggerSavepoint(
                                savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();
        // Blue goes on preparing checkpoints after the savepoint before green starts.
        Thread.sleep(600);

        StreamExecutionEnvironment green = SinkJobs.environment(Duration.ofMillis(150), 0);
        green.configure(new Configuration().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint));
        SinkJobs.sink(SinkJobs.changes(green, script, 3_000), sink(script, table), 2);
        JobClient greenJob = green.executeAsync("green");
        Thread.sleep(1_000);
        slowCommits.set(false);
        greenJob.getJobExecutionResult().get();
        blueJob.getJobExecutionResult().get();

        assertThat(DeltaHistory.missingReferencedFiles(table)).isEmpty();
        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
    }

    /**
     * One sink object added to two streams would give two pipelines one transaction app id, each
     * taking the other's checkpoints for its own: refused while the job is built.
     */
    @Test
    void aSinkAddedToTwoStreamsIsRefused() {
        ChangeScript keys = newKeys(0, 10);
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(150), 0);
        DeltaLiteSink sink = sink(keys, dir.resolve("shared"));
        SinkJobs.changes(env, keys, 100).sinkTo(sink);
        SinkJobs.changes(env, keys, 100).filter(row -> true).sinkTo(sink);

        org.assertj.core.api.Assertions.assertThatThrownBy(env::getStreamGraph)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already the sink of another stream")
                .hasMessageContaining(dir.resolve("shared").toString());
    }

    /** Inserts of {@code count} keys of their own for run {@code run}. */
    private static ChangeScript newKeys(int run, int count) {
        List<ChangeScript.Change> changes = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            long id = run * 1_000_000L + i;
            changes.add(
                    new ChangeScript.Change(
                            RowKind.INSERT,
                            new Object[] {id, "2024-01-0" + (1 + id % 3), (int) i, "run" + run}));
        }
        return ChangeScript.of(changes);
    }

    private static DeltaLiteSink fixedAppIdSink(ChangeScript script, Path table) {
        return DeltaLiteSink.forTable(table.toString())
                .rowType(script.rowType())
                .primaryKey(script.primaryKey())
                .partitionKey("day")
                .appId("orders")
                .option(DeltaLiteOptions.KEY_INDEX, KeyIndexMode.ON)
                // Every merge also runs the exact probe: an index gone stale fails the test.
                .option(DeltaLiteOptions.KEY_INDEX_VALIDATE, true)
                .build();
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
}
