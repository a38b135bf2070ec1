package io.deltalite.flink.internal.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.KeyIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The index's column reader hands over, for every row with a non-null key, the identity a model of
 * the written values says, at the row's position in the file — in layouts the sink does not write
 * but other writers do: v2 data pages (which the page decoder leaves to parquet-java's reader), and
 * string keys stored as bytes that are not UTF-8 (which the row-wise reader decodes to U+FFFD).
 */
class KeyIdentityReaderTest {
    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType(
                    "message m { optional int64 k64; optional int32 k32 (INTEGER(16,true));"
                            + " optional binary s (STRING); }");

    @TempDir Path dir;

    /** One row as handed over. */
    record Entry(long high, long low, long position) {}

    @ParameterizedTest(name = "{0}, {1} distinct values, dictionary {2}")
    @CsvSource({
        "PARQUET_1_0, 50, true",
        "PARQUET_1_0, 100000, false",
        "PARQUET_2_0, 50, true",
        "PARQUET_2_0, 100000, true",
        "PARQUET_2_0, 100000, false"
    })
    void everyKeyedRowIsHandedOverWithItsIdentityAndPosition(
            WriterVersion version, int distinct, boolean dictionary) throws IOException {
        Random random = new Random(distinct * 31L + version.ordinal());
        int rows = 50_000;
        Long[] longs = new Long[rows];
        Short[] shorts = new Short[rows];
        byte[][] strings = new byte[rows][];
        org.apache.hadoop.fs.Path file =
                new org.apache.hadoop.fs.Path(dir.resolve("keys.parquet").toUri());
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(file)
                        .withType(SCHEMA)
                        .withConf(new Configuration())
                        .withWriterVersion(version)
                        .withDictionaryEncoding(dictionary)
                        .withPageSize(4096)
                        .withRowGroupSize(16L * 1024)
                        .build()) {
            for (int row = 0; row < rows; row++) {
                Group group = groups.newGroup();
                int value = random.nextInt(distinct);
                if (random.nextInt(10) >= 2) {
                    longs[row] = value * 0x9E3779B97F4A7C15L;
                    group.append("k64", longs[row]);
                }
                if (random.nextInt(10) >= 2) {
                    shorts[row] = (short) (value * 7);
                    // Stored widened, as a writer of SMALLINT does; read back narrowed.
                    group.append("k32", (int) shorts[row]);
                }
                if (random.nextInt(10) >= 2) {
                    strings[row] =
                            value % 5 == 0
                                    // Not UTF-8: a stray continuation byte and a cut sequence.
                                    ? new byte[] {(byte) 0x80, (byte) value, (byte) 0xE2}
                                    : ("key-" + value + (value % 3 == 0 ? "-😀" : ""))
                                            .getBytes(StandardCharsets.UTF_8);
                    group.append("s", Binary.fromConstantByteArray(strings[row]));
                }
                writer.write(group);
            }
        }
        assertThat(rowGroups(file)).isGreaterThan(1);

        List<Entry> expectedLongs = new ArrayList<>();
        List<Entry> expectedShorts = new ArrayList<>();
        List<Entry> expectedStrings = new ArrayList<>();
        KeyIdentity.Hasher hasher = new KeyIdentity.Hasher();
        for (int row = 0; row < rows; row++) {
            if (longs[row] != null) {
                expectedLongs.add(new Entry(longs[row], 0, row));
            }
            if (shorts[row] != null) {
                expectedShorts.add(new Entry(shorts[row], 0, row));
            }
            if (strings[row] != null) {
                hasher.start();
                hasher.string(new String(strings[row], StandardCharsets.UTF_8));
                hasher.finish();
                expectedStrings.add(new Entry(hasher.high(), hasher.low(), row));
            }
        }
        for (boolean pages : new boolean[] {true, false}) {
            assertThat(read(file, "k64", Kind.BIGINT, pages, rows))
                    .as("BIGINT, pages decoded by deltalite: %s", pages)
                    .isEqualTo(expectedLongs);
            assertThat(read(file, "k32", Kind.SMALLINT, pages, rows))
                    .as("SMALLINT, pages decoded by deltalite: %s", pages)
                    .isEqualTo(expectedShorts);
            assertThat(read(file, "s", Kind.STRING, pages, rows))
                    .as("STRING, pages decoded by deltalite: %s", pages)
                    .isEqualTo(expectedStrings);
        }
    }

    private static List<Entry> read(
            org.apache.hadoop.fs.Path file, String column, Kind kind, boolean pages, long rows)
            throws IOException {
        List<Entry> entries = new ArrayList<>();
        OptionalLong read =
                new KeyIdentityReader(List.of(column), List.of(ValueType.of(kind)), pages)
                        .read(
                                HadoopInputFile.fromPath(file, new Configuration()),
                                (high, low, positions, count) -> {
                                    for (int i = 0; i < count; i++) {
                                        entries.add(new Entry(high[i], low[i], positions[i]));
                                    }
                                });
        assertThat(read).hasValue(rows);
        return entries;
    }

    private static int rowGroups(org.apache.hadoop.fs.Path file) throws IOException {
        try (ParquetFileReader reader =
                ParquetFileReader.open(HadoopInputFile.fromPath(file, new Configuration()))) {
            return reader.getRowGroups().size();
        }
    }
}
