package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint's new rows written by deltalite itself ({@link RowParquetWriter}) make the files
 * Kernel's Parquet writer makes of the same rows: the same Parquet schema, encodings, codec and row
 * groups, the same statistics in the log, the same values read back, and files that roll at the
 * same row. Types it does not write go to Kernel.
 */
class RowParquetWriterTest {
    private static final int ROWS = 3_000;

    @TempDir Path dir;

    /** Decimals of each Parquet form Kernel writes: INT32, INT64 and fixed-length bytes. */
    private static final List<ValueType.Decimal> DECIMALS =
            List.of(
                    new ValueType.Decimal(9, 2),
                    new ValueType.Decimal(18, 4),
                    new ValueType.Decimal(38, 10));

    private static TableDefinition everyPrimitiveType() {
        List<ValueType.Field> columns = new ArrayList<>();
        columns.add(new ValueType.Field("id", ValueType.of(Kind.BIGINT), false));
        for (Kind kind : Kind.values()) {
            columns.add(
                    new ValueType.Field(
                            "c_" + kind.name().toLowerCase(java.util.Locale.ROOT),
                            ValueType.of(kind),
                            true));
        }
        for (ValueType.Decimal decimal : DECIMALS) {
            columns.add(new ValueType.Field("c_decimal_" + decimal.precision(), decimal, true));
        }
        return new TableDefinition(columns, List.of("id"), List.of(), Map.of());
    }

    /** Row {@code id}: a value of each type, or null in every seventh row of a column. */
    private static Object[] row(long id) {
        Kind[] kinds = Kind.values();
        Object[] row = new Object[1 + kinds.length + DECIMALS.size()];
        row[0] = id;
        for (int k = 0; k < kinds.length; k++) {
            row[k + 1] = (id + k) % 7 == 0 ? null : value(kinds[k], id);
        }
        for (int d = 0; d < DECIMALS.size(); d++) {
            int column = 1 + kinds.length + d;
            row[column] = (id + column) % 7 == 0 ? null : decimal(DECIMALS.get(d), id);
        }
        return row;
    }

    /** Negative and positive, small and near the precision's limit. */
    private static BigDecimal decimal(ValueType.Decimal type, long id) {
        java.math.BigInteger unscaled =
                java.math.BigInteger.valueOf(id * 7_919 + 1)
                        .pow(type.precision() / 3)
                        .mod(java.math.BigInteger.TEN.pow(type.precision()));
        return new BigDecimal(id % 2 == 0 ? unscaled : unscaled.negate(), type.scale());
    }

    private static Object value(Kind kind, long id) {
        return switch (kind) {
            case BOOLEAN -> id % 3 == 0;
            case TINYINT -> (byte) (id % 250 - 125);
            case SMALLINT -> (short) (id * 31 - 20_000);
            case INT -> (int) (id * 7919 - 1_000_000);
            case BIGINT -> id * 1_000_003L - Long.MAX_VALUE / 2;
            case FLOAT -> id % 11 == 0 ? Float.NaN : id / 3.0f - 500;
            case DOUBLE -> id % 13 == 0 ? -0.0d : Math.sqrt(id) - 20;
            case STRING -> "näme-" + (id % 97) + (id % 5 == 0 ? "✓" : "");
            case BINARY -> ("b" + id).getBytes(StandardCharsets.UTF_8);
            case DATE -> (int) (id % 40_000 - 20_000);
            case TIMESTAMP, TIMESTAMP_NTZ -> id * 86_400_000_123L - 1_700_000_000_000_000L;
        };
    }

    private static List<Object[]> rows() {
        List<Object[]> rows = new ArrayList<>();
        for (long id = 0; id < ROWS; id++) {
            rows.add(row(id));
        }
        return rows;
    }

