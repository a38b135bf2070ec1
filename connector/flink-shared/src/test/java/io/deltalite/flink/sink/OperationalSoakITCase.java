package io.deltalite.flink.sink;

import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertTableEquals;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.internal.faults.FaultInjection.Point;
import io.deltalite.flink.internal.faults.StorageFaults;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.testing.BuildSample;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.KilledJobs;
import io.deltalite.flink.testing.NoKeyIndexDisagreements;
import io.deltalite.flink.testing.SinkJobs;
import io.deltalite.flink.testing.TableCompactor;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model-checked changelog written while the harness does, at random, what operators do to a
 * running job: failovers at every point of the sink, tolerated checkpoint failures (a writer
 * stalled past the checkpoint timeout), stop-with-savepoint and restore into a new job (rescaled up
 * or down, with and without a fixed app id), a second job started from a savepoint of a running
 * one, restarts without state, and another writer appending its own keys and compacting partitions.
 * Throughout, the maintenance pass ({@link DeltaLiteMaintenance}) runs every few seconds with a
 * retention of {@value #MAINTENANCE_RETENTION_SECONDS} seconds — longer than any job of the run
 * waits to resume from a savepoint — removing what cancelled jobs left. After the run: the table
 * equals the model, every file it references exists, every transaction id is committed once, and
 * every data file no version references is noted in the journal of a job that did not finish; once
 * every job has ended, a last pass removes them all and leaves no note behind. The jobs keep the
 * key index from the first merge and validate it at every merge against the exact probe.
 *
 * <p>In the default build it runs for {@code soak.seconds} = 35; the long run is
 *
 * <pre>
 * mvn -B -ntp -pl connector/flink-2.3 test -Dtest=OperationalSoakITCase -Dsoak.seconds=600
 * </pre>
 */
@ExtendWith(NoKeyIndexDisagreements.class)
class OperationalSoakITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    private static final TableDefinition DEFINITION =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(ValueType.Kind.INT), true),
                            new ValueType.Field("note", ValueType.of(ValueType.Kind.STRING), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    /** The retention of the maintenance passes during the run. */
    private static final int MAINTENANCE_RETENTION_SECONDS = 30;

    /**
     * How often the jobs refresh their heartbeats: a pass judges by heartbeats only with a
     * retention of at least twice this.
     */
    private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(2);

    /**
     * How the run's jobs spread changes over their writers: {@code soak.distribution}, else drawn
     * per build ({@code -Dtests.seed} repeats a build's draw) — the key index under both.
     */
    private static final Distribution DISTRIBUTION =
            Distribution.valueOf(
                    System.getProperty(
                                    "soak.distribution",
                                    BuildSample.random("OperationalSoakITCase").nextBoolean()
                                            ? "KEY"
                                            : "PARTITION")
                            .toUpperCase(java.util.Locale.ROOT));

    /**
     * Whether the run's files count as large ({@code soak.files = row-groups}: row groups of about
     * 100 rows, Parquet's least, and no file small enough to fold, so worn files are moved a few
     * row groups at a time) or as small ({@code small}: folded as compaction would merge them);
     * drawn per build like {@link #DISTRIBUTION}.
     */
    private static final boolean ROW_GROUP_MOVES =
            "row-groups"
                    .equalsIgnoreCase(
                            System.getProperty(
                                    "soak.files",
                                    BuildSample.random("OperationalSoakITCase.files").nextBoolean()
                                            ? "row-groups"
                                            : "small"));

    /** Keys of the other writer: far from the script's. */
    private static final long OTHER_KEYS = 10_000_000L;

    @TempDir Path dir;

    private final Map<String, Integer> events = new TreeMap<>();
    private final Random random = new Random(Long.getLong("soak.seed", 20261201));

    /** Who created each file, for the message of a failed run. */
    private static final Map<String, String> CREATORS = new ConcurrentHashMap<>();

    @AfterEach
    void disarm() {
        FaultInjection.disarmAll();
        StorageFaults.disarm();
    }

    @Test
    void randomOperationsLoseNothingDoubleNothingAndLeaveNothingBehind() throws Exception {
        long seconds = Long.getLong("soak.seconds", 35);
        int rate = 1_500;
        ChangeScript script =
                ChangeScript.generate(1201, (int) (rate * seconds * 0.7), 4_000, 4, false);
        Path table = dir.resolve("soak");
        Path savepoints = dir.resolve("savepoints");
        List<Object[]> otherRows = new ArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread other = otherWriter(table, running, otherRows);
        List<String> maintenanceFailures = new ArrayList<>();
        Thread maintenance = maintenance(table, running, maintenanceFailures);

        StorageFaults.arm(
                (operation, path, done) -> {
                    if (operation == StorageFaults.Operation.WRITE_FILE && !done) {
                        StringBuilder stack =
                                new StringBuilder(java.time.LocalTime.now().toString())
                                        .append(' ')
                                        .append(Thread.currentThread().getName());
                        for (StackTraceElement frame : new Throwable().getStackTrace()) {
                            if (frame.getClassName().startsWith("io.deltalite")
                                    && !frame.getClassName().contains("Soak")
                                    && !frame.getClassName().contains("FaultInjecting")
                                    && !frame.getClassName().contains("StorageFaults")) {
                                stack.append("\n    ").append(frame);
                            }
                        }
                        CREATORS.put(path.substring(path.lastIndexOf('/') + 1), stack.toString());
                    }
                });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        String savepoint = null;
        List<JobClient> lingering = new ArrayList<>();
        List<JobClient> started = new ArrayList<>();
        int segment = 0;
        while (System.nanoTime() < deadline) {
            int parallelism = 1 + random.nextInt(4);
            boolean fixedAppId = random.nextBoolean();
            armInJobFaults(table);
            JobClient job = start(script, table, savepoint, parallelism, fixedAppId, rate);
            started.add(job);
            count(savepoint == null ? "start without state" : "restore from savepoint");
            count("parallelism " + parallelism);
            Thread.sleep(2_000 + random.nextInt(4_000));
            if (status(job) == JobStatus.FINISHED) {
                // It reached the end of the script: start over without state.
                savepoint = null;
                continue;
            }
            int ending = random.nextInt(10);
            if (ending < 5) {
                savepoint = stopWithSavepoint(job, savepoints);
            } else if (ending < 7) {
                savepoint = blueGreen(job, savepoints, lingering);
            } else {
                job.cancel().get(30, TimeUnit.SECONDS);
                count("cancel, then restart without state");
                savepoint = null;
            }
            segment++;
        }
        FaultInjection.disarmAll();
        // No job of the run may go on writing beside the last one (one that was restarting when
        // its segment ended, a second job from a savepoint).
        for (JobClient job : started) {
            if (!status(job).isGloballyTerminalState()) {
                cancelQuietly(job);
            }
        }
        running.set(false);
        other.join();
        maintenance.join();
        // The last job finishes the script, fast and without faults.
        JobClient last = start(script, table, savepoint, 2, false, 100_000);
        last.getJobExecutionResult().get(5, TimeUnit.MINUTES);

        String keep = System.getProperty("soak.keep");
        if (keep != null) {
            // For a look at the table after a failed run: -Dsoak.keep=/some/empty/dir
            org.apache.commons.io.FileUtils.copyDirectory(table.toFile(), Path.of(keep).toFile());
        }
        int injected = events.values().stream().mapToInt(Integer::intValue).sum();
        System.out.printf(
                "soak: distribution %s, files %s, %d segments, %d events: %s%n",
                DISTRIBUTION, ROW_GROUP_MOVES ? "row-groups" : "small", segment, injected, events);
        assertThat(segment).isGreaterThan(0);
        List<Object[]> expected = new ArrayList<>(script.expected());
        synchronized (otherRows) {
            expected.addAll(otherRows);
        }
        assertTableEquals(table, expected);
        assertThat(DeltaHistory.missingReferencedFiles(table)).isEmpty();
        List<String> ids = DeltaHistory.transactionIds(table);
        assertThat(new HashSet<>(ids)).hasSameSizeAs(ids);
        assertUnreferencedFilesAreDocumented(table, lastAppId(table));
        assertThat(maintenanceFailures).as("failed maintenance passes").isEmpty();

        // Every job has ended: once the last heartbeat and note are older than twice the
        // heartbeat interval, a pass with that retention removes what they all left.
        Duration lastRetention = HEARTBEAT_INTERVAL.multipliedBy(2);
        Thread.sleep(lastRetention.toMillis() + 1_000);
        MaintenanceReport lastPass =
                DeltaLiteMaintenance.forTable(table.toString())
                        .retention(lastRetention)
                        .allowShortRetention()
                        .run();
        System.out.printf("soak: last maintenance pass: %s%n", lastPass);
        assertThat(DeltaHistory.journalNotes(table)).isEmpty();
        assertThat(DeltaHistory.uncommittedDataFiles(table)).isEmpty();
        assertThat(KilledJobs.stagedKeyFiles(table)).isEmpty();
        assertTableEquals(table, expected);
        assertThat(DeltaHistory.missingReferencedFiles(table)).isEmpty();
    }

    /**
     * Runs the maintenance pass every few seconds while the jobs run; a failed pass is noted, and
     * so is what the passes removed.
     */
    private Thread maintenance(Path table, AtomicBoolean running, List<String> failures) {
        Thread thread =
                new Thread(
                        () -> {
                            Random local = new Random(7);
                            while (running.get()) {
                                try {
                                    Thread.sleep(2_000 + local.nextInt(3_000));
                                    if (!Files.exists(table.resolve("_delta_log"))) {
                                        continue;
                                    }
                                    MaintenanceReport report =
                                            DeltaLiteMaintenance.forTable(table.toString())
                                                    .retention(
                                                            Duration.ofSeconds(
                                                                    MAINTENANCE_RETENTION_SECONDS))
                                                    .allowShortRetention()
                                                    .run();
                                    for (MaintenanceReport.Lineage lineage : report.dead()) {
                                        count("maintenance removed a dead lineage");
                                        if (lineage.files() > 0) {
                                            count("maintenance removed files of a dead lineage");
                                        }
                                    }
                                } catch (InterruptedException e) {
                                    return;
                                } catch (RuntimeException e) {
                                    synchronized (failures) {
                                        failures.add(e.toString());
                                    }
                                }
                            }
                        },
                        "soak-maintenance");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private JobClient start(
            ChangeScript script,
            Path table,
            String savepoint,
            int parallelism,
            boolean fixedAppId,
            int rate)
            throws Exception {
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(300), 1_000);
        Configuration configuration = new Configuration();
        configuration.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofSeconds(5));
        configuration.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, 1_000);
        if (savepoint != null) {
            configuration.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        env.configure(configuration);
        DeltaLiteSinkBuilder sink =
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("128kb"))
                        .option(DeltaLiteOptions.MAX_BUFFERED_BYTES, MemorySize.parse("256kb"))
                        .option(DeltaLiteOptions.HEARTBEAT_INTERVAL, HEARTBEAT_INTERVAL)
                        .option(DeltaLiteOptions.DISTRIBUTION, DISTRIBUTION.toString())
                        .option(DeltaLiteOptions.KEY_INDEX, KeyIndexMode.ON)
                        // Every merge also runs the exact probe: an index gone stale fails the
                        // test.
                        .option(DeltaLiteOptions.KEY_INDEX_VALIDATE, true);
        if (ROW_GROUP_MOVES) {
            sink.option(DeltaLiteOptions.ROW_GROUP_SIZE, MemorySize.parse("1kb"))
                    .option(DeltaLiteOptions.COMPACTION_SMALL_FILE_SIZE, MemorySize.parse("1kb"));
        }
        if (fixedAppId) {
            sink.appId("soak");
        }
        SinkJobs.sink(SinkJobs.changes(env, script, rate), sink.build(), parallelism);
        return env.executeAsync("soak");
    }

    /** At most one failure per job at a random point, and sometimes a stalled writer. */
    private void armInJobFaults(Path table) {
        FaultInjection.disarmAll();
        Point point = Point.values()[random.nextInt(Point.values().length)];
        long at = point == Point.WRITE ? 500 + random.nextInt(3_000) : 1 + random.nextInt(6);
        AtomicInteger fired = new AtomicInteger();
        String name = "failover at " + point;
        FaultInjection.arm(
                point,
                (location, occurrence) -> {
                    if (occurrence == at && fired.getAndIncrement() == 0) {
                        count(name);
                        throw new RuntimeException("soak: injected failure at " + point);
                    }
                });
        if (point != Point.WRITE && random.nextBoolean()) {
            long stallAt = 300 + random.nextInt(3_000);
            FaultInjection.arm(
                    Point.WRITE,
                    (location, occurrence) -> {
                        if (occurrence == stallAt) {
                            count("writer stalled past the checkpoint timeout");
                            Thread.sleep(7_000);
                        }
                    });
        }
    }

    private String stopWithSavepoint(JobClient job, Path savepoints) throws Exception {
        try {
            String savepoint =
                    job.stopWithSavepoint(
                                    false,
                                    savepoints.toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get(60, TimeUnit.SECONDS);
            count("stop with savepoint");
            return savepoint;
        } catch (Exception e) {
            // A savepoint can fail like a checkpoint (a failover at that moment): start over.
            cancelQuietly(job);
            count("savepoint failed (" + rootCause(e) + "), restart without state");
            return null;
        }
    }

    /**
     * Takes a savepoint of the running job and lets it go on for a while beside the job that will
     * start from it; the old job is cancelled when the next segment ends.
     */
    private String blueGreen(JobClient job, Path savepoints, List<JobClient> lingering)
            throws Exception {
        try {
            String savepoint =
                    job.triggerSavepoint(
                                    savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                            .get(60, TimeUnit.SECONDS);
            count("second job from a savepoint of a running one");
            for (JobClient old : lingering) {
                cancelQuietly(old);
            }
            lingering.clear();
            lingering.add(job);
            return savepoint;
        } catch (Exception e) {
            cancelQuietly(job);
            count("savepoint failed (" + rootCause(e) + "), restart without state");
            return null;
        }
    }

    /** Appends rows of its own keys and compacts partitions, every second or two. */
    private Thread otherWriter(Path table, AtomicBoolean running, List<Object[]> rows) {
        Thread thread =
                new Thread(
                        () -> {
                            Random local = new Random(5);
                            long next = OTHER_KEYS;
                            while (running.get()) {
                                try {
                                    Thread.sleep(1_000 + local.nextInt(1_000));
                                    String day = "2024-01-0" + (1 + local.nextInt(4));
                                    if (local.nextBoolean()) {
                                        if (appendOwnKeys(table, day, next, rows)) {
                                            count("other writer appended");
                                        }
                                        next += 20;
                                    } else if (TableCompactor.compact(
                                            table.toString(),
                                            DEFINITION,
                                            new PartitionValues(List.of(day)))) {
                                        count("other writer compacted a partition");
                                    }
                                } catch (InterruptedException e) {
                                    return;
                                } catch (RuntimeException e) {
                                    if (Files.exists(table.resolve("_delta_log"))) {
                                        count(
                                                "other writer gave up: "
                                                        + e.getClass().getSimpleName());
                                    }
                                }
                            }
                        },
                        "soak-other-writer");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static boolean appendOwnKeys(Path table, String day, long first, List<Object[]> rows) {
        if (!Files.exists(table.resolve("_delta_log"))) {
            return false;
        }
        List<Object[]> batch = new ArrayList<>();
        try (UpsertHarness other =
                UpsertHarness.open(table.toString(), DEFINITION, MergeOptions.DEFAULTS, "other")) {
            for (long id = first; id < first + 20; id++) {
                Object[] row = {id, day, (int) id, "other"};
                other.upsert(row);
                batch.add(row);
            }
            other.commit();
        }
        synchronized (rows) {
            rows.addAll(batch);
        }
        return true;
    }

    /**
     * Every data file on disk that no version added is noted in the journal of a job other than the
     * one that finished: a job cancelled or left running beside another, whose files the README
     * leaves to VACUUM.
     */
    private static void assertUnreferencedFilesAreDocumented(Path table, String finishedAppId)
            throws IOException {
        Map<String, String> noted = new ConcurrentHashMap<>();
        Path journal = table.resolve("_deltalite/journal");
        if (Files.isDirectory(journal)) {
            try (Stream<Path> entries = Files.walk(journal)) {
                for (Path entry :
                        entries.filter(f -> f.getFileName().toString().endsWith(".files"))
                                .filter(f -> !f.getFileName().toString().startsWith("."))
                                .toList()) {
                    String appId = entry.getParent().getFileName().toString();
                    for (String line : Files.readAllLines(entry)) {
                        noted.put(line.substring(line.lastIndexOf('/') + 1), appId);
                    }
                }
            }
        }
        Set<String> undocumented = new HashSet<>();
        for (String name : DeltaHistory.uncommittedDataFiles(table)) {
            String appId = noted.get(name);
            if (appId == null || appId.equals(finishedAppId)) {
                undocumented.add(
                        name
                                + (appId == null ? "" : " (noted by " + appId + ")")
                                + ", created by "
                                + CREATORS.get(name));
            }
        }
        assertThat(undocumented).as("unreferenced data files nobody accounts for").isEmpty();
        Path staged = table.resolve("_deltalite/staged");
        if (Files.isDirectory(staged) && Files.isDirectory(journal)) {
            try (Stream<Path> files = Files.list(staged)) {
                files.filter(f -> f.getFileName().toString().endsWith(".keys"))
                        .forEach(
                                f ->
                                        assertThat(noted)
                                                .as("staged keys %s are noted", f)
                                                .containsKey(f.getFileName().toString()));
            }
        }
    }

    private static String lastAppId(Path table) {
        String last = null;
        for (DeltaHistory.Commit commit : DeltaHistory.commits(table)) {
            if (commit.appId() != null
                    && !commit.appId().equals("other")
                    && !commit.appId().equals("compactor")) {
                last = commit.appId();
            }
        }
        return last;
    }

    private static String rootCause(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = String.valueOf(root.getMessage()).replaceAll("[0-9a-f]{32}", "<job>");
        return root.getClass().getSimpleName()
                + ": "
                + (message.length() > 80 ? message.substring(0, 80) : message);
    }

    private static JobStatus status(JobClient job) throws Exception {
        return job.getJobStatus().get(10, TimeUnit.SECONDS);
    }

    private static void cancelQuietly(JobClient job) {
        try {
            job.cancel().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            // finished or failed already
        }
    }

    private void count(String event) {
        synchronized (events) {
            events.merge(event, 1, Integer::sum);
        }
    }
}
