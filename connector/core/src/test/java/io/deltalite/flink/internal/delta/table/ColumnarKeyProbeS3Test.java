package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.fileio.ConnectorClassLoader;
import io.deltalite.flink.internal.delta.fileio.ParquetInputFiles;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.table.ChangedKeys;
import io.deltalite.flink.internal.merge.table.KeyHits;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.parquet.ParquetKeyScanner;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The columnar key probe reads data files on S3 through the table's own file access (S3A behind
 * deltalite's {@code S3FileIO}), and a deletion-vector merge on S3 that relies on it leaves the
 * right rows.
 */
class ColumnarKeyProbeS3Test {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final TableDefinition ORDERS =
            new TableDefinition(
                    S3UpsertHarness.ORDERS.columns(),
                    S3UpsertHarness.ORDERS.primaryKey(),
                    S3UpsertHarness.ORDERS.partitionColumns(),
                    Map.of("delta.enableDeletionVectors", "true"));

    @Test
    void theColumnarProbeReadsFilesOnS3AndAgreesWithTheRowWiseProbe() throws IOException {
        String location = "s3a://" + S3.server().createBucket() + "/orders";
        Map<String, String> options = S3.server().hadoopOptions();
        MergeOptions vectors =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.DELETION_VECTORS)
                        .withCompaction(CompactionOptions.DISABLED)
                        .withRowGroupSizeBytes(2048);
        Map<Long, Object[]> model = new TreeMap<>();
        try (S3UpsertHarness harness =
                S3UpsertHarness.open(
                        location, StorageSettings.of(options), ORDERS, vectors, "harness")) {
            for (long id = 0; id < 2_000; id++) {
                Object[] row = {id, "d" + (id % 2), (int) id};
                harness.upsert(row);
                model.put(id, row);
            }
            harness.commit();
            for (long id = 0; id < 2_000; id += 7) {
                Object[] row = {id, "d" + (id % 2), (int) -id};
                harness.upsert(row);
                model.put(id, row);
            }
            harness.commit();

            DeltaTable table = harness.table();
            List<DataFile> files = new ArrayList<>();
            table.latestSnapshot().allLiveFiles().values().forEach(files::addAll);
            assertThat(files).anyMatch(DataFile::hasDeletionVector);
            Set<RowKey> keys = new HashSet<>();
            for (long id = 0; id < 3_000; id += 5) {
                keys.add(RowKey.ofValues(id));
            }
            ChangedKeys changed = ChangedKeys.of(keys);
            KernelFileStore store = table.kernelFiles();
            ParquetKeyScanner scanner =
                    new ParquetKeyScanner(List.of("id"), List.of(ORDERS.columns().get(0).type()));
            long hits = 0;
            for (DataFile file : files) {
                assertThat(file.path()).startsWith("s3a://");
                KeyHits expected = store.locateKeysRowWise(file, changed, false);
                KeyHits columnar =
                        ConnectorClassLoader.call(
                                        () ->
                                                scanner.locate(
                                                        ParquetInputFiles.open(
                                                                table.fileIO(),
                                                                file.path(),
                                                                file.sizeBytes()),
                                                        changed,
                                                        store.readDeletionVector(file),
                                                        false))
                                .orElseThrow();
                assertThat(columnar.positions()).isEqualTo(expected.positions());
                assertThat(columnar.foundKeys()).isEqualTo(expected.foundKeys());
                assertThat(columnar.physicalRows()).isEqualTo(expected.physicalRows());
                hits += columnar.positions().length;
            }
            assertThat(hits).isPositive();

            // A merge whose probe and marks read the files on S3 the columnar way.
            for (long id = 0; id < 2_000; id += 5) {
                Object[] row = {id, "d" + (id % 2), 7};
                harness.upsert(row);
                model.put(id, row);
            }
            harness.commit();
        }
        assertThat(Rows.sorted(KernelTableReader.readAll(location, options)))
                .isEqualTo(Rows.sorted(new ArrayList<>(model.values())));
    }
}
