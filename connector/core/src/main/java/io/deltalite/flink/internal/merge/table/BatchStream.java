package io.deltalite.flink.internal.merge.table;

import java.util.Iterator;

/** Batches read lazily from one source; closing it releases the reader. */
public interface BatchStream extends Iterator<RowBatch>, AutoCloseable {
    @Override
    void close();
}
