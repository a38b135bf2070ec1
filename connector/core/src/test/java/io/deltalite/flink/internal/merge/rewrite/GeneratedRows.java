package io.deltalite.flink.internal.merge.rewrite;

import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.RowBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.LongFunction;

/**
 * Rows 0..n-1 made by a function of their index, created only when Kernel's writer asks for the
 * next batch: a table larger than the heap is written without holding it.
 */
final class GeneratedRows implements BatchStream {
    private final DataFileStore store;
    private final long rows;
    private final int batchSize;
    private final LongFunction<Object[]> row;
    private long next;

    GeneratedRows(DataFileStore store, long rows, int batchSize, LongFunction<Object[]> row) {
        this.store = store;
        this.rows = rows;
        this.batchSize = batchSize;
        this.row = row;
    }

    @Override
    public boolean hasNext() {
        return next < rows;
    }

    @Override
    public RowBatch next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        List<Object[]> batch = new ArrayList<>(batchSize);
        for (int i = 0; i < batchSize && next < rows; i++, next++) {
            batch.add(row.apply(next));
        }
        return store.newRows(batch);
    }

    @Override
    public void close() {}
}
