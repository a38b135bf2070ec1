package io.deltalite.peers;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.DeletionFile;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;

/**
 * Paimon's {@code ReadBuilder}: merges the sorted runs of each bucket (or applies deletion
 * vectors).
 */
final class PaimonRead implements TableReader {
    @Override
    public Scanned scan(Path warehouse) throws Exception {
        FileStoreTable table = PaimonTarget.table(warehouse);
        ReadBuilder builder = table.newReadBuilder();
        Tally tally = new Tally();
        try (RecordReader<InternalRow> reader =
                builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(
                    row ->
                            tally.add(
                                    row.getLong(0),
                                    row.getString(1).toString(),
                                    row.getLong(2),
                                    row.getString(3).toString()));
        }
        return tally.result();
    }

    /** Data files (every sorted run's files) and deletion-vector files of the latest snapshot. */
    @Override
    public Shape shape(Path warehouse) {
        FileStoreTable table = PaimonTarget.table(warehouse);
        long files = 0;
        Set<String> vectors = new HashSet<>();
        for (Split split : table.newReadBuilder().newScan().plan().splits()) {
            DataSplit data = (DataSplit) split;
            files += data.dataFiles().size();
            for (DeletionFile vector : data.deletionFiles().orElse(List.of())) {
                if (vector != null) {
                    vectors.add(vector.path());
                }
            }
        }
        return new Shape(files, vectors.size());
    }
}
