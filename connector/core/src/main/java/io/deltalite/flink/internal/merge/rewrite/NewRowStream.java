package io.deltalite.flink.internal.merge.rewrite;

import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.RowBatch;
import java.util.List;
import java.util.NoSuchElementException;

/** Streams new rows to a writer in batches of at most {@code batchSize} rows. */
final class NewRowStream implements BatchStream {
    private final DataFileStore store;
    private final List<Object[]> rows;
    private final int batchSize;
    private int position;

    NewRowStream(DataFileStore store, List<Object[]> rows, int batchSize) {
        this.store = store;
        this.rows = rows;
        this.batchSize = batchSize;
    }

    @Override
    public boolean hasNext() {
        return position < rows.size();
    }

    @Override
    public RowBatch next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        int end = Math.min(rows.size(), position + batchSize);
        RowBatch batch = store.newRows(rows.subList(position, end));
        position = end;
        return batch;
    }

    @Override
    public void close() {}
}
