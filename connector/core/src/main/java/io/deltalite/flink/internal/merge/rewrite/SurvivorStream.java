package io.deltalite.flink.internal.merge.rewrite;

import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.KeyMatcher;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * Streams the rows of a list of files, one batch at a time, leaving out every row whose key has
 * changed. Only one file is open at a time. It records which changed keys it met and how many rows
 * it kept.
 */
final class SurvivorStream implements BatchStream {
    private final DataFileStore store;
    private final Iterator<DataFile> files;
    private final KeyMatcher changedKeys;
    private final Set<RowKey> foundKeys;
    private final LongAdder keptRows;
    private BatchStream current;
    private RowBatch next;

    /**
     * @param foundKeys receives each changed key met in a live row (thread-safe set), or null
     */
    SurvivorStream(
            DataFileStore store,
            List<DataFile> files,
            KeyMatcher changedKeys,
            Set<RowKey> foundKeys,
            LongAdder keptRows) {
        this.store = store;
        this.files = files.iterator();
        this.changedKeys = changedKeys;
        this.foundKeys = foundKeys;
        this.keptRows = keptRows;
    }

    /**
     * The rows of {@code source}, closed with the stream, without those of changed keys: for a
     * source that merges several files (a {@link
     * io.deltalite.flink.internal.merge.compaction.SortedRunMerge}).
     */
    static SurvivorStream of(
            DataFileStore store,
            BatchStream source,
            KeyMatcher changedKeys,
            Set<RowKey> foundKeys,
            LongAdder keptRows) {
        SurvivorStream stream =
                new SurvivorStream(store, List.of(), changedKeys, foundKeys, keptRows);
        stream.current = source;
        return stream;
    }

    @Override
    public boolean hasNext() {
        while (next == null) {
            if (current != null && current.hasNext()) {
                next = filter(current.next());
            } else {
                closeCurrent();
                if (!files.hasNext()) {
                    return false;
                }
                current = store.readRows(files.next());
            }
        }
        return true;
    }

    @Override
    public RowBatch next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        RowBatch batch = next;
        next = null;
        return batch;
    }

    private RowBatch filter(RowBatch batch) {
        boolean[] keep = new boolean[batch.size()];
        long kept = 0;
        for (int row = 0; row < keep.length; row++) {
            if (!batch.isLive(row)) {
                continue;
            }
            RowKey key = changedKeys.match(batch, row);
            if (key != null) {
                if (foundKeys != null) {
                    foundKeys.add(key);
                }
            } else {
                keep[row] = true;
                kept++;
            }
        }
        keptRows.add(kept);
        return batch.retain(keep);
    }

    private void closeCurrent() {
        if (current != null) {
            BatchStream closing = current;
            current = null;
            closing.close();
        }
    }

    @Override
    public void close() {
        closeCurrent();
    }
}
