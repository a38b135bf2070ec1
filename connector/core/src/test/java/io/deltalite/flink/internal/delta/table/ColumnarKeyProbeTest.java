package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.fileio.ParquetInputFiles;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.ChangedKeys;
import io.deltalite.flink.internal.merge.table.KeyHits;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.parquet.ParquetKeyScanner;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exact probe over parquet-java's column reader answers what the row-wise probe through
 * Kernel's reader answers — the same positions, the same keys found, the same row count — on files
 * the sink wrote: every key type, composite keys, null keys, dictionary and plain pages, several
 * row groups, deletion vectors.
 */
class ColumnarKeyProbeTest {
    /** Small row groups, so files have several; no compaction, so files keep their vectors. */
    private static final MergeOptions VECTORS =
            MergeOptions.DEFAULTS
                    .withWriteMode(WriteMode.DELETION_VECTORS)
                    .withCompaction(CompactionOptions.DISABLED)
                    .withRowGroupSizeBytes(4096)
                    .withDeletionVectorRewriteThreshold(0.99);

    @TempDir Path dir;

    static MergeOptions vectors() {
        return VECTORS;
    }

    record KeyCase(String name, List<ValueType> types) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<KeyCase> keyCases() {
        return Stream.of(
                single(Kind.BIGINT),
                single(Kind.INT),
                single(Kind.SMALLINT),
                single(Kind.TINYINT),
                single(Kind.DATE),
                single(Kind.TIMESTAMP),
                single(Kind.TIMESTAMP_NTZ),
                single(Kind.FLOAT),
                single(Kind.DOUBLE),
                single(Kind.STRING),
                single(Kind.BINARY),
                new KeyCase("decimal(9,2)", List.of(new ValueType.Decimal(9, 2))),
                new KeyCase("decimal(18,4)", List.of(new ValueType.Decimal(18, 4))),
                new KeyCase("decimal(30,5)", List.of(new ValueType.Decimal(30, 5))),
                new KeyCase(
                        "string+bigint",
                        List.of(ValueType.of(Kind.STRING), ValueType.of(Kind.BIGINT))),
                new KeyCase(
                        "boolean+int+date",
                        List.of(
                                ValueType.of(Kind.BOOLEAN),
                                ValueType.of(Kind.INT),
                                ValueType.of(Kind.DATE))),
                new KeyCase(
                        "decimal(30,5)+binary+tinyint",
                        List.of(
                                new ValueType.Decimal(30, 5),
                                ValueType.of(Kind.BINARY),
                                ValueType.of(Kind.TINYINT))));
    }

    private static KeyCase single(Kind kind) {
        return new KeyCase(
                kind.name().toLowerCase(java.util.Locale.ROOT), List.of(ValueType.of(kind)));
    }

    @ParameterizedTest
    @MethodSource("keyCases")
    void theColumnarProbeFindsWhatTheRowWiseProbeFinds(KeyCase keyCase) throws IOException {
        String location = dir.resolve(keyCase.name().replaceAll("[^a-z0-9]", "_")).toString();
        TableDefinition definition = definition(keyCase.types());
        int width = keyCase.types().size();
        try (UpsertHarness harness = UpsertHarness.open(location, definition, VECTORS)) {
            for (int i = 0; i < 1_500; i++) {
                harness.upsert(row(keyCase.types(), i, "first " + i));
            }
            for (int i = 0; i < 40; i++) {
                harness.upsert(rowWithNullKey(keyCase.types(), i, "null key " + i));
            }
            harness.commit();
            for (int i = 900; i < 2_000; i++) {
                harness.upsert(row(keyCase.types(), i, "second " + i));
            }
            harness.commit();
            for (int i = 0; i < 600; i += 3) {
                harness.delete(row(keyCase.types(), i, null));
            }
            harness.commit();

            DeltaTable table = harness.table();
            List<DataFile> files = liveFiles(table);
            assertThat(files).anyMatch(DataFile::hasDeletionVector);
            assertThat(files).anyMatch(file -> rowGroups(file) > 1);

            // Present, updated (their old rows are deleted by vectors), deleted and absent keys.
            Random random = new Random(31);
            Set<RowKey> probe = new HashSet<>();
            for (int n = 0; n < 400; n++) {
                probe.add(key(keyCase.types(), random.nextInt(2_600)));
            }
            for (int i = 0; i < 600; i += 3) {
                probe.add(key(keyCase.types(), i));
            }
            assertAgree(table, files, keyCase.types(), ChangedKeys.of(probe), true);
            // A single key, and every key that was ever written.
            assertAgree(
                    table,
                    files,
                    keyCase.types(),
                    ChangedKeys.of(Set.of(key(keyCase.types(), 1_000))),
                    true);
            Set<RowKey> all = new HashSet<>();
            for (int i = 0; i < 2_000; i++) {
                all.add(key(keyCase.types(), i));
            }
            assertAgree(table, files, keyCase.types(), ChangedKeys.of(all), true);
            assertThat(width).isPositive();
        }
    }

