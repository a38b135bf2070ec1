package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.Statistic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Data files on S3 larger than S3A's part size go up as multipart uploads, and a data-file write
 * that fails leaves neither an object nor an unfinished upload behind. (Kernel closes its Parquet
 * writer when its input fails, which completes the upload; the engine then deletes the file.)
 */
class S3DataFilesITCase {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final int PART_SIZE = 5 << 20;
    private static final int ROWS_PER_BATCH = 1_000;

    /** About 9 MiB of Parquet: random 1 KiB strings barely compress. */
    private static final int BATCHES = 12;

    /** {@code id BIGINT NOT NULL, day STRING, payload STRING}, key {@code id}, by day. */
    private static final TableDefinition EVENTS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field(
                                    "payload", ValueType.of(ValueType.Kind.STRING), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    /** Row groups of 1 MiB reach the stream early; one data file holds everything. */
    private static final MergeOptions OPTIONS =
            MergeOptions.DEFAULTS.withRowGroupSizeBytes(1 << 20).withMaxBufferedBytes(256L << 20);

    @Test
    void aDataFileLargerThanThePartSizeIsUploadedInPartsAndReadsBack() throws IOException {
        Map<String, String> hadoopOptions = hadoopOptions();
        String table = "s3a://" + S3.server().createBucket() + "/events";
        List<Object[]> rows = rows(BATCHES * ROWS_PER_BATCH);
        try (S3UpsertHarness harness =
                S3UpsertHarness.open(
                        table, StorageSettings.of(hadoopOptions), EVENTS, OPTIONS, "multipart")) {
            rows.forEach(harness::upsert);
            harness.commit();
        }

        List<S3AFileStatus> dataFiles = dataFiles(table, hadoopOptions);
        assertThat(dataFiles).hasSize(1);
        assertThat(dataFiles.get(0).getLen()).isGreaterThan(PART_SIZE);
        assertThat(dataFiles.get(0).getEtag())
                .as("a multipart upload's ETag ends with -<parts>")
                .matches("\"?[0-9a-f]+-[2-9]\"?");
        assertThat(Rows.sorted(KernelTableReader.readAll(table, hadoopOptions)))
                .isEqualTo(Rows.sorted(rows));
    }

    @Test
    void aFailedDataFileWriteLeavesNoObjectAndNoUpload() throws IOException {
        Map<String, String> hadoopOptions = hadoopOptions();
        String bucket = S3.server().createBucket();
        String table = "s3a://" + bucket + "/events";
        long uploadsBefore =
                counter(table, hadoopOptions, Statistic.OBJECT_MULTIPART_UPLOAD_INITIATED);
        try (S3UpsertHarness harness =
                S3UpsertHarness.open(
                        table, StorageSettings.of(hadoopOptions), EVENTS, OPTIONS, "failing")) {
            DataFileStore files = harness.table().files();
            BatchStream failing = new FailingBatches(files, rows(BATCHES * ROWS_PER_BATCH));

            assertThatThrownBy(() -> files.write(new PartitionValues(List.of("d1")), failing))
                    .isInstanceOf(DeltaLiteException.class)
                    .hasMessageContaining("nothing was committed");
        }

        S3AFileSystem fs = fileSystem(table, hadoopOptions);
        assertThat(counter(table, hadoopOptions, Statistic.OBJECT_MULTIPART_UPLOAD_INITIATED))
                .as("the failed write had started a multipart upload")
                .isGreaterThan(uploadsBefore);
        assertThat(dataFiles(table, hadoopOptions)).isEmpty();
        assertThat(fs.listMultipartUploads("events/")).as("unfinished uploads").isEmpty();
    }

    /** All the given rows in batches, then a failure, as when a source read breaks mid-file. */
    private static final class FailingBatches implements BatchStream {
        private final DataFileStore files;
        private final List<Object[]> rows;
        private int next;

        FailingBatches(DataFileStore files, List<Object[]> rows) {
            this.files = files;
            this.rows = rows;
        }

        @Override
        public boolean hasNext() {
            return true;
        }

        @Override
        public RowBatch next() {
            if (next >= rows.size()) {
                throw new IllegalStateException("the input failed after " + next + " rows");
            }
            List<Object[]> batch = rows.subList(next, Math.min(rows.size(), next + ROWS_PER_BATCH));
            next += batch.size();
            return files.newRows(new ArrayList<>(batch));
        }

        @Override
        public void close() {}
    }

    private static Map<String, String> hadoopOptions() {
        Map<String, String> options = new HashMap<>(S3.server().hadoopOptions());
        options.put("fs.s3a.multipart.size", Integer.toString(PART_SIZE));
        return options;
    }

    private static List<Object[]> rows(int count) {
        Random random = new Random(count);
        List<Object[]> rows = new ArrayList<>(count);
        for (long id = 0; id < count; id++) {
            StringBuilder payload = new StringBuilder(1024);
            for (int i = 0; i < 1024; i++) {
                payload.append((char) ('!' + random.nextInt(94)));
            }
            rows.add(new Object[] {id, "d1", payload.toString()});
        }
        return rows;
    }

    private static List<S3AFileStatus> dataFiles(String table, Map<String, String> hadoopOptions)
            throws IOException {
        S3AFileSystem fs = fileSystem(table, hadoopOptions);
        List<S3AFileStatus> files = new ArrayList<>();
        Path partition = new Path(table, "day=d1");
        if (!fs.exists(partition)) {
            return files;
        }
        RemoteIterator<LocatedFileStatus> listing = fs.listFiles(partition, true);
        while (listing.hasNext()) {
            files.add((S3AFileStatus) fs.getFileStatus(listing.next().getPath()));
        }
        return files;
    }

    private static long counter(
            String table, Map<String, String> hadoopOptions, Statistic statistic)
            throws IOException {
        return fileSystem(table, hadoopOptions)
                .getIOStatistics()
                .counters()
                .getOrDefault(statistic.getSymbol(), 0L);
    }

    private static S3AFileSystem fileSystem(String table, Map<String, String> hadoopOptions)
            throws IOException {
        Configuration conf = new Configuration();
        hadoopOptions.forEach(conf::set);
        return (S3AFileSystem) new Path(table).getFileSystem(conf);
    }
}
