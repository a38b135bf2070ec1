package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.fileio.ParquetInputFiles;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.KeyIdentitySink;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.parquet.KeyIdentityReader;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
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
 * The key index reads a file's keys through the column reader ({@link KeyIdentityReader}) and gets
 * exactly what the row-wise read through Kernel gives — the same key identities at the same
 * physical positions, rows with a null key column left out, deleted rows kept, the same row count —
 * on files the sink wrote: every key type, composite keys, null keys, dictionary and plain pages,
 * several row groups, deletion vectors.
 */
class ColumnarKeyIdentityTest {
    private static final MergeOptions VECTORS = ColumnarKeyProbeTest.vectors();

    @TempDir Path dir;

    static Stream<ColumnarKeyProbeTest.KeyCase> keyCases() {
        return ColumnarKeyProbeTest.keyCases();
    }

    /** One row as a reader hands it over. */
    record Entry(long high, long low, long position) {}

    @ParameterizedTest
    @MethodSource("keyCases")
    void theColumnReaderGivesTheIdentitiesTheRowWiseReadGives(ColumnarKeyProbeTest.KeyCase keyCase)
            throws IOException {
        List<ValueType> types = keyCase.types();
        String location = dir.resolve(keyCase.name().replaceAll("[^a-z0-9]", "_")).toString();
        try (UpsertHarness harness =
                UpsertHarness.open(location, ColumnarKeyProbeTest.definition(types), VECTORS)) {
            for (int i = 0; i < 1_500; i++) {
                harness.upsert(ColumnarKeyProbeTest.row(types, i, "first " + i));
            }
            for (int i = 0; i < 40; i++) {
                harness.upsert(ColumnarKeyProbeTest.rowWithNullKey(types, i, "null key " + i));
            }
            harness.commit();
            for (int i = 900; i < 2_000; i++) {
                harness.upsert(ColumnarKeyProbeTest.row(types, i, "second " + i));
            }
            harness.commit();
            for (int i = 0; i < 600; i += 3) {
                harness.delete(ColumnarKeyProbeTest.row(types, i, null));
            }
            harness.commit();

            DeltaTable table = harness.table();
            List<DataFile> files = ColumnarKeyProbeTest.liveFiles(table);
            assertThat(files).anyMatch(DataFile::hasDeletionVector);
            assertThat(files).anyMatch(file -> ColumnarKeyProbeTest.rowGroups(file) > 1);
            long entries = assertAgree(table, files, types);
            // TINYINT and BOOLEAN columns repeat: fewer distinct keys, but always some hundreds.
            assertThat(entries).as("rows compared").isGreaterThan(250);
        }
    }

    /**
     * A column of distinct keys is written in plain pages (the writer drops the dictionary when it
     * does not shrink the first page), in files of one large row group.
     */
    @Test
    void plainPagesOfDistinctKeysAgreeToo() throws IOException {
        for (List<ValueType> types :
                List.<List<ValueType>>of(
                        List.of(ValueType.of(Kind.BIGINT)), List.of(ValueType.of(Kind.STRING)))) {
            String location = dir.resolve("plain-" + types.get(0)).toString();
            MergeOptions options = VECTORS.withRowGroupSizeBytes(64L << 20);
            try (UpsertHarness harness =
                    UpsertHarness.open(location, ColumnarKeyProbeTest.definition(types), options)) {
                for (int i = 0; i < 200_000; i++) {
                    harness.upsert(ColumnarKeyProbeTest.row(types, i, "v"));
                }
                harness.commit();
                DeltaTable table = harness.table();
                List<DataFile> files = ColumnarKeyProbeTest.liveFiles(table);
                Set<Encoding> encodings = new HashSet<>();
                files.forEach(file -> encodings.addAll(encodings(file)));
                assertThat(encodings).as("encodings of %s", types).contains(Encoding.PLAIN);
                assertThat(assertAgree(table, files, types)).isEqualTo(200_000);
            }
        }
    }

