package io.deltalite.flink.internal.merge.compaction;

import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.merge.value.RowOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * Streams the live rows of several files as one run in the table's row order ({@link RowOrder}: by
 * clustering columns, then by key): each file is read a batch at a time and the row that comes
 * first goes next, so files that are in that order (as every file the sink writes is) merge into
 * ordered output. Rows without a key come after the others of their clustering values, in file
 * order; for a table with neither the files are simply concatenated.
 *
 * <p>The output batches point into the files' batches ({@link DataFileStore#gather}) rather than
 * copying rows, so a file's batch stays held until the output batch that took its last row is
 * written. An output batch ends when it holds {@code batchSize} rows or points into {@link
 * #MAX_SOURCES_PER_FILE} batches per file, whichever comes first: where deletion vectors leave few
 * live rows per batch, a full output batch would otherwise hold many nearly empty input batches. So
 * at most {@code MAX_SOURCES_PER_FILE + 1} decoded batches per file are held at once (the output's
 * sources and each file's current batch), counted over all the files of the merge.
 */
public final class SortedRunMerge implements BatchStream {
    private final DataFileStore store;
    private final int batchSize;
    private final PriorityQueue<Cursor> heads;
    private final List<Cursor> cursors = new ArrayList<>();
    private final int[] clustering;
    private long generation;

    /** Batches of one file an output batch may point into, on average over the files. */
    static final int MAX_SOURCES_PER_FILE = 2;

    /**
     * @param order the order of the table's rows ({@link RowOrder}): by clustering columns, then by
     *     key; single {@code BIGINT} keys are compared as {@code long}s, which is the same order
     */
    public SortedRunMerge(
            DataFileStore store, List<DataFile> files, RowOrder order, int batchSize) {
        this.store = store;
        this.batchSize = batchSize;
        this.clustering = order.clusteringIndexes();
        Comparator<RowKey> keyOrder = order.keys();
        Comparator<Cursor> byKey =
                (left, right) -> {
                    if (clustering.length > 0) {
                        int clustered = order.compareClustering(left.clustering, right.clustering);
                        if (clustered != 0) {
                            return clustered;
                        }
                    }
                    if (keyOrder != null) {
                        int byKeys = compareKeys(left, right, keyOrder);
                        if (byKeys != 0) {
                            return byKeys;
                        }
                    }
                    return Integer.compare(left.index, right.index);
                };
        this.heads = new PriorityQueue<>(Math.max(1, files.size()), byKey);
        try {
            for (DataFile file : files) {
                Cursor cursor =
                        new Cursor(
                                cursors.size(), store.readRows(file), keyOrder != null, clustering);
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
        // The output points into the files' batches: a batch joins the sources when its first row
        // is taken, and stays reachable from the output after its cursor moved on.
        List<RowBatch> sources = new ArrayList<>();
        int maxSources = MAX_SOURCES_PER_FILE * Math.max(1, cursors.size());
        int[] from = new int[batchSize];
        int[] rows = new int[batchSize];
        int count = 0;
        generation++;
        while (count < batchSize && !heads.isEmpty()) {
            Cursor head = heads.peek();
            boolean newSource = head.generation != generation || head.source < 0;
            if (newSource && sources.size() == maxSources) {
                break;
            }
            heads.poll();
            if (newSource) {
                head.generation = generation;
                head.source = sources.size();
                sources.add(head.batch);
            }
            from[count] = head.source;
            rows[count++] = head.row;
            if (head.advance()) {
                heads.add(head);
            }
        }
        return store.gather(sources, from, rows, count);
    }

    /** Key order, rows without a key last; single {@code BIGINT} keys compare without boxing. */
    private static int compareKeys(Cursor left, Cursor right, Comparator<RowKey> keyOrder) {
        if (left.longKey && right.longKey) {
            if (left.nullKey || right.nullKey) {
                return Boolean.compare(left.nullKey, right.nullKey);
            }
            return Long.compare(left.keyValue, right.keyValue);
        }
        RowKey a = left.key();
        RowKey b = right.key();
        if (a != null && b != null) {
            return keyOrder.compare(a, b);
        }
        return a == null && b == null ? 0 : a == null ? 1 : -1;
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

        /**
         * Whether the current batch reads its key as a {@code long} ({@link RowBatch#hasLongKey}).
         */
        boolean longKey;

        /** With {@link #longKey}: whether the current row's key is null, or else its value. */
        boolean nullKey;

        long keyValue;

        /** The current row's key when not {@link #longKey}, decoded once. */
        private RowKey key;

        /** The output batch the current batch is a source of, and its index there. */
        long generation = -1;

        int source = -1;

        /** The table-column indexes of the clustering columns that order rows; may be empty. */
        private final int[] clusteringColumns;

        /** The current row's values of {@link #clusteringColumns}. */
        Object[] clustering;

        Cursor(int index, BatchStream stream, boolean keyed, int[] clusteringColumns) {
            this.index = index;
            this.stream = stream;
            this.keyed = keyed;
            this.clusteringColumns = clusteringColumns;
        }

        RowKey key() {
            return !longKey ? key : nullKey ? null : batch.keyAt(row);
        }

        /** Moves to the next live row; false at the end of the file. */
        boolean advance() {
            while (true) {
                if (batch != null) {
                    while (++row < batch.size()) {
                        if (batch.isLive(row)) {
                            if (clusteringColumns.length > 0) {
                                clustering = new Object[clusteringColumns.length];
                                for (int i = 0; i < clustering.length; i++) {
                                    clustering[i] = batch.valueAt(row, clusteringColumns[i]);
                                }
                            }
                            if (!keyed) {
                                key = null;
                            } else if (longKey) {
                                nullKey = batch.isKeyNullAt(row);
                                keyValue = nullKey ? 0 : batch.longKeyAt(row);
                            } else {
                                key = batch.keyAt(row);
                            }
                            return true;
                        }
                    }
                }
                if (!stream.hasNext()) {
                    batch = null;
                    return false;
                }
                batch = stream.next();
                longKey = keyed && batch.hasLongKey();
                key = null;
                source = -1;
                row = -1;
            }
        }
    }
}
