package io.deltalite.flink.internal.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.ChangedKeys;
import io.deltalite.flink.internal.merge.table.KeyHits;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key columns stored in a way the columnar reader does not reproduce exactly — as another writer
 * may store them — get no answer from it, so the store reads the file row by row; the layouts it
 * knows get one.
 */
class ParquetKeyScannerFallbackTest {
    private static final MessageType FOREIGN =
            MessageTypeParser.parseMessageType(
                    "message spark_schema {"
                            + " required int96 ts;"
                            + " required int64 ms (TIMESTAMP(MILLIS,true));"
                            + " required fixed_len_byte_array(16) dec (DECIMAL(30,3));"
                            + " required int32 narrow;"
                            + " required int32 unsigned (INTEGER(32,false));"
                            + " required binary s (STRING);"
                            + " }");

    @TempDir Path dir;

    @Test
    void keyColumnsStoredInAnotherLayoutAreLeftToTheRowWiseReader() throws IOException {
        org.apache.hadoop.fs.Path file = write();
        assertThat(locate(file, "ts", ValueType.of(Kind.TIMESTAMP), 0L))
                .as("INT96 timestamps")
                .isEmpty();
        assertThat(locate(file, "ms", ValueType.of(Kind.TIMESTAMP), 7_000L))
                .as("millisecond timestamps")
                .isEmpty();
        assertThat(locate(file, "dec", new ValueType.Decimal(30, 2), new BigDecimal("7.00")))
                .as("a decimal of another scale")
                .isEmpty();
        assertThat(locate(file, "narrow", ValueType.of(Kind.BIGINT), 7L))
                .as("an INT32 column of a BIGINT key")
                .isEmpty();
        assertThat(locate(file, "unsigned", ValueType.of(Kind.INT), 7))
                .as("an unsigned INT32")
                .isEmpty();
        assertThat(locate(file, "missing", ValueType.of(Kind.INT), 7))
                .as("a key column the file lacks")
                .isEmpty();

        Optional<KeyHits> strings = locate(file, "s", ValueType.of(Kind.STRING), "ключ 7");
        assertThat(strings).isPresent();
        assertThat(strings.get().positions()).containsExactly(7L);
        assertThat(strings.get().physicalRows()).isEqualTo(20);
        Optional<KeyHits> decimals =
                locate(
                        file,
                        "dec",
                        new ValueType.Decimal(30, 3),
                        new BigDecimal(BigInteger.valueOf(-7), 3));
        assertThat(decimals).isPresent();
        assertThat(decimals.get().positions()).containsExactly(7L);
        assertThat(locate(file, "narrow", ValueType.of(Kind.INT), 7).orElseThrow().positions())
                .containsExactly(7L);
    }

    private static Optional<KeyHits> locate(
            org.apache.hadoop.fs.Path file, String column, ValueType type, Object key)
            throws IOException {
        return new ParquetKeyScanner(List.of(column), List.of(type))
                .locate(
                        HadoopInputFile.fromPath(file, new Configuration()),
                        ChangedKeys.of(Set.of(RowKey.ofValues(key))),
                        DeletionVector.EMPTY,
                        false);
    }

    private org.apache.hadoop.fs.Path write() throws IOException {
        org.apache.hadoop.fs.Path file =
                new org.apache.hadoop.fs.Path(dir.resolve("foreign.parquet").toUri());
        SimpleGroupFactory groups = new SimpleGroupFactory(FOREIGN);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(file)
                        .withType(FOREIGN)
                        .withConf(new Configuration())
                        .build()) {
            for (int i = 0; i < 20; i++) {
                byte[] unscaled = new byte[16];
                byte[] minimal = BigInteger.valueOf(-i).toByteArray();
                java.util.Arrays.fill(unscaled, 0, 16 - minimal.length, (byte) (i > 0 ? -1 : 0));
                System.arraycopy(minimal, 0, unscaled, 16 - minimal.length, minimal.length);
                writer.write(
                        groups.newGroup()
                                .append("ts", Binary.fromConstantByteArray(new byte[12]))
                                .append("ms", i * 1_000L)
                                .append("dec", Binary.fromConstantByteArray(unscaled))
                                .append("narrow", i)
                                .append("unsigned", i)
                                .append("s", "ключ " + i));
            }
        }
        return file;
    }
}
