package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.ParquetCompression;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Data files are written with the configured codec — every column chunk of every file — and read
 * back by Kernel; a table whose files mix codecs merges like any other.
 */
class ParquetCompressionTest {
    static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field(
                                    "region", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field(
                                    "amount", ValueType.of(ValueType.Kind.BIGINT), true),
                            new ValueType.Field("note", ValueType.of(ValueType.Kind.STRING), true)),
                    List.of("id"),
                    List.of("region"),
                    Map.of());

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(ParquetCompression.class)
    void everyColumnChunkIsWrittenWithTheCodecAndKernelReadsItBack(ParquetCompression codec)
            throws IOException {
        Path table = dir.resolve("t");
        Map<Long, Object[]> expected = new TreeMap<>();
        try (UpsertHarness harness =
                UpsertHarness.open(
                        table.toString(), ORDERS, MergeOptions.DEFAULTS.withCompression(codec))) {
            for (long id = 0; id < 2_000; id++) {
                Object[] row = {id, "r" + id % 3, id * 7, "status-" + id % 4};
                harness.upsert(row);
                expected.put(id, row);
            }
            harness.commit();
            for (long id = 0; id < 2_000; id += 5) {
                Object[] row = {id, "r" + id % 3, -id, "corrected"};
                harness.upsert(row);
                expected.put(id, row);
            }
            harness.commit();
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected.values()));
        }
        assertThat(codecsOfDataFiles(table)).containsExactly(codec.name());
        assertThat(dictionaryEncodedColumns)
                .as("the low-cardinality note column is dictionary-encoded")
                .contains("note");
    }

    @Test
    void aTableWhoseFilesMixCodecsMergesInEitherWriteMode() throws IOException {
        for (WriteMode mode : List.of(WriteMode.COPY_ON_WRITE, WriteMode.DELETION_VECTORS)) {
            Path table = dir.resolve("mixed-" + mode);
            Map<Long, Object[]> expected = new TreeMap<>();
            boolean vectors = mode == WriteMode.DELETION_VECTORS;
            TableDefinition definition =
                    vectors
                            ? new TableDefinition(
                                    ORDERS.columns(),
                                    ORDERS.primaryKey(),
                                    ORDERS.partitionColumns(),
                                    Map.of("delta.enableDeletionVectors", "true"))
                            : ORDERS;
            // without compaction, which would fold full tiers of these files instead of marking
            MergeOptions options =
                    MergeOptions.DEFAULTS
                            .withWriteMode(mode)
                            .withCompaction(CompactionOptions.DISABLED);
            try (UpsertHarness old =
                    UpsertHarness.open(
                            table.toString(),
                            definition,
                            options.withCompression(ParquetCompression.UNCOMPRESSED))) {
                for (long id = 0; id < 1_000; id++) {
                    Object[] row = {id, "r0", id, "first"};
                    old.upsert(row);
                    expected.put(id, row);
                }
                old.commit();
            }
            try (UpsertHarness current =
                    UpsertHarness.open(
                            table.toString(),
                            definition,
                            options.withCompression(ParquetCompression.ZSTD),
                            "current")) {
                for (long id = 500; id < 1_500; id++) {
                    Object[] row = {id, "r0", -id, "second"};
                    current.upsert(row);
                    expected.put(id, row);
                }
                current.commit();
                assertThat(Rows.sorted(current.read()))
                        .as(mode.toString())
                        .isEqualTo(Rows.sorted(expected.values()));
            }
            assertThat(codecsOfDataFiles(table))
                    .as(mode.toString())
                    .containsExactlyInAnyOrder("UNCOMPRESSED", "ZSTD");
            assertThat(DeltaHistory.deletionVectorAdds(table) > 0).as("vectors").isEqualTo(vectors);
        }
    }

    /** Columns that had a dictionary page in some file read by {@link #codecsOfDataFiles}. */
    private final Set<String> dictionaryEncodedColumns = new HashSet<>();

    /** The codecs of all column chunks of the table's live-or-not data files. */
    private Set<String> codecsOfDataFiles(Path table) throws IOException {
        Set<String> codecs = new HashSet<>();
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(table)) {
            walk.filter(f -> f.getFileName().toString().endsWith(".parquet"))
                    .filter(f -> !f.toString().contains("_delta_log"))
                    .filter(f -> !f.getFileName().toString().startsWith("."))
                    .forEach(files::add);
        }
        assertThat(files).isNotEmpty();
        for (Path file : files) {
            try (ParquetFileReader reader =
                    ParquetFileReader.open(
                            HadoopInputFile.fromPath(
                                    new org.apache.hadoop.fs.Path(file.toUri()),
                                    new Configuration()))) {
                for (BlockMetaData block : reader.getFooter().getBlocks()) {
                    for (ColumnChunkMetaData column : block.getColumns()) {
                        codecs.add(column.getCodec().name());
                        if (column.hasDictionaryPage()) {
                            dictionaryEncodedColumns.add(column.getPath().toDotString());
                        }
                    }
                }
            }
        }
        return codecs;
    }
}