    @Test
    void newRowsMakeTheFileKernelWouldWrite() throws IOException {
        List<Object[]> rows = rows();
        DataFileStore store = open(everyPrimitiveType(), MergeOptions.DEFAULTS).files();

        DataFile ours =
                single(store.writeNew(PartitionValues.UNPARTITIONED, rows, null, 500, null));
        DataFile kernels = single(writtenByKernel(store, rows));

        ParquetMetadata ourFooter = footer(ours);
        ParquetMetadata kernelFooter = footer(kernels);
        assertThat(ourFooter.getFileMetaData().getKeyValueMetaData())
                .as("written by deltalite, not by Kernel")
                .containsKey(RowParquetWriter.WRITER);
        assertThat(ourFooter.getFileMetaData().getSchema())
                .isEqualTo(kernelFooter.getFileMetaData().getSchema());
        assertThat(layout(ourFooter)).isEqualTo(layout(kernelFooter));
        assertThat(ours.numRecords()).isEqualTo(ROWS);
        assertThat(ours.logStatistics()).isEqualTo(kernels.logStatistics());
        assertThat(ours.keyStatistics()).isEqualTo(kernels.keyStatistics());
        assertThat(read(store, ours)).isEqualTo(read(store, kernels)).isEqualTo(deep(rows));
    }

    @Test
    void filesRollAtTheRowKernelsDo() throws IOException {
        List<Object[]> rows = rows();
        DataFileStore store =
                open(everyPrimitiveType(), MergeOptions.DEFAULTS.withTargetFileSizeBytes(16_384))
                        .files();

        List<DataFile> ours = store.writeNew(PartitionValues.UNPARTITIONED, rows, null, 500, null);
        List<DataFile> kernels = writtenByKernel(store, rows);

        assertThat(ours).hasSizeGreaterThan(2);
        assertThat(ours.stream().map(DataFile::numRecords).toList())
                .isEqualTo(kernels.stream().map(DataFile::numRecords).toList());
        List<List<Object>> all = new ArrayList<>();
        for (DataFile file : ours) {
            all.addAll(read(store, file));
        }
        assertThat(all).isEqualTo(deep(rows));
    }

    @Test
    void filesOfRowsOfVeryDifferentSizesRollAtTheRowKernelsDo() throws IOException {
        List<Object[]> rows = rows();
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        for (int i = 150; i < ROWS; i += 300) {
            char[] letters = new char[200_000 + i];
            for (int c = 0; c < letters.length; c++) {
                letters[c] = (char) ('a' + random.nextInt(26));
            }
            rows.get(i)[8] = new String(letters); // c_string: a row a thousand times the others
        }
        DataFileStore store =
                open(everyPrimitiveType(), MergeOptions.DEFAULTS.withTargetFileSizeBytes(200_000))
                        .files();

        List<DataFile> ours = store.writeNew(PartitionValues.UNPARTITIONED, rows, null, 500, null);
        List<DataFile> kernels = writtenByKernel(store, rows);

        assertThat(ours).hasSizeGreaterThan(3);
        assertThat(ours.stream().map(DataFile::numRecords).toList())
                .isEqualTo(kernels.stream().map(DataFile::numRecords).toList());
    }

    @Test
    void aFileKernelWroteAndOneDeltaliteWroteAreJoinedRowGroupByRowGroup() throws IOException {
        List<Object[]> rows = rows();
        DataFileStore store = open(everyPrimitiveType(), MergeOptions.DEFAULTS).files();
        DataFile kernels = single(writtenByKernel(store, rows.subList(0, ROWS / 2)));
        DataFile ours =
                single(
                        store.writeNew(
                                PartitionValues.UNPARTITIONED,
                                rows.subList(ROWS / 2, ROWS),
                                null,
                                500,
                                null));

        DataFile joined = store.splice(PartitionValues.UNPARTITIONED, List.of(kernels, ours), null);

        assertThat(joined).as("joined, not merged row by row").isNotNull();
        assertThat(read(store, joined)).isEqualTo(deep(rows));
    }

