package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.maintenance.DeadLineageCleanup;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The maintenance pass on S3, where the journal's folders are key prefixes: it finds the lineages,
 * ages them by the objects' times, and removes the dead one's notes and files.
 */
class S3DeadLineageCleanupITCase {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Test
    void aKilledJobsNotesAndFilesOnS3AreRemovedOnceOlderThanTheRetention() throws IOException {
        Map<String, String> hadoopOptions = S3.server().hadoopOptions();
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        StorageSettings storage = StorageSettings.of(hadoopOptions);
        try (S3UpsertHarness running =
                        S3UpsertHarness.open(
                                table,
                                storage,
                                S3UpsertHarness.ORDERS,
                                MergeOptions.DEFAULTS,
                                "running");
                S3UpsertHarness killed =
                        S3UpsertHarness.open(
                                table,
                                storage,
                                S3UpsertHarness.ORDERS,
                                MergeOptions.DEFAULTS,
                                "killed")) {
            running.upsert(1L, "d1", 1);
            running.commit();
            killed.upsert(2L, "d2", 2);
            killed.prepare(); // and dies before the commit
        }
        List<String> before = objects(table, hadoopOptions);
        assertThat(before).anyMatch(key -> key.contains("_deltalite/journal/killed/"));
        DeadLineageCleanup cleanup =
                new DeadLineageCleanup(
                        DeltaTable.open(
                                table,
                                storage,
                                MergeOptions.DEFAULTS,
                                TableDefinition.existingTable(),
                                false),
                        Duration.ofDays(7));

        MaintenanceReport now = cleanup.run(Instant.now(), false);
        assertThat(now.dead()).isEmpty();
        assertThat(now.lineages())
                .extracting(MaintenanceReport.Lineage::appId)
                .contains("killed", "running");
        assertThat(objects(table, hadoopOptions)).isEqualTo(before);

        // Ten days on, nobody wrote a note or committed: both are dead.
        MaintenanceReport later = cleanup.run(Instant.now().plus(Duration.ofDays(10)), false);

        assertThat(later.dead())
                .extracting(MaintenanceReport.Lineage::appId)
                .containsExactly("killed", "running");
        MaintenanceReport.Lineage removed = later.dead().get(0);
        assertThat(removed.dataFiles()).isEqualTo(1);
        assertThat(removed.bytes()).isPositive();
        List<String> after = objects(table, hadoopOptions);
        assertThat(after).noneMatch(key -> key.contains("_deltalite/"));
        assertThat(before).hasSize(after.size() + removed.dataFiles() + 2); // two notes
        assertThat(Rows.sorted(KernelTableReader.readAll(table, hadoopOptions)))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "d1", 1})));
    }

    /**
     * On S3 a heartbeat is an object the job replaces; its age is the server's last-modified time.
     * Fresh, it keeps its lineage live; ten days on it is a stopped job's and goes.
     */
    @Test
    void aHeartbeatOnS3KeepsItsLineageLiveUntilItAges() throws IOException {
        Map<String, String> hadoopOptions = S3.server().hadoopOptions();
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        StorageSettings storage = StorageSettings.of(hadoopOptions);
        try (S3UpsertHarness job =
                S3UpsertHarness.open(
                        table, storage, S3UpsertHarness.ORDERS, MergeOptions.DEFAULTS, "job")) {
            job.upsert(1L, "d1", 1);
            job.commit();
        }
        DeltaTable opened =
                DeltaTable.open(
                        table,
                        storage,
                        MergeOptions.DEFAULTS,
                        TableDefinition.existingTable(),
                        false);
        opened.journal().beat("idle", "c", Duration.ofHours(1));
        opened.journal().beat("idle", "c", Duration.ofHours(1)); // replaced, not added
        assertThat(objects(table, hadoopOptions))
                .filteredOn(key -> key.contains("_deltalite/journal/idle/"))
                .containsExactly("/_deltalite/journal/idle/c.heartbeat");
        DeadLineageCleanup cleanup = new DeadLineageCleanup(opened, Duration.ofDays(7));

        MaintenanceReport now = cleanup.run(Instant.now(), false);
        MaintenanceReport.Lineage idle =
                now.lineages().stream()
                        .filter(lineage -> lineage.appId().equals("idle"))
                        .findFirst()
                        .orElseThrow();
        assertThat(idle.state()).isEqualTo(MaintenanceReport.State.LIVE);
        assertThat(idle.reason()).contains("heartbeat of");

        MaintenanceReport later = cleanup.run(Instant.now().plus(Duration.ofDays(10)), false);
        assertThat(later.dead())
                .extracting(MaintenanceReport.Lineage::appId)
                .containsExactly("idle", "job");
        assertThat(objects(table, hadoopOptions)).noneMatch(key -> key.contains("_deltalite/"));
    }

    private static List<String> objects(String table, Map<String, String> hadoopOptions)
            throws IOException {
        Configuration conf = new Configuration();
        hadoopOptions.forEach(conf::set);
        Path root = new Path(table);
        List<String> keys = new ArrayList<>();
        RemoteIterator<LocatedFileStatus> files = root.getFileSystem(conf).listFiles(root, true);
        while (files.hasNext()) {
            keys.add(files.next().getPath().toString().substring(table.length()));
        }
        return keys.stream().sorted().toList();
    }
}
