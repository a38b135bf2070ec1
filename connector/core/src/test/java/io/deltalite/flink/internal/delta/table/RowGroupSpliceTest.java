package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.testing.ParquetFooters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which files {@link RowGroupSplice} joins, and what the joined file holds: the inputs' rows in
 * order, row group by row group, under one footer — and only for files that can share it.
 */
class RowGroupSpliceTest {
    private static final MessageType LAYOUT =
            MessageTypeParser.parseMessageType(
                    "message m { required int64 id; optional int32 day (DATE); }");

    private static final Map<String, String> KERNEL =
            Map.of("io.delta.kernel.default-parquet-writer", "Kernel-Defaults-4.4");

    @TempDir Path dir;

    private final RowGroupSplice splice =
            new RowGroupSplice(new HadoopFileIO(new Configuration()), LAYOUT);

    @Test
    void filesOfOneLayoutAreJoinedRowGroupByRowGroupInTheirOrder() throws IOException {
        DataFile first = write("a.parquet", LAYOUT, KERNEL, 100, 10);
        DataFile second = write("b.parquet", LAYOUT, KERNEL, 0, 20);
        String out = dir.resolve("joined.parquet").toString();
        try (RowGroupSplice.Inputs inputs = splice.open(List.of(first, second))) {
            assertThat(inputs).isNotNull();
            splice.write(inputs, out);
        }
        assertThat(ParquetFooters.rowGroupRows(out)).containsExactly(10L, 20L);
        List<Long> ids = new ArrayList<>();
        try (ParquetReader<Group> reader =
                ParquetReader.builder(new GroupReadSupport(), new org.apache.hadoop.fs.Path(out))
                        .build()) {
            for (Group row = reader.read(); row != null; row = reader.read()) {
                ids.add(row.getLong("id", 0));
            }
        }
        List<Long> expected = new ArrayList<>();
        for (long id = 100; id < 110; id++) {
            expected.add(id);
        }
        for (long id = 0; id < 20; id++) {
            expected.add(id);
        }
        assertThat(ids)
                .as("rows in input order: positions move by the rows before")
                .isEqualTo(expected);
        assertThat(footer(out)).as("the inputs' footer metadata").isEqualTo(footer(first.path()));
    }

    @Test
    void filesWhoseFootersDisagreeOnTheirMetadataAreNotJoined() throws IOException {
        // Spark records in the footer how the file's dates are to be read (its LEGACY rebase
        // mode): one footer for both files would misread the rows of one of them.
        DataFile legacy =
                write(
                        "a.parquet",
                        LAYOUT,
                        Map.of(
                                "org.apache.spark.version",
                                "3.5.1",
                                "org.apache.spark.legacyDateTime",
                                ""),
                        0,
                        10);
        DataFile kernel = write("b.parquet", LAYOUT, KERNEL, 10, 10);
        assertThat(splice.open(List.of(legacy, kernel))).isNull();
        assertThat(splice.open(List.of(kernel, legacy))).isNull();
    }

    @Test
    void aFileOfAnotherLayoutIsNotJoined() throws IOException {
        MessageType widened =
                MessageTypeParser.parseMessageType(
                        "message m { required int64 id; optional int64 day; }");
        DataFile current = write("a.parquet", LAYOUT, KERNEL, 0, 10);
        DataFile other = write("b.parquet", widened, KERNEL, 10, 10);
        assertThat(splice.open(List.of(current, other))).isNull();
        assertThat(
                        new RowGroupSplice(new HadoopFileIO(new Configuration()), null)
                                .open(List.of(current)))
                .as("a layout the store cannot tell")
                .isNull();
    }

    @Test
    void aFileWhoseRowCountIsNotItsStatisticsIsNotJoined() throws IOException {
        DataFile file = write("a.parquet", LAYOUT, KERNEL, 0, 10);
        DataFile miscounted =
                new DataFile(file.path(), file.sizeBytes(), 0, 11, List.of(), null, null);
        DataFile uncounted =
                new DataFile(file.path(), file.sizeBytes(), 0, -1, List.of(), null, null);
        assertThat(splice.open(List.of(miscounted))).isNull();
        assertThat(splice.open(List.of(uncounted))).isNull();
    }

    @Test
    void aMissingInputIsReportedAsThatFile() throws IOException {
        DataFile file = write("a.parquet", LAYOUT, KERNEL, 0, 10);
        Files.delete(Path.of(file.path()));
        assertThatThrownBy(() -> splice.open(List.of(file)))
                .isInstanceOfSatisfying(
                        RowGroupSplice.UnreadableInput.class,
                        failure -> assertThat(failure.file()).isEqualTo(file));
    }

    private DataFile write(
            String name, MessageType layout, Map<String, String> metadata, long first, int rows)
            throws IOException {
        String path = dir.resolve(name).toString();
        SimpleGroupFactory groups = new SimpleGroupFactory(layout);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(path))
                        .withType(layout)
                        .withExtraMetaData(metadata)
                        .build()) {
            for (long id = first; id < first + rows; id++) {
                Group row = groups.newGroup().append("id", id);
                if (layout.getType("day")
                        .asPrimitiveType()
                        .getPrimitiveTypeName()
                        .name()
                        .equals("INT32")) {
                    row.append("day", (int) id);
                } else {
                    row.append("day", id);
                }
                writer.write(row);
            }
        }
        return new DataFile(path, Files.size(Path.of(path)), 0, rows, List.of(), null, null);
    }

    private static Map<String, String> footer(String path) throws IOException {
        try (ParquetFileReader reader =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(path), new Configuration()))) {
            return reader.getFooter().getFileMetaData().getKeyValueMetaData();
        }
    }
}
