package io.deltalite.flink.sink;

import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertEachCheckpointCommittedOnce;
import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertTableEquals;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.internal.faults.FaultInjection.Point;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.MaintenanceReport.State;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.KilledJobs;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The maintenance pass beside a running sink job: it removes what a job killed ten days ago left,
 * and never anything of the running job — not even with a retention of seconds, since the running
 * job notes every checkpoint.
 */
class DeltaLiteMaintenanceITCase {
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

    /** Keys of the killed job: far from the script's. */
    private static final long KILLED_KEYS = 10_000_000L;

    @TempDir Path dir;

    @Test
    void passesBesideARunningSinkRemoveOnlyWhatAJobKilledLongAgoLeft() throws Exception {
        Path table = dir.resolve("orders");
        KilledJobs.Leftovers killed =
                KilledJobs.kill(
                        table,
                        DEFINITION,
                        "killed",
                        1,
                        id -> new Object[] {KILLED_KEYS + id, "2024-01-01", (int) id, "killed"});
        KilledJobs.age(table, "killed", Duration.ofDays(10));
        long killedVersion = KernelTableReader.latestVersion(table.toString());
        List<Object[]> expected = new ArrayList<>();
        for (long id = 0; id < 10; id++) {
            expected.add(new Object[] {KILLED_KEYS + id, "2024-01-01", (int) id, "killed"});
        }

        ChangeScript script = ChangeScript.generate(29, 8_000, 800, 3, false);
        expected.addAll(script.expected());
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(300), 0);
        SinkJobs.sink(
                SinkJobs.changes(env, script, 1_000),
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("128kb"))
                        .build(),
                2);
        JobClient job = env.executeAsync("sink beside maintenance");
        while (KernelTableReader.latestVersion(table.toString()) <= killedVersion + 2) {
            Thread.sleep(100);
        }

        List<MaintenanceReport> reports = new ArrayList<>();
        reports.add(DeltaLiteMaintenance.forTable(table.toString()).run());
        while (!job.getJobStatus().get(10, TimeUnit.SECONDS).isGloballyTerminalState()) {
            reports.add(
                    DeltaLiteMaintenance.forTable(table.toString())
                            .retention(Duration.ofSeconds(10))
                            .allowShortRetention()
                            .run());
            Thread.sleep(300);
        }
        job.getJobExecutionResult().get(2, TimeUnit.MINUTES);

        MaintenanceReport.Lineage removed = lineage(reports.get(0), "killed");
        assertThat(removed.state()).isEqualTo(State.DEAD);
        assertThat(removed.dataFiles()).isEqualTo(killed.uncommitted().size());
        assertThat(removed.stagedKeyFiles()).isEqualTo(1);
        assertThat(reports.stream().skip(1).flatMap(report -> report.lineages().stream()))
                .as("lineages the passes saw after the first")
                .isNotEmpty()
                .allSatisfy(
                        lineage ->
                                assertThat(lineage.state())
                                        .as("%s: %s", lineage.appId(), lineage.reason())
                                        .isEqualTo(State.LIVE));
        assertTableEquals(table, expected);
        assertEachCheckpointCommittedOnce(table);
        assertThat(DeltaHistory.missingReferencedFiles(table)).isEmpty();
        assertThat(DeltaHistory.journalNotes(table)).isEmpty();
        assertThat(DeltaHistory.uncommittedDataFiles(table)).isEmpty();
        assertThat(KilledJobs.stagedKeyFiles(table)).isEmpty();
    }

    /**
     * A batch run whose writers end at different times: one writer finished and noted its last
     * results, which the committer commits only when the other writer ends; the other is running
     * but gets no further (here: it waits), so for longer than the retention the job writes no note
     * and no commit. The job is alive and proves it: a pass must leave its files alone, and the
     * finished writer's rows reach the table.
     */
    @Test
    void anIdleRunningJobWhoseFinishedWriterHoldsNotedResultsKeepsThemThroughAPass()
            throws Exception {
        Path table = dir.resolve("idle");
        List<ChangeScript.Change> changes = new ArrayList<>();
        for (long id = 0; id < 2_000; id++) {
            changes.add(
                    new ChangeScript.Change(
                            RowKind.INSERT,
                            new Object[] {id, "2024-01-0" + (1 + id % 3), (int) id, "idle"}));
        }
        ChangeScript script = ChangeScript.of(changes);
        CountDownLatch release = new CountDownLatch(1);
        FaultInjection.arm(
                Point.WRITE,
                (location, occurrence) -> {
                    // The writer that gets the first record waits; the other one ends.
                    if (occurrence == 1) {
                        release.await(2, TimeUnit.MINUTES);
                    }
                });
        try {
            StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(150), 0);
            env.setRuntimeMode(RuntimeExecutionMode.BATCH);
            SinkJobs.sink(
                    SinkJobs.changes(env, script, 100_000),
                    DeltaLiteSink.forTable(table.toString())
                            .rowType(script.rowType())
                            .primaryKey(script.primaryKey())
                            .partitionKey("day")
                            .option(DeltaLiteOptions.DISTRIBUTION, "key")
                            .option(DeltaLiteOptions.HEARTBEAT_INTERVAL, Duration.ofMillis(300))
                            .build(),
                    2);
            JobClient job = env.executeAsync("idle beside maintenance");
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (DeltaHistory.journalNotes(table).stream()
                    .noneMatch(note -> note.endsWith(".files"))) {
                assertThat(System.nanoTime()).as("the finished writer's note").isLessThan(deadline);
                Thread.sleep(50);
            }
            Duration retention = Duration.ofSeconds(3);
            Thread.sleep(retention.toMillis() + 1_000);

            MaintenanceReport report =
                    DeltaLiteMaintenance.forTable(table.toString())
                            .retention(retention)
                            .allowShortRetention()
                            .run();
            release.countDown();
            job.getJobExecutionResult().get(2, TimeUnit.MINUTES);

            assertThat(DeltaHistory.missingReferencedFiles(table))
                    .as("files the table references")
                    .isEmpty();
            assertTableEquals(table, script.expected());
            assertThat(report.lineages())
                    .as("lineages of the running job")
                    .isNotEmpty()
                    .allSatisfy(
                            lineage -> {
                                assertThat(lineage.state())
                                        .as("%s: %s", lineage.appId(), lineage.reason())
                                        .isEqualTo(State.LIVE);
                                assertThat(lineage.reason()).contains("heartbeat");
                            });
            assertThat(DeltaHistory.journalNotes(table)).isEmpty();
        } finally {
            release.countDown();
            FaultInjection.disarmAll();
        }
    }

    private static MaintenanceReport.Lineage lineage(MaintenanceReport report, String appId) {
        return report.lineages().stream()
                .filter(lineage -> lineage.appId().equals(appId))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no lineage " + appId + " in " + report));
    }
}
