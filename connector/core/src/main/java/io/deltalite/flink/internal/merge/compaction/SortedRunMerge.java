package io.deltalite.flink.internal.merge.compaction;

import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * Streams the live rows of several files as one run sorted by key: each file is read a batch at a
 * time and the row with the smallest key goes next, so files that are sorted by key (as every file
 * the sink writes is) merge into sorted output. Rows without a key come last, in file order; for a
 * table without a key the files are simply concatenated. At most one batch per file is held.
 */
public final class SortedRunMerge implements BatchStream {
    private final DataFileStore store;
    private final int batchSize;
    private final PriorityQueue<Cursor> heads;
    private final List<Cursor> cursors = new ArrayList<>();

    public SortedRunMerge(
            DataFileStore store, List<DataFile> files, Comparator<RowKey> keyOrder, int batchSize) {
        this.store = store;
        this.batchSize = batchSize;
        Comparator<Cursor> byKey =
                (left, right) -> {
                    if (keyOrder != null) {
                        RowKey a = left.key;
                        RowKey b = right.key;
                        if (a != null && b != null) {
                            int order = keyOrder.compare(a, b);
                            if (order != 0) {
                                return order;
                            }
                        } else if (a != null || b != null) {
                            return a == null ? 1 : -1;
                        }
                    }
                    return Integer.compare(left.index, right.index);
                };
        this.heads = new PriorityQueue<>(Math.max(1, files.size()), byKey);
        try {
            for (DataFile file : files) {
                Cursor cursor = new Cursor(cursors.size(), store.readRows(file), keyOrder != null);
                cursors.add(cursor);
                if (cursor.advance()) {
                    heads.add(cursor);
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public boolean hasNext() {
        return !heads.isEmpty();
    }

    @Override
    public RowBatch next() {
        if (heads.isEmpty()) {
            throw new NoSuchElementException();
        }
        List<Object[]> rows = new ArrayList<>(batchSize);
        while (rows.size() < batchSize && !heads.isEmpty()) {
            Cursor head = heads.poll();
            rows.add(head.batch.rowAt(head.row));
            if (head.advance()) {
                heads.add(head);
            }
        }
        return store.newRows(rows);
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (Cursor cursor : cursors) {
            try {
                cursor.stream.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        cursors.clear();
        heads.clear();
        if (failure != null) {
            throw failure;
        }
    }

    /** The next live row of one file. */
    private static final class Cursor {
        final int index;
        final BatchStream stream;
        final boolean keyed;
        RowBatch batch;
        int row = -1;
        RowKey key;

        Cursor(int index, BatchStream stream, boolean keyed) {
            this.index = index;
            this.stream = stream;
            this.keyed = keyed;
        }

        /** Moves to the next live row; false at the end of the file. */
        boolean advance() {
            while (true) {
                if (batch != null) {
                    while (++row < batch.size()) {
                        if (batch.isLive(row)) {
                            key = keyed ? batch.keyAt(row) : null;
                            return true;
                        }
                    }
                }
                if (!stream.hasNext()) {
                    batch = null;
                    return false;
                }
                batch = stream.next();
                row = -1;
            }
        }
    }
}