    @Test
    void plainPagesAfterTheDictionaryFillsUpAgreeToo() throws IOException {
        List<ValueType> types = List.of(ValueType.of(Kind.BIGINT));
        String location = dir.resolve("plain").toString();
        MergeOptions options = VECTORS.withRowGroupSizeBytes(64L << 20);
        try (UpsertHarness harness = UpsertHarness.open(location, definition(types), options)) {
            // More distinct keys than a 1 MiB dictionary page holds: the chunk falls back to plain.
            for (int i = 0; i < 300_000; i++) {
                harness.upsert(row(types, i, "v"));
            }
            harness.commit();
            for (int i = 0; i < 300_000; i += 97) {
                harness.delete(row(types, i, null));
            }
            harness.commit();
            DeltaTable table = harness.table();
            List<DataFile> files = liveFiles(table);
            assertThat(files).anyMatch(file -> encodings(file).contains(Encoding.PLAIN));
            assertThat(files).anyMatch(DataFile::hasDeletionVector);
            Random random = new Random(7);
            Set<RowKey> probe = new HashSet<>();
            for (int n = 0; n < 5_000; n++) {
                probe.add(key(types, random.nextInt(310_000)));
            }
            assertAgree(table, files, types, ChangedKeys.of(probe), true);
        }
    }

    @Test
    void stringKeysHoldingTheReplacementCharacterAreProbedRowWise() throws IOException {
        List<ValueType> types = List.of(ValueType.of(Kind.STRING));
        String location = dir.resolve("replacement").toString();
        try (UpsertHarness harness = UpsertHarness.open(location, definition(types), VECTORS)) {
            for (int i = 0; i < 200; i++) {
                harness.upsert("k\uFFFD" + i, "v");
            }
            harness.commit();
            DeltaTable table = harness.table();
            Set<RowKey> probe = Set.of(RowKey.ofValues("k\uFFFD7"), RowKey.ofValues("absent"));
            // Stored bytes that are not UTF-8 read back as U+FFFD: such keys are not compared
            // by bytes, the file is read row-wise — and the answer is the same.
            assertAgree(table, liveFiles(table), types, ChangedKeys.of(probe), false);
            DataFile file = liveFiles(table).get(0);
            assertThat(table.kernelFiles().locateKeys(file, ChangedKeys.of(probe), false).isEmpty())
                    .isFalse();
        }
    }

    /** Compares both probes on every file, for all hits and for the first hit. */
    private static void assertAgree(
            DeltaTable table,
            List<DataFile> files,
            List<ValueType> types,
            ChangedKeys keys,
            boolean columnar)
            throws IOException {
        KernelFileStore store = table.kernelFiles();
        List<String> names = new ArrayList<>();
        for (int c = 0; c < types.size(); c++) {
            names.add("k" + c);
        }
        ParquetKeyScanner scanner = new ParquetKeyScanner(names, types);
        int hits = 0;
        for (DataFile file : files) {
            for (boolean firstOnly : new boolean[] {false, true}) {
                KeyHits expected = store.locateKeysRowWise(file, keys, firstOnly);
                DeletionVector deleted = store.readDeletionVector(file);
                Optional<KeyHits> fast =
                        scanner.locate(
                                ParquetInputFiles.open(
                                        table.fileIO(), file.path(), file.sizeBytes()),
                                keys,
                                deleted,
                                firstOnly);
                assertThat(fast.isPresent())
                        .as("the columnar probe reads %s", file.name())
                        .isEqualTo(columnar);
                KeyHits actual = store.locateKeys(file, keys, firstOnly);
                for (KeyHits located :
                        fast.map(List::of).orElse(List.of()).isEmpty()
                                ? List.of(actual)
                                : List.of(fast.get(), actual)) {
                    assertThat(located.positions())
                            .as("positions in %s (first only: %s)", file.name(), firstOnly)
                            .isEqualTo(expected.positions());
                    assertThat(located.foundKeys())
                            .as("keys found in %s", file.name())
                            .isEqualTo(expected.foundKeys());
                    assertThat(located.physicalRows())
                            .as("rows of %s", file.name())
                            .isEqualTo(expected.physicalRows());
                }
                hits += expected.positions().length;
            }
        }
        assertThat(hits).as("the probe found something to compare").isPositive();
    }

