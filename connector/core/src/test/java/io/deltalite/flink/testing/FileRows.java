package io.deltalite.flink.testing;

import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.DataFile;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/** Every row of a list of data files, one after the other, one file open at a time. */
public final class FileRows implements BatchStream {
    private final DataFileStore store;
    private final Iterator<DataFile> files;
    private BatchStream current;

    public FileRows(DataFileStore store, List<DataFile> files) {
        this.store = store;
        this.files = files.iterator();
    }

    @Override
    public boolean hasNext() {
        while (current == null || !current.hasNext()) {
            if (current != null) {
                current.close();
                current = null;
            }
            if (!files.hasNext()) {
                return false;
            }
            current = store.readRows(files.next());
        }
        return true;
    }

    @Override
    public RowBatch next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return current.next();
    }

    @Override
    public void close() {
        if (current != null) {
            current.close();
        }
    }
}
