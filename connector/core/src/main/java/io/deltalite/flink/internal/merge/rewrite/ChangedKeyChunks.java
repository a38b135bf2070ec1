package io.deltalite.flink.internal.merge.rewrite;

import io.deltalite.flink.internal.merge.changes.RowSizeEstimator;
import io.deltalite.flink.internal.merge.result.WidenedValues;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.KeyStream;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.merge.value.StagedKeys;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The keys a checkpoint changed in a partition — those of its upsert files, then its deleted keys —
 * read back in chunks that each fit a byte budget, for a re-merge that must not hold every key of a
 * large checkpoint at once. A key both deleted and upserted counts as upserted: it was deleted by
 * an early merge and written again by a later one.
 */
final class ChangedKeyChunks implements AutoCloseable, Iterator<ChangedKeyChunks.Chunk> {

    /** One chunk of changed keys; {@link #isUpserted} tells an upserted key from a deleted one. */
    static final class Chunk {
        private final Map<RowKey, Boolean> upserted = new HashMap<>();

        Set<RowKey> keys() {
            return upserted.keySet();
        }

        boolean isUpserted(RowKey key) {
            return Boolean.TRUE.equals(upserted.get(key));
        }
    }

    private final DataFileStore store;
    private final List<ValueType> keyTypes;
    private final Iterator<DataFile> upsertFiles;
    private final Iterator<RowKey> inlineDeleted;
    private final Iterator<StagedKeys> stagedDeleted;
    private final long budgetBytes;
    private BatchStream batches;
    private RowBatch batch;
    private int row;
    private KeyStream staged;
    private Chunk next;

    /**
     * @param keyTypes the types of the table's match-key columns now, which deleted keys of the
     *     job's state or staged files are brought to (see {@link WidenedValues})
     */
    ChangedKeyChunks(
            DataFileStore store,
            List<ValueType> keyTypes,
            List<DataFile> upsertFiles,
            DeletedKeys deletedKeys,
            long budgetBytes) {
        this.store = store;
        this.keyTypes = List.copyOf(keyTypes);
        this.upsertFiles = upsertFiles.iterator();
        this.inlineDeleted = deletedKeys.inline().iterator();
        this.stagedDeleted = deletedKeys.staged().iterator();
        this.budgetBytes = Math.max(1, budgetBytes);
    }

    @Override
    public boolean hasNext() {
        if (next == null) {
            next = fill();
        }
        return next != null;
    }

    @Override
    public Chunk next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Chunk chunk = next;
        next = null;
        return chunk;
    }

    private Chunk fill() {
        Chunk chunk = new Chunk();
        long bytes = 0;
        while (bytes < budgetBytes) {
            RowKey key = nextUpserted();
            boolean upserted = key != null;
            if (key == null) {
                key = nextDeleted();
            }
            if (key == null) {
                break;
            }
            Boolean before = chunk.upserted.get(key);
            if (before == null) {
                bytes +=
                        RowSizeEstimator.keyOverhead(key.size())
                                + RowSizeEstimator.estimate(key.values().toArray());
                chunk.upserted.put(key, upserted);
            } else if (upserted) {
                chunk.upserted.put(key, true);
            }
        }
        return chunk.upserted.isEmpty() ? null : chunk;
    }

    private RowKey nextUpserted() {
        while (true) {
            if (batch != null) {
                while (row < batch.size()) {
                    int current = row++;
                    if (batch.isLive(current)) {
                        RowKey key = batch.keyAt(current);
                        if (key != null) {
                            return key;
                        }
                    }
                }
                batch = null;
            }
            if (batches != null && batches.hasNext()) {
                batch = batches.next();
                row = 0;
                continue;
            }
            closeBatches();
            if (!upsertFiles.hasNext()) {
                return null;
            }
            batches = store.readKeys(upsertFiles.next());
        }
    }

    /**
     * The next deleted key, in the key columns' current types: the upserted keys are read from
     * their files as the table's types, but the deleted ones were encoded as they were then.
     */
    private RowKey nextDeleted() {
        if (inlineDeleted.hasNext()) {
            return WidenedValues.conform(inlineDeleted.next(), keyTypes);
        }
        while (true) {
            if (staged != null && staged.hasNext()) {
                return WidenedValues.conform(staged.next(), keyTypes);
            }
            closeStaged();
            if (!stagedDeleted.hasNext()) {
                return null;
            }
            staged = store.readStagedKeys(stagedDeleted.next());
        }
    }

    private void closeBatches() {
        if (batches != null) {
            BatchStream closing = batches;
            batches = null;
            closing.close();
        }
    }

    private void closeStaged() {
        if (staged != null) {
            KeyStream closing = staged;
            staged = null;
            closing.close();
        }
    }

    @Override
    public void close() {
        closeBatches();
        closeStaged();
    }
}
