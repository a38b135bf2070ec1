package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On S3, a deletion-vector fold joins the row groups of a tier of small files into one new object
 * (read through S3A, uploaded through deltalite's S3 file access), committed with a deletion vector
 * for the rows the tier's vectors and the checkpoint deleted, and the table reads right.
 */
class S3JoinedFoldITCase {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final TableDefinition ORDERS =
            new TableDefinition(
                    S3UpsertHarness.ORDERS.columns(),
                    S3UpsertHarness.ORDERS.primaryKey(),
                    S3UpsertHarness.ORDERS.partitionColumns(),
                    Map.of("delta.enableDeletionVectors", "true"));

    @Test
    void aFullTierOfMarkedSmallObjectsIsJoinedIntoOneObjectWithAVector() {
        Map<String, String> hadoopOptions = S3.server().hadoopOptions();
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(WriteMode.DELETION_VECTORS);
        Map<Long, Integer> model = new TreeMap<>();
        PartitionValues day = new PartitionValues(List.of("d1"));
        try (S3UpsertHarness harness =
                S3UpsertHarness.open(
                        table, StorageSettings.of(hadoopOptions), ORDERS, options, "join")) {
            // Four objects of 20 new keys each; from the second on, each checkpoint also updates
            // a key of the one before, which gets a deletion vector.
            for (int checkpoint = 0; checkpoint < 4; checkpoint++) {
                for (long id = checkpoint * 20L; id < checkpoint * 20L + 20; id++) {
                    upsert(harness, model, id, checkpoint);
                }
                if (checkpoint > 0) {
                    upsert(harness, model, (checkpoint - 1) * 20L + 5, 100 + checkpoint);
                }
                harness.commit();
            }
            assertThat(liveFiles(harness, day)).hasSize(4);

            upsert(harness, model, 7L, 200);
            harness.commit();

            List<DataFile> live = liveFiles(harness, day);
            assertThat(live).hasSize(2);
            DataFile joined =
                    live.stream()
                            .filter(file -> file.numRecords() == 83)
                            .findFirst()
                            .orElseThrow(() -> new AssertionError("no joined object: " + live));
            assertThat(joined.hasDeletionVector()).isTrue();
            assertThat(joined.deletionVector().cardinality()).isEqualTo(4);
        }
        List<Object[]> expected = new ArrayList<>();
        model.forEach((id, amount) -> expected.add(new Object[] {id, "d1", amount}));
        assertThat(Rows.sorted(KernelTableReader.readAll(table, hadoopOptions)))
                .isEqualTo(Rows.sorted(expected));
    }

    private static void upsert(
            S3UpsertHarness harness, Map<Long, Integer> model, long id, int amount) {
        harness.upsert(id, "d1", amount);
        model.put(id, amount);
    }

    private static List<DataFile> liveFiles(S3UpsertHarness harness, PartitionValues day) {
        return harness.table().latestSnapshot().liveFiles(List.of(day)).get(day);
    }
}