    @Test
    void decimalsOfASmallerScaleThanTheColumnsAreWrittenAsKernelWritesThem() throws IOException {
        TableDefinition prices =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                                new ValueType.Field("small", DECIMALS.get(0), true),
                                new ValueType.Field("large", DECIMALS.get(1), true)),
                        List.of("id"),
                        List.of(),
                        Map.of());
        List<Object[]> rows = new ArrayList<>();
        for (long id = 0; id < 100; id++) {
            rows.add(
                    new Object[] {
                        id, BigDecimal.valueOf(id * 5 - 250, 1), BigDecimal.valueOf(-id * 3, 2)
                    });
        }
        DataFileStore store = open(prices, MergeOptions.DEFAULTS).files();

        DataFile ours =
                single(store.writeNew(PartitionValues.UNPARTITIONED, rows, null, 500, null));
        DataFile kernels = single(writtenByKernel(store, rows));

        assertThat(footer(ours).getFileMetaData().getKeyValueMetaData())
                .containsKey(RowParquetWriter.WRITER);
        assertThat(ours.logStatistics()).isEqualTo(kernels.logStatistics());
        assertThat(read(store, ours)).isEqualTo(read(store, kernels));
        assertThat(read(store, ours).get(3).get(1)).isEqualTo(new BigDecimal("-23.50"));
    }

    @Test
    void aTableWithANestedColumnIsWrittenByKernel() throws IOException {
        TableDefinition tagged =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                                new ValueType.Field(
                                        "tags",
                                        new ValueType.Array(ValueType.of(Kind.STRING), true),
                                        true)),
                        List.of("id"),
                        List.of(),
                        Map.of());
        DataFileStore store = open(tagged, MergeOptions.DEFAULTS).files();
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {1L, List.of("a", "b")});

        DataFile file =
                single(store.writeNew(PartitionValues.UNPARTITIONED, rows, null, 500, null));

        assertThat(footer(file).getFileMetaData().getKeyValueMetaData())
                .doesNotContainKey(RowParquetWriter.WRITER);
        assertThat(read(store, file)).isEqualTo(deep(rows));
    }

    private DeltaTable open(TableDefinition definition, MergeOptions options) {
        return DeltaTable.open(dir.resolve("t").toString(), Map.of(), options, definition, true);
    }

    /**
     * The rows as Kernel's Parquet writer writes them, in batches of new rows of the default read
     * batch size, as a merge wrote them before {@link RowParquetWriter}.
     */
    static List<DataFile> writtenByKernel(DataFileStore store, List<Object[]> rows) {
        int batchSize = MergeOptions.DEFAULTS.readBatchSize();
        BatchStream batches =
                new BatchStream() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < rows.size();
                    }

                    @Override
                    public RowBatch next() {
                        int end = Math.min(rows.size(), next + batchSize);
                        RowBatch batch = store.newRows(rows.subList(next, end));
                        next = end;
                        return batch;
                    }

                    @Override
                    public void close() {}
                };
        return store.write(PartitionValues.UNPARTITIONED, batches, null);
    }

    private static DataFile single(List<DataFile> files) {
        assertThat(files).hasSize(1);
        return files.get(0);
    }

    private static ParquetMetadata footer(DataFile file) throws IOException {
        try (ParquetFileReader reader =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(file.path()), new Configuration()))) {
            return reader.getFooter();
        }
    }

    /** Per row group: its rows, and per column chunk its codec, encodings and value count. */
    private static List<String> layout(ParquetMetadata footer) {
        List<String> layout = new ArrayList<>();
        for (BlockMetaData block : footer.getBlocks()) {
            layout.add("rows " + block.getRowCount());
            for (ColumnChunkMetaData chunk : block.getColumns()) {
                layout.add(
                        chunk.getPath()
                                + " "
                                + chunk.getCodec()
                                + " "
                                + chunk.getEncodings()
                                + " "
                                + chunk.getValueCount()
                                + " "
                                + chunk.getStatistics());
            }
        }
        return layout;
    }

    /** The rows of a file as the store reads them, each as a list (byte arrays as lists too). */
    private static List<List<Object>> read(DataFileStore store, DataFile file) {
        List<Object[]> rows = new ArrayList<>();
        try (BatchStream batches = store.readRows(file)) {
            while (batches.hasNext()) {
                RowBatch batch = batches.next();
                for (int row = 0; row < batch.size(); row++) {
                    rows.add(batch.rowAt(row));
                }
            }
        }
        return deep(rows);
    }

    private static List<List<Object>> deep(List<Object[]> rows) {
        List<List<Object>> deep = new ArrayList<>();
        for (Object[] row : rows) {
            List<Object> values = new ArrayList<>();
            for (Object value : row) {
                values.add(value instanceof byte[] bytes ? bytesOf(bytes) : value);
            }
            deep.add(values);
        }
        return deep;
    }

    private static List<Byte> bytesOf(byte[] bytes) {
        List<Byte> list = new ArrayList<>();
        for (byte b : bytes) {
            list.add(b);
        }
        return Arrays.asList(list.toArray(new Byte[0]));
    }
}
