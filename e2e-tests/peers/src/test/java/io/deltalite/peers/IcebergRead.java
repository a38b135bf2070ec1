package io.deltalite.peers;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** Iceberg's generic Java reader, which applies equality and position deletes. */
final class IcebergRead implements TableReader {
    @Override
    public Scanned scan(Path table) throws Exception {
        Table loaded = IcebergTarget.load(table);
        Tally tally = new Tally();
        try (CloseableIterable<Record> records = IcebergGenerics.read(loaded).build()) {
            for (Record record : records) {
                tally.add(
                        (Long) record.get(0),
                        (String) record.get(1),
                        (Long) record.get(2),
                        (String) record.get(3));
            }
        }
        return tally.result();
    }

    @Override
    public Shape shape(Path table) throws Exception {
        Table loaded = IcebergTarget.load(table);
        Set<String> data = new HashSet<>();
        Set<String> deletes = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = loaded.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                data.add(task.file().location());
                for (DeleteFile delete : task.deletes()) {
                    deletes.add(delete.location());
                }
            }
        }
        return new Shape(data.size(), deletes.size());
    }
}
