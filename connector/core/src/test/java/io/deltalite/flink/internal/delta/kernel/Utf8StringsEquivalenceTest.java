package io.deltalite.flink.internal.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.FieldMetadata;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Strings read through {@link Utf8Strings} are those Kernel's own string read gives, also from a
 * file another engine wrote with malformed UTF-8 in it (dictionary-encoded or plain), with columns
 * found by field id under other names and a column the file lacks.
 */
class Utf8StringsEquivalenceTest {
    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType(
                    "message m { optional binary s (STRING) = 7; optional binary raw = 8;"
                            + " optional int64 n = 9; }");

    @TempDir Path dir;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void everyStringOfAForeignFileReadsAsKernelReadsIt(boolean dictionary) throws Exception {
        Random random = new Random(dictionary ? 1 : 2);
        org.apache.hadoop.fs.Path file =
                new org.apache.hadoop.fs.Path(dir.resolve("f.parquet").toUri());
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        byte[] odd = {
            (byte) 0x80,
            (byte) 0xC0,
            (byte) 0xED,
            (byte) 0xA0,
            (byte) 0xF4,
            (byte) 0x90,
            (byte) 0xF0,
            (byte) 0xE2,
            (byte) 0x82,
            (byte) 0xFF,
            0x41,
            0
        };
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(file)
                        .withType(SCHEMA)
                        .withConf(new Configuration())
                        .withDictionaryEncoding(dictionary)
                        .withPageSize(1024)
                        .build()) {
            for (int row = 0; row < 20_000; row++) {
                Group group = groups.newGroup();
                for (String column : new String[] {"s", "raw"}) {
                    if (random.nextInt(6) == 0) {
                        continue;
                    }
                    byte[] value = new byte[random.nextInt(dictionary ? 3 : 12)];
                    for (int i = 0; i < value.length; i++) {
                        value[i] =
                                random.nextBoolean()
                                        ? odd[random.nextInt(odd.length)]
                                        : (byte) random.nextInt(256);
                    }
                    group.append(column, Binary.fromConstantByteArray(value));
                }
                group.append("n", (long) row);
                writer.write(group);
            }
        }
        // Looked up by field id under other names (column mapping id mode), plus a column the
        // file lacks (added by schema evolution).
        StructType columns =
                new StructType()
                        .add(new StructField("col-a", StringType.STRING, true, id(7)))
                        .add(new StructField("col-b", StringType.STRING, true, id(8)))
                        .add(new StructField("col-c", LongType.LONG, true, id(9)))
                        .add(new StructField("col-missing", StringType.STRING, true, id(10)));
        Engine engine = DefaultEngine.create(new Configuration());
        FileStatus status = FileStatus.of(file.toString(), Files.size(dir.resolve("f.parquet")), 0);
        List<String> kernel = strings(read(engine, status, columns, false), columns);
        List<String> ours = strings(read(engine, status, columns, true), columns);
        assertThat(ours).hasSize(kernel.size()).isEqualTo(kernel);
        assertThat(kernel).anyMatch(s -> s != null && s.contains("\uFFFD"));
    }

    private static FieldMetadata id(long id) {
        return FieldMetadata.builder().putLong("parquet.field.id", id).build();
    }

    private static List<ColumnarBatch> read(
            Engine engine, FileStatus file, StructType columns, boolean utf8) throws Exception {
        List<ColumnarBatch> batches = new ArrayList<>();
        StructType schema = utf8 ? Utf8Strings.readSchema(columns) : columns;
        try (CloseableIterator<FileReadResult> results =
                engine.getParquetHandler()
                        .readParquetFiles(
                                KernelIterators.of(List.of(file).iterator()),
                                schema,
                                Optional.empty())) {
            while (results.hasNext()) {
                ColumnarBatch batch = results.next().getData();
                batches.add(utf8 ? Utf8Strings.decoded(batch, columns) : batch);
            }
        }
        return batches;
    }

    private static List<String> strings(List<ColumnarBatch> batches, StructType columns) {
        List<String> out = new ArrayList<>();
        for (ColumnarBatch batch : batches) {
            assertThat(batch.getSchema()).isEqualTo(columns);
            for (int c = 0; c < columns.length(); c++) {
                ColumnVector vector = batch.getColumnVector(c);
                assertThat(vector.getDataType()).isEqualTo(columns.at(c).getDataType());
                for (int row = 0; row < batch.getSize(); row++) {
                    out.add(
                            vector.isNullAt(row)
                                    ? null
                                    : c == 2
                                            ? Long.toString(vector.getLong(row))
                                            : vector.getString(row));
                }
            }
        }
        return out;
    }
}
