package io.deltalite.flink.testing;

import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.DeletionVectorSink;
import io.deltalite.flink.internal.merge.table.KeyStream;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.DeletionVectorRef;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.merge.value.StagedKeys;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;

/**
 * A table's store with every optional fast path left to {@link DataFileStore}'s own default: keys
 * decoded row by row ({@code locateKeys}, {@code readKeyIdentities}), a merge's output copied row
 * by row ({@code gather}). What the benchmarks compare the store's fast paths with.
 */
public class DefaultPathsStore implements DataFileStore {
    private final DataFileStore store;

    public DefaultPathsStore(DataFileStore store) {
        this.store = store;
    }

    @Override
    public BatchStream readKeys(DataFile file) {
        return store.readKeys(file);
    }

    @Override
    public BatchStream readRows(DataFile file) {
        return store.readRows(file);
    }

    @Override
    public RowBatch newRows(List<Object[]> rows) {
        return store.newRows(rows);
    }

    @Override
    public List<DataFile> write(PartitionValues partition, BatchStream batches, KeyGroups keys) {
        return store.write(partition, batches, keys);
    }

    @Override
    public void deleteUncommitted(DataFile file) {
        store.deleteUncommitted(file);
    }

    @Override
    public StagedKeys stageKeys(Collection<RowKey> keys) {
        return store.stageKeys(keys);
    }

    @Override
    public DeletionVector readDeletionVector(DataFile file) {
        return store.readDeletionVector(file);
    }

    @Override
    public DeletionVectorSink newDeletionVectorSink() {
        return store.newDeletionVectorSink();
    }

    @Override
    public String deletionVectorPath(DeletionVectorRef vector) {
        return store.deletionVectorPath(vector);
    }

    @Override
    public boolean exists(String path) {
        return store.exists(path);
    }

    @Override
    public OptionalLong fileSize(String path) {
        return store.fileSize(path);
    }

    @Override
    public boolean isStagedKeyFile(String path) {
        return store.isStagedKeyFile(path);
    }

    @Override
    public KeyStream readStagedKeys(StagedKeys file) {
        return store.readStagedKeys(file);
    }
}
