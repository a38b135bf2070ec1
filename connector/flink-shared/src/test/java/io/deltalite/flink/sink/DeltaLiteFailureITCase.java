package io.deltalite.flink.sink;

import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertEachCheckpointCommittedOnce;
import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertTableEquals;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.internal.faults.FaultInjection.Point;
import io.deltalite.flink.internal.merge.changes.BufferBudget;
import io.deltalite.flink.testing.BuildSample;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.NoKeyIndexDisagreements;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A failure at each point of the sink's life — while records are written, after a checkpoint's
 * files are written but before it completes, before the Delta commit, after the Delta commit but
 * before the committer returns — makes the job restart; the table still ends equal to the model and
 * no checkpoint is committed twice. Both write modes: the table the sink creates allows deletion
 * vectors, so the default ({@code auto}) marks rows with them; {@code copy-on-write} rewrites. The
 * writers keep the key index from their first merge and validate it at every merge against the
 * exact probe ({@code key-index = on}, {@code key-index.validate}): an index that a restart, a
 * re-merge or a compaction left stale fails its checkpoint, and the test ({@link
 * NoKeyIndexDisagreements}) even where the job recovered.
 */
@ExtendWith(NoKeyIndexDisagreements.class)
class DeltaLiteFailureITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    @TempDir Path dir;

    @AfterEach
    void disarm() {
        FaultInjection.disarmAll();
    }

    /**
     * Few keys, changed again and again (merges rewrite or mark most files every checkpoint); or so
     * many that nearly every change inserts, leaving files untouched for compaction.
     */
    private static final int HOT_KEYS = 700;

    private static final int WIDE_KEYS = 100_000_000;

    /** The points a running job passes each checkpoint (a writer's start has its own test). */
    private static Stream<Point> checkpointPoints() {
        return Stream.of(Point.values()).filter(point -> point != Point.WRITER_START);
    }

    /**
     * Every point fails in every build, each with one of three scripts: hot keys in either write
     * mode, or wide keys; which point runs which script rotates with the build's sample ({@link
     * BuildSample}; {@code -Dtests.all=true} runs all twelve).
     */
    static Stream<Arguments> pointsAndModes() {
        List<Object[]> scripts =
                List.of(
                        new Object[] {WriteMode.AUTO, HOT_KEYS},
                        new Object[] {WriteMode.COPY_ON_WRITE, HOT_KEYS},
                        new Object[] {WriteMode.AUTO, WIDE_KEYS});
        return BuildSample.eachWithOneOf(
                "DeltaLiteFailureITCase.pointsAndModes",
                checkpointPoints().collect(Collectors.toList()),
                scripts,
                (point, script) -> Arguments.of(point, script[0], script[1]))
                .stream();
    }

    @ParameterizedTest(name = "failure at {0}, write mode {1}, {2} keys")
    @MethodSource("pointsAndModes")
    void aFailureAtEachPointLosesNothingAndDoublesNothing(Point point, WriteMode mode, int keys)
            throws Exception {
        // The wide script runs longer: enough checkpoints to fill a size tier of small files.
        int records = keys == HOT_KEYS ? 5_000 : 12_000;
        ChangeScript script = ChangeScript.generate(point.ordinal(), records, keys, 4, false);
        Path table = dir.resolve("t");
        // WRITE counts records (fail mid-way); the others count checkpoints (fail at the third).
        AtomicInteger failures =
                SinkJobs.failOnceAt(point, table, point == Point.WRITE ? records / 2 : 3);

        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(250), 3);
        SinkJobs.sink(
                SinkJobs.changesEndingAfterRecovery(env, script, 2_000, failures),
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("64kb"))
                        // Small enough that writers also merge between checkpoints.
                        .option(DeltaLiteOptions.MAX_BUFFERED_BYTES, MemorySize.parse("96kb"))
                        .option(DeltaLiteOptions.WRITE_MODE, mode.toString())
                        .option(DeltaLiteOptions.KEY_INDEX, KeyIndexMode.ON)
                        // Every merge also runs the exact probe: an index gone stale fails the
                        // test.
                        .option(DeltaLiteOptions.KEY_INDEX_VALIDATE, true)
                        // With few keys files stay tiny: none small, so that they get vectors.
                        .option(
                                DeltaLiteOptions.COMPACTION_SMALL_FILE_SIZE,
                                MemorySize.parse(keys == HOT_KEYS ? "256b" : "16kb"))
                        .build(),
                4);
        env.execute("failure-at-" + point);

        assertRecoveredFromOneFailure(table, script, failures);
        if (keys == WIDE_KEYS) {
            // Compaction ran (in the last merge of a checkpoint, which PREPARED follows).
            assertThat(DeltaHistory.compactedFiles(table)).as("files compacted").isPositive();
        } else if (mode == WriteMode.AUTO) {
            assertThat(DeltaHistory.deletionVectorAdds(table))
                    .as("files given a deletion vector")
                    .isPositive();
        } else {
            assertThat(DeltaHistory.deletionVectorAdds(table)).isZero();
        }
    }

    /**
     * A bounded job whose writers all reach the end of their input before its first checkpoint:
     * their last results are checkpoint 1, the job's final checkpoint, and its commit fails (before
     * or after the Delta commit). The job restores checkpoint 1, taken while the writers waited for
     * it to complete, so Flink runs them again: their input ends at once and each announces its end
     * again, as checkpoint 2. The job finishes with the table equal to the model — Flink's
     * committer refused the second announcement of checkpoint 2 on every restart until the restarts
     * ran out (seen once in CI, where a loaded machine ended the input before the injected
     * failure).
     */
    @ParameterizedTest(name = "failure at {0}")
    @org.junit.jupiter.params.provider.EnumSource(
            value = Point.class,
            names = {"BEFORE_COMMIT", "AFTER_COMMIT"})
    void aFailureAtTheCommitOfABoundedJobsFinalCheckpointLetsTheJobFinish(Point point)
            throws Exception {
        ChangeScript script = ChangeScript.generate(41, 400, 150, 2, false);
        Path table = dir.resolve("t");
        AtomicInteger failures = SinkJobs.failOnceAt(point, table, 1);

        // The input (400 records, about 10 ms) ends long before the first checkpoint.
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(2), 3);
        SinkJobs.sink(
                SinkJobs.changes(env, script, 40_000),
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .build(),
                2);
        env.execute("failure-at-the-final-checkpoint-" + point);

        assertRecoveredFromOneFailure(table, script, failures);
    }

    /**
     * The one injected failure happened, and the job recovered from it: the table equals the model,
     * each checkpoint was committed once, no referenced file is missing, and the files of the
     * failed attempt that no completed checkpoint holds were deleted — by the writers when they
     * closed, and after the restore for checkpoints that never completed — except, after a failure
     * close to the end of the input (a loaded machine), those noted for checkpoints numbered after
     * the job's last one, which stay for maintenance; no other note is left.
     */
    static void assertRecoveredFromOneFailure(
            Path table, ChangeScript script, AtomicInteger failures) {
        assertThat(failures.get()).as("the failure was injected").isEqualTo(1);
        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
        assertThat(DeltaHistory.uncommittedFilesNoNoteKeeps(table)).isEmpty();
        assertThat(DeltaHistory.notesNotKeptForMaintenance(table)).isEmpty();
        assertThat(DeltaHistory.missingReferencedFiles(table)).isEmpty();
    }

    /**
     * A writer whose start fails after its merge engine opened (storage failing while it reads what
     * an earlier start left) is never closed by Flink: it gives back its share of the JVM's buffer
     * budget itself, or every automatic buffer of this TaskManager shrinks with each failed start.
     * The job restarts once the storage answers and ends equal to the model.
     */
    @org.junit.jupiter.api.Test
    void aWriterWhoseStartFailsGivesBackItsBufferShareAndTheJobRecovers() throws Exception {
        ChangeScript script = ChangeScript.generate(41, 3_000, HOT_KEYS, 4, false);
        Path table = dir.resolve("t");
        int openBefore = BufferBudget.openAutomaticWriters();
        // The third writer start of the first attempt fails; two of its writers opened before it.
        AtomicInteger failures = SinkJobs.failOnceAt(Point.WRITER_START, table, 3);

        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(250), 3);
        SinkJobs.sink(
                SinkJobs.changesEndingAfterRecovery(env, script, 2_000, failures),
                // The buffer budget is left automatic: each writer counts in the JVM's share.
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .build(),
                4);
        env.execute("failure-at-writer-start");

        assertThat(failures.get()).as("the failure was injected").isEqualTo(1);
        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
        assertThat(BufferBudget.openAutomaticWriters())
                .as("writers holding a share of the buffer budget after the job ended")
                .isEqualTo(openBefore);
    }
}
