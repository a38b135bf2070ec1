package io.deltalite.flink.internal.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.ChangedKeys;
import io.deltalite.flink.internal.merge.table.KeyHits;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The page decoder of integer keys finds exactly the rows a model of the written values says, with
 * nulls interleaved anywhere in dictionary and plain pages, small pages, several row groups, and a
 * deletion vector — and so does parquet-java's column reader.
 */
class ParquetKeyScannerPagesTest {
    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType(
                    "message m { optional int64 k64; optional int32 k32 (INTEGER(16,true)); }");

    @TempDir Path dir;

    @ParameterizedTest(name = "{0} distinct values, dictionary {1}")
    @CsvSource({"50, true", "200000, true", "50, false", "200000, false"})
    void everyRowOfAChangedKeyIsFoundAndNoOther(int distinct, boolean dictionary)
            throws IOException {
        Random random = new Random(distinct * 31L + (dictionary ? 1 : 0));
        int rows = 60_000;
        Long[] longs = new Long[rows];
        Integer[] shorts = new Integer[rows];
        org.apache.hadoop.fs.Path file =
                new org.apache.hadoop.fs.Path(dir.resolve("keys.parquet").toUri());
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(file)
                        .withType(SCHEMA)
                        .withConf(new Configuration())
                        .withDictionaryEncoding(dictionary)
                        .withPageSize(4096)
                        .withRowGroupSize(256L * 1024)
                        .build()) {
            for (int row = 0; row < rows; row++) {
                Group group = groups.newGroup();
                if (random.nextInt(10) >= 3) {
                    longs[row] = random.nextInt(distinct) * 0x9E3779B97F4A7C15L;
                    group.append("k64", longs[row]);
                }
                if (random.nextInt(10) >= 3) {
                    shorts[row] = random.nextInt(Math.min(distinct, 60_000)) - 30_000;
                    group.append("k32", shorts[row]);
                }
                writer.write(group);
            }
        }
        long[] deleted = random.longs(2_000, 0, rows).toArray();
        DeletionVector vector = DeletionVector.of(deleted);

        Set<RowKey> longKeys = new HashSet<>();
        Set<RowKey> shortKeys = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            // Half of the keys are values the file holds, half are drawn from twice its range.
            int row = random.nextInt(rows);
            if (longs[row] != null) {
                longKeys.add(RowKey.ofValues(longs[row]));
            }
            if (shorts[row] != null) {
                shortKeys.add(RowKey.ofValues((short) (int) shorts[row]));
            }
            longKeys.add(RowKey.ofValues(random.nextInt(distinct * 2) * 0x9E3779B97F4A7C15L));
            // SMALLINT keys as the engine holds them; the column's INT32 values are narrowed.
            shortKeys.add(
                    RowKey.ofValues((short) (random.nextInt(Math.min(distinct, 60_000)) - 30_000)));
        }
        List<Long> expectedLongs = new ArrayList<>();
        List<Long> expectedShorts = new ArrayList<>();
        for (int row = 0; row < rows; row++) {
            if (vector.contains(row)) {
                continue;
            }
            if (longs[row] != null && longKeys.contains(RowKey.ofValues(longs[row]))) {
                expectedLongs.add((long) row);
            }
            if (shorts[row] != null
                    && shortKeys.contains(RowKey.ofValues((short) (int) shorts[row]))) {
                expectedShorts.add((long) row);
            }
        }
        assertThat(expectedLongs).isNotEmpty();
        assertThat(expectedShorts).isNotEmpty();
        for (boolean pages : new boolean[] {true, false}) {
            KeyHits found = locate(file, "k64", ValueType.of(Kind.BIGINT), longKeys, vector, pages);
            assertThat(found.positions())
                    .as("BIGINT rows, pages decoded by deltalite: %s", pages)
                    .containsExactly(expectedLongs.stream().mapToLong(Long::longValue).toArray());
            assertThat(found.physicalRows()).isEqualTo(rows);
            KeyHits narrow =
                    locate(file, "k32", ValueType.of(Kind.SMALLINT), shortKeys, vector, pages);
            assertThat(narrow.positions())
                    .as("SMALLINT rows, pages decoded by deltalite: %s", pages)
                    .containsExactly(expectedShorts.stream().mapToLong(Long::longValue).toArray());
        }
    }

    private static KeyHits locate(
            org.apache.hadoop.fs.Path file,
            String column,
            ValueType type,
            Set<RowKey> keys,
            DeletionVector deleted,
            boolean pages)
            throws IOException {
        return new ParquetKeyScanner(List.of(column), List.of(type), pages)
                .locate(
                        HadoopInputFile.fromPath(file, new Configuration()),
                        ChangedKeys.of(keys),
                        deleted,
                        false)
                .orElseThrow();
    }
}
