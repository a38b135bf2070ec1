package io.deltalite.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.DeltaLiteMaintenance;
import io.deltalite.flink.sink.MaintenanceReport;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.KilledJobs;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark reading and time-travelling a table while deltalite writes it and the maintenance pass
 * removes what a job killed ten days ago left: every version reads in Spark as it was committed,
 * during the passes and after them.
 */
class SparkReadsTablesBesideMaintenanceTest {
    private static final TableDefinition ITEMS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(ValueType.Kind.INT), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    @TempDir Path dir;

    /** The model: amount by id; the day of an id is fixed ({@code "d" + id % 2}). */
    private final Map<Long, Integer> model = new TreeMap<>();

    @Test
    void everyVersionReadsInSparkAsCommittedWhileMaintenanceRemovesAKilledJobsLeftovers()
            throws Exception {
        Path location = dir.resolve("items");
        String table = location.toString();
        KilledJobs.Leftovers killed =
                KilledJobs.kill(location, ITEMS, "killed", 1, id -> row(id, (int) id));
        KilledJobs.age(location, "killed", Duration.ofDays(10));
        for (long id = 0; id < 10; id++) {
            model.put(id, (int) id);
        }
        long killedVersion = KernelTableReader.latestVersion(table);
        Map<Long, List<String>> versions = new ConcurrentHashMap<>();
        versions.put(killedVersion, expected());

        AtomicBoolean writing = new AtomicBoolean(true);
        List<MaintenanceReport> reports = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        Thread maintenance =
                new Thread(
                        () -> {
                            try {
                                reports.add(DeltaLiteMaintenance.forTable(table).run());
                                while (writing.get()) {
                                    // Longer than the writer waits between commits while Spark
                                    // reads: a lineage silent for longer would be dead.
                                    reports.add(
                                            DeltaLiteMaintenance.forTable(table)
                                                    .retention(Duration.ofMinutes(5))
                                                    .allowShortRetention()
                                                    .run());
                                    Thread.sleep(500);
                                }
                            } catch (Throwable e) {
                                failures.add(e);
                            }
                        },
                        "maintenance");
        Random random = new Random(29);
        try (UpsertHarness running =
                UpsertHarness.open(table, ITEMS, MergeOptions.DEFAULTS, "running")) {
            maintenance.start();
            for (int checkpoint = 0; checkpoint < 12; checkpoint++) {
                for (int change = 0; change < 30; change++) {
                    long id = random.nextInt(200);
                    int amount = random.nextInt(1000);
                    running.upsert(row(id, amount));
                    model.put(id, amount);
                }
                long gone = random.nextInt(200);
                if (model.remove(gone) != null) {
                    running.delete(row(gone, 0));
                }
                CommitOutcome outcome = running.commit();
                versions.put(outcome.version(), expected());
                // Spark reads the version just committed while the passes run.
                assertThat(Rows.sorted(SparkRows.readVersion(table, outcome.version())))
                        .as("version %d read by Spark during maintenance", outcome.version())
                        .isEqualTo(versions.get(outcome.version()));
            }
        } finally {
            writing.set(false);
            maintenance.join();
        }

        assertThat(failures).isEmpty();
        assertThat(reports).hasSizeGreaterThan(1);
        MaintenanceReport.Lineage removed =
                reports.get(0).dead().stream()
                        .filter(lineage -> lineage.appId().equals("killed"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(reports.get(0).toString()));
        assertThat(removed.dataFiles()).isEqualTo(killed.uncommitted().size());
        assertThat(reports.stream().flatMap(report -> report.lineages().stream()))
                .filteredOn(lineage -> lineage.appId().equals("running"))
                .allSatisfy(
                        lineage ->
                                assertThat(lineage.state())
                                        .isEqualTo(MaintenanceReport.State.LIVE));
        assertThat(DeltaHistory.uncommittedDataFiles(location)).isEmpty();
        assertThat(DeltaHistory.missingReferencedFiles(location)).isEmpty();
        // Every version Spark may time-travel to: the killed job's commit was aged ten days, past
        // Spark's own limit (delta.deletedFileRetentionDuration); Kernel reads that one.
        for (long version = 0; version <= KernelTableReader.latestVersion(table); version++) {
            List<String> rows =
                    Rows.sorted(
                            version <= killedVersion
                                    ? KernelTableReader.readVersion(table, version)
                                    : SparkRows.readVersion(table, version));
            if (versions.containsKey(version)) {
                assertThat(rows).as("version %d", version).isEqualTo(versions.get(version));
            } else {
                assertThat(rows)
                        .as("version %d by Spark and by Kernel", version)
                        .isEqualTo(Rows.sorted(KernelTableReader.readVersion(table, version)));
            }
        }
        assertThat(Rows.sorted(SparkRows.readTable(table))).isEqualTo(expected());
    }

    private static Object[] row(long id, int amount) {
        return new Object[] {id, "d" + id % 2, amount};
    }

    private List<String> expected() {
        List<Object[]> rows = new ArrayList<>();
        model.forEach((id, amount) -> rows.add(row(id, amount)));
        return Rows.sorted(rows);
    }
}
