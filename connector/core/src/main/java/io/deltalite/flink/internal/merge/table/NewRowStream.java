package io.deltalite.flink.internal.merge.table;

import java.util.List;
import java.util.NoSuchElementException;

/**
 * Streams new rows to a writer in batches of at most {@code batchSize} rows, each with the row id
 * it keeps in a table that tracks rows.
 */
final class NewRowStream implements BatchStream {
    private final DataFileStore store;
    private final List<Object[]> rows;

    /** The row id {@code rows.get(i)} keeps, negative for a fresh one; null when all are fresh. */
    private final long[] rowIds;

    private final int batchSize;
    private int position;

    NewRowStream(DataFileStore store, List<Object[]> rows, long[] rowIds, int batchSize) {
        this.store = store;
        this.rows = rows;
        this.rowIds = rowIds;
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
        RowBatch batch =
                rowIds == null
                        ? store.newRows(rows.subList(position, end))
                        : store.newRows(rows.subList(position, end), rowIds, position);
        position = end;
        return batch;
    }

    @Override
    public void close() {}
}
