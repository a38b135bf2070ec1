package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.utils.CloseableIterator;
import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.table.UnreadableDataFileException;
import io.deltalite.flink.internal.merge.value.DataFile;

/** A Kernel iterator over one data file, as the engine's batch stream. */
public final class KernelBatchStream implements BatchStream {
    private final DataFile file;
    private final String location;
    private final CloseableIterator<RowBatch> source;

    /**
     * @param location the table's location, for errors
     */
    public KernelBatchStream(DataFile file, String location, CloseableIterator<RowBatch> source) {
        this.file = file;
        this.location = location;
        this.source = source;
    }

    @Override
    public boolean hasNext() {
        try {
            return source.hasNext();
        } catch (RuntimeException e) {
            throw failure(e);
        }
    }

    @Override
    public RowBatch next() {
        try {
            return source.next();
        } catch (RuntimeException e) {
            throw failure(e);
        }
    }

    private RuntimeException failure(RuntimeException e) {
        if (e instanceof DeltaLiteException) {
            return e;
        }
        return UnreadableDataFileException.of(file.path(), location, e);
    }

    @Override
    public void close() {
        KernelIterators.closeQuietly(source);
    }
}