    /**
     * Key columns whose values repeat — a composite key of a region and a number, each value shared
     * by several keys — are written with dictionary pages.
     */
    @Test
    void dictionaryPagesOfCompositeKeysAgreeToo() throws IOException {
        List<ValueType> types = List.of(ValueType.of(Kind.STRING), ValueType.of(Kind.BIGINT));
        MergeOptions options = VECTORS.withRowGroupSizeBytes(256L << 10);
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.resolve("dictionary").toString(),
                        ColumnarKeyProbeTest.definition(types),
                        options)) {
            for (int i = 0; i < 100_000; i++) {
                harness.upsert("region-" + (i % 5) + "-é", (long) (i / 5) * 1_000_003L, "v");
            }
            harness.upsert(null, 5L, "null region");
            harness.upsert("region-0-é", null, "null number");
            harness.commit();
            for (int i = 0; i < 100_000; i += 11) {
                harness.delete("region-" + (i % 5) + "-é", (long) (i / 5) * 1_000_003L, null);
            }
            harness.commit();
            DeltaTable table = harness.table();
            List<DataFile> files = ColumnarKeyProbeTest.liveFiles(table);
            Set<Encoding> encodings = new HashSet<>();
            files.forEach(file -> encodings.addAll(encodings(file)));
            assertThat(encodings).anyMatch(Encoding::usesDictionary);
            assertThat(files).anyMatch(DataFile::hasDeletionVector);
            assertThat(files).anyMatch(file -> ColumnarKeyProbeTest.rowGroups(file) > 1);
            // Deleted rows are read too; the two rows with a null key column are not.
            assertThat(assertAgree(table, files, types)).isEqualTo(100_000);
        }
    }

    /**
     * Compares the column reader (read directly, and through the store) with the row-wise read on
     * every file; answers the entries compared.
     */
    private static long assertAgree(DeltaTable table, List<DataFile> files, List<ValueType> types)
            throws IOException {
        KernelFileStore store = table.kernelFiles();
        List<String> names = new ArrayList<>();
        for (int c = 0; c < types.size(); c++) {
            names.add("k" + c);
        }
        long compared = 0;
        for (DataFile file : files) {
            List<Entry> expected = new ArrayList<>();
            long expectedRows = store.readKeyIdentitiesRowWise(file, types, collect(expected));
            for (boolean pages : new boolean[] {true, false}) {
                List<Entry> columnar = new ArrayList<>();
                OptionalLong rows =
                        new KeyIdentityReader(names, types, pages)
                                .read(
                                        ParquetInputFiles.open(
                                                table.fileIO(), file.path(), file.sizeBytes()),
                                        collect(columnar));
                assertThat(rows).as("the column reader reads %s", file.name()).isPresent();
                assertThat(rows.getAsLong()).as("rows of %s", file.name()).isEqualTo(expectedRows);
                assertThat(columnar)
                        .as("identities and positions in %s (pages: %s)", file.name(), pages)
                        .isEqualTo(expected);
            }
            List<Entry> stored = new ArrayList<>();
            assertThat(store.readKeyIdentities(file, types, collect(stored)))
                    .isEqualTo(expectedRows);
            assertThat(stored).isEqualTo(expected);
            compared += expected.size();
        }
        return compared;
    }

    private static KeyIdentitySink collect(List<Entry> into) {
        return (high, low, positions, count) -> {
            for (int i = 0; i < count; i++) {
                into.add(new Entry(high[i], low[i], positions[i]));
            }
        };
    }

    private static Set<Encoding> encodings(DataFile file) {
        Set<Encoding> encodings = new HashSet<>();
        try (ParquetFileReader reader =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(file.path()), new Configuration()))) {
            for (BlockMetaData block : reader.getRowGroups()) {
                for (ColumnChunkMetaData chunk : block.getColumns()) {
                    if (chunk.getPath().toDotString().startsWith("k")) {
                        encodings.addAll(chunk.getEncodings());
                    }
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return encodings;
    }
}
