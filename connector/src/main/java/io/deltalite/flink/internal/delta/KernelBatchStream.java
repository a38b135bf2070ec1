package io.deltalite.flink.internal.delta;

import io.delta.kernel.utils.CloseableIterator;
import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.merge.BatchStream;
import io.deltalite.flink.internal.merge.DataFile;
import io.deltalite.flink.internal.merge.RowBatch;

/** A Kernel iterator over one data file, as the engine's batch stream. */
final class KernelBatchStream implements BatchStream {
    private final DataFile file;
    private final CloseableIterator<RowBatch> source;

    KernelBatchStream(DataFile file, CloseableIterator<RowBatch> source) {
        this.file = file;
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
        return new DeltaLiteException(
                "Reading data file "
                        + file.path()
                        + " failed: "
                        + e.getMessage()
                        + ". The file may have been removed by VACUUM or be corrupt; nothing was"
                        + " committed.",
                e);
    }

    @Override
    public void close() {
        KernelIterators.closeQuietly(source);
    }
}