    static TableDefinition definition(List<ValueType> types) {
        List<ValueType.Field> columns = new ArrayList<>();
        List<String> key = new ArrayList<>();
        for (int c = 0; c < types.size(); c++) {
            columns.add(new ValueType.Field("k" + c, types.get(c), true));
            key.add("k" + c);
        }
        columns.add(new ValueType.Field("payload", ValueType.of(Kind.STRING), true));
        return new TableDefinition(
                columns, key, List.of(), Map.of("delta.enableDeletionVectors", "true"));
    }

    static Object[] row(List<ValueType> types, int i, String payload) {
        Object[] row = new Object[types.size() + 1];
        for (int c = 0; c < types.size(); c++) {
            row[c] = value(types.get(c), c, i);
        }
        row[types.size()] = payload;
        return row;
    }

    static Object[] rowWithNullKey(List<ValueType> types, int i, String payload) {
        Object[] row = row(types, i, payload);
        row[i % types.size()] = null;
        return row;
    }

    private static RowKey key(List<ValueType> types, int i) {
        Object[] row = row(types, i, null);
        return RowKey.ofValues(Arrays.copyOf(row, types.size()));
    }

    /**
     * Distinct values for distinct {@code i} where the type has room (a TINYINT or BOOLEAN column
     * of a composite key repeats); the first few are the awkward ones of each type.
     */
    static Object value(ValueType type, int column, int i) {
        if (type instanceof ValueType.Decimal decimal) {
            BigInteger unscaled =
                    decimal.precision() > 18
                            ? BigInteger.valueOf(i - 1_000L)
                                    .multiply(BigInteger.TEN.pow(decimal.precision() - 6))
                                    .add(BigInteger.valueOf(i))
                            : BigInteger.valueOf((i - 1_000L) * 100_003L);
            return new BigDecimal(unscaled, decimal.scale());
        }
        return switch (((ValueType.Primitive) type).kind()) {
            case BOOLEAN -> i % 2 == 0;
            case TINYINT -> (byte) (i * 7 + column);
            case SMALLINT -> (short) (i * 13 - 9_000);
            case INT -> i * 1_000_003 - 1_000_000_000;
            case BIGINT -> i == 0 ? 0L : i == 1 ? Long.MIN_VALUE : i * 0x9E3779B97F4AL - 5;
            case DATE -> i - 1_000;
            case TIMESTAMP, TIMESTAMP_NTZ -> 1_700_000_000_000_000L + i * 1_000_001L;
            case FLOAT ->
                    switch (i) {
                        case 0 -> -0.0f;
                        case 1 -> 0.0f;
                        case 2 -> Float.NaN;
                        default -> i * 0.25f - 100;
                    };
            case DOUBLE ->
                    switch (i) {
                        case 0 -> -0.0;
                        case 1 -> 0.0;
                        case 2 -> Double.NaN;
                        default -> i * 0.125 - 100;
                    };
            case STRING ->
                    switch (i % 4) {
                        case 0 -> "ключ-" + i;
                        case 1 -> "clé " + i + " é";
                        case 2 -> i + "-键-😀";
                        default -> "k" + i;
                    };
            case BINARY -> ByteBuffer.allocate(5).put((byte) -1).putInt(i * 31).array();
        };
    }

    static List<DataFile> liveFiles(DeltaTable table) {
        List<DataFile> files = new ArrayList<>();
        table.latestSnapshot().allLiveFiles().values().forEach(files::addAll);
        return files;
    }

    static int rowGroups(DataFile file) {
        try (ParquetFileReader reader = open(file)) {
            return reader.getRowGroups().size();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Set<Encoding> encodings(DataFile file) {
        Set<Encoding> encodings = new HashSet<>();
        try (ParquetFileReader reader = open(file)) {
            for (BlockMetaData block : reader.getRowGroups()) {
                for (ColumnChunkMetaData chunk : block.getColumns()) {
                    if (chunk.getPath().toDotString().equals("k0")) {
                        encodings.addAll(chunk.getEncodings());
                    }
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return encodings;
    }

    private static ParquetFileReader open(DataFile file) throws IOException {
        return ParquetFileReader.open(
                HadoopInputFile.fromPath(
                        new org.apache.hadoop.fs.Path(file.path()), new Configuration()));
    }
}
