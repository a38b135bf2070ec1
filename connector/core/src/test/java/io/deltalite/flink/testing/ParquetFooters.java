package io.deltalite.flink.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/** What a Parquet file's footer says, read by parquet-java. */
public final class ParquetFooters {
    private ParquetFooters() {}

    /** The row count of each row group of the file at {@code path}, in file order. */
    public static List<Long> rowGroupRows(String path) {
        try (ParquetFileReader reader =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(path), new Configuration()))) {
            List<Long> rows = new ArrayList<>();
            for (BlockMetaData block : reader.getRowGroups()) {
                rows.add(block.getRowCount());
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
