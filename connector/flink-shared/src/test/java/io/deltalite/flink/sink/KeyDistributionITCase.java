package io.deltalite.flink.sink;

import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertEachCheckpointCommittedOnce;
import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertTableEquals;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.internal.faults.FaultInjection.Point;
import io.deltalite.flink.testing.BuildSample;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.NoKeyIndexDisagreements;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
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
 * Distribution {@code key}: every writer shares each partition — a single-partition table, an
 * unpartitioned one, and keys moving between partitions — and the table still ends equal to the
 * model of the changelog, each checkpoint committed once, at every parallelism, after a failure at
 * each point of the sink's life, and across restores at other parallelisms — with the key index
 * from the first merge, validated at every merge against the exact probe, so that a writer whose
 * index does not cover the keys it owns after a restore or a rescale fails the job.
 */
@ExtendWith(NoKeyIndexDisagreements.class)
class KeyDistributionITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    @TempDir Path dir;

    @AfterEach
    void disarm() {
        FaultInjection.disarmAll();
    }

    /** How the table is laid out. */
    enum Shape {
        /** Partitioned by day, with every row in one day: the hot partition. */
        ONE_PARTITION(1, true),
        /** No partition columns. */
        UNPARTITIONED(0, false),
        /** Four days, keys moving between them through -U/+U pairs. */
        MOVING_KEYS(4, true);

        final int days;
        final boolean partitioned;

        Shape(int days, boolean partitioned) {
            this.days = days;
            this.partitioned = partitioned;
        }
    }

    static Stream<Arguments> parallelismsShapesAndModes() {
        return Stream.of(
                Arguments.of(1, Shape.ONE_PARTITION, WriteMode.AUTO),
                Arguments.of(2, Shape.ONE_PARTITION, WriteMode.AUTO),
                Arguments.of(4, Shape.ONE_PARTITION, WriteMode.AUTO),
                Arguments.of(1, Shape.UNPARTITIONED, WriteMode.COPY_ON_WRITE),
                Arguments.of(2, Shape.UNPARTITIONED, WriteMode.COPY_ON_WRITE),
                Arguments.of(4, Shape.UNPARTITIONED, WriteMode.COPY_ON_WRITE),
                Arguments.of(4, Shape.UNPARTITIONED, WriteMode.AUTO),
                Arguments.of(4, Shape.MOVING_KEYS, WriteMode.AUTO),
                Arguments.of(4, Shape.MOVING_KEYS, WriteMode.COPY_ON_WRITE));
    }

    @ParameterizedTest(name = "parallelism {0}, {1}, write mode {2}")
    @MethodSource("parallelismsShapesAndModes")
    void everyWriterSharesThePartitionsAndTheTableEqualsTheModel(
            int parallelism, Shape shape, WriteMode mode) throws Exception {
        ChangeScript script =
                ChangeScript.generate(parallelism * 31L, 5_000, 700, shape.days, false);
        Path table = dir.resolve("t");
        Set<String> writersWithRecords = ConcurrentHashMap.newKeySet();
        FaultInjection.arm(
                Point.WRITE,
                (location, occurrence) -> writersWithRecords.add(Thread.currentThread().getName()));

        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(250), 0);
        SinkJobs.sink(
                SinkJobs.changes(env, script, 2_000),
                sink(script, table, shape, mode),
                parallelism);
        env.execute("key-distribution");

        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
        assertThat(DeltaHistory.uncommittedDataFiles(table)).isEmpty();
        assertThat(DeltaHistory.missingReferencedFiles(table)).isEmpty();
        // The job ended: its last checkpoint resolved everything its writers noted.
        assertThat(DeltaHistory.journalNotes(table)).isEmpty();
        // Also with one partition: records went to every writer, not to the partition's owner.
        assertThat(writersWithRecords).as("writers that got records").hasSize(parallelism);
        if (mode == WriteMode.AUTO) {
            assertThat(DeltaHistory.deletionVectorAdds(table))
                    .as("files given a deletion vector")
                    .isPositive();
        } else {
            assertThat(DeltaHistory.deletionVectorAdds(table)).isZero();
        }
    }

    /**
     * Every point fails in every build, each in one write mode; which point runs which mode rotates
     * with the build's sample ({@link BuildSample}; {@code -Dtests.all=true} runs all eight).
     */
    static Stream<Arguments> pointsAndModes() {
        List<Point> points =
                Stream.of(Point.values()).filter(point -> point != Point.WRITER_START).toList();
        return BuildSample.eachWithOneOf(
                "KeyDistributionITCase.pointsAndModes",
                points,
                List.of(WriteMode.AUTO, WriteMode.COPY_ON_WRITE),
                (point, mode) -> Arguments.of(point, mode))
                .stream();
    }

    @ParameterizedTest(name = "failure at {0}, write mode {1}")
    @MethodSource("pointsAndModes")
    void aFailureAtEachPointLosesNothingAndDoublesNothingWithFourWritersInOnePartition(
            Point point, WriteMode mode) throws Exception {
        int records = 5_000;
        ChangeScript script = ChangeScript.generate(100 + point.ordinal(), records, 700, 1, false);
        Path table = dir.resolve("t");
        AtomicInteger failures =
                SinkJobs.failOnceAt(point, table, point == Point.WRITE ? records / 2 : 3);

        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(250), 3);
        SinkJobs.sink(
                SinkJobs.changesEndingAfterRecovery(env, script, 2_000, failures),
                sink(script, table, Shape.ONE_PARTITION, mode),
                4);
        env.execute("key-distribution-failure-at-" + point);

        DeltaLiteFailureITCase.assertRecoveredFromOneFailure(table, script, failures);
    }

    /**
     * Two of the four points a running job passes each checkpoint, drawn per build ({@link
     * BuildSample}; {@code -Dtests.all=true} runs all four).
     */
    static Stream<Point> twoCheckpointPoints() {
        List<Point> points =
                Stream.of(Point.values())
                        .filter(point -> point != Point.WRITER_START)
                        .collect(Collectors.toList());
        return BuildSample.some("KeyDistributionITCase.keyOnlyDeletes", points, 2).stream();
    }

    /**
     * A source without before images (PostgreSQL's REPLICA IDENTITY DEFAULT): every delete and -U
     * names only the key, while rows move between four days. Each writer deletes its keys' rows
     * wherever they are, through a failure at each point.
     */
    @ParameterizedTest(name = "failure at {0}")
    @MethodSource("twoCheckpointPoints")
    void keyOnlyDeletesThroughAFailureAtEachPointLoseNothingAndDoubleNothing(Point point)
            throws Exception {
        int records = 8_000;
        ChangeScript script =
                ChangeScript.generate(200 + point.ordinal(), records, 700, 4, false)
                        .withKeyOnlyDeletes();
        Path table = dir.resolve("t");
        AtomicInteger failures =
                SinkJobs.failOnceAt(point, table, point == Point.WRITE ? records / 2 : 3);

        // A small buffer: several merges per checkpoint, so that a delete and the row written
        // after it may be merged in different rounds. The failure far from the end of the input,
        // also on a slow machine: a restart as the input ended failed in Flink's own committer
        // ("Received duplicate committable summary", FLINK-25920's area), not the subject here.
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(500), 3);
        SinkJobs.sink(
                SinkJobs.changesEndingAfterRecovery(env, script, 2_000, failures),
                sink(script, table, Shape.MOVING_KEYS, WriteMode.AUTO, MemorySize.parse("16kb")),
                3);
        env.execute("key-only-deletes-failure-at-" + point);

        DeltaLiteFailureITCase.assertRecoveredFromOneFailure(table, script, failures);
    }

    /** One write mode per build, rotating with its sample ({@code -Dtests.all=true}: both). */
    static Stream<WriteMode> oneWriteMode() {
        return BuildSample.some(
                "KeyDistributionITCase.savepointModes",
                List.of(WriteMode.AUTO, WriteMode.COPY_ON_WRITE),
                1)
                .stream();
    }

    @ParameterizedTest(name = "write mode {0}")
    @MethodSource("oneWriteMode")
    void savepointRestoresAtParallelismFourThenTwoThenThreeLoseAndDoubleNothing(WriteMode mode)
            throws Exception {
        ChangeScript script = ChangeScript.generate(4_2_3, 9_000, 900, 2, false);
        Path table = dir.resolve("t");
        Path savepoints = dir.resolve("savepoints");
        String savepoint = null;
        int[] parallelisms = {4, 2, 3};
        for (int run = 0; run < parallelisms.length; run++) {
            boolean last = run == parallelisms.length - 1;
            StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(250), 0);
            if (savepoint != null) {
                env.configure(
                        new Configuration().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint));
            }
            SinkJobs.sink(
                    SinkJobs.changes(env, script, last ? 4_000 : 700),
                    sink(script, table, Shape.MOVING_KEYS, mode),
                    parallelisms[run]);
            if (last) {
                env.execute("key-distribution-at-" + parallelisms[run]);
                break;
            }
            int committedBefore = DeltaHistory.transactionIds(table).size();
            JobClient job = env.executeAsync("key-distribution-at-" + parallelisms[run]);
            savepoint = SinkJobs.savepointAfterCommits(job, table, committedBefore, 3, savepoints);
        }

        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
        assertThat(DeltaHistory.missingReferencedFiles(table)).isEmpty();
    }

    private static DeltaLiteSink sink(
            ChangeScript script, Path table, Shape shape, WriteMode mode) {
        // Small enough that writers also merge between checkpoints.
        return sink(script, table, shape, mode, MemorySize.parse("96kb"));
    }

    private static DeltaLiteSink sink(
            ChangeScript script, Path table, Shape shape, WriteMode mode, MemorySize buffer) {
        DeltaLiteSinkBuilder builder =
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .option(DeltaLiteOptions.DISTRIBUTION, Distribution.KEY.toString())
                        .option(DeltaLiteOptions.WRITE_MODE, mode.toString())
                        .option(DeltaLiteOptions.KEY_INDEX, KeyIndexMode.ON)
                        // Every merge also runs the exact probe: an index gone stale fails the
                        // test.
                        .option(DeltaLiteOptions.KEY_INDEX_VALIDATE, true)
                        .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("64kb"))
                        .option(DeltaLiteOptions.MAX_BUFFERED_BYTES, buffer)
                        // Few hot keys: most rows of a file change each checkpoint; mark them.
                        .option(DeltaLiteOptions.DV_REWRITE_THRESHOLD, 0.9)
                        // Files stay tiny with few keys: none small, so that they get vectors.
                        .option(
                                DeltaLiteOptions.COMPACTION_SMALL_FILE_SIZE,
                                MemorySize.parse("256b"));
        if (shape.partitioned) {
            builder.partitionKey("day");
        }
        return builder.build();
    }
}
