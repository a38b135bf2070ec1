package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.Iterator;

/** Keys read lazily from a staged key file; closing it releases the reader. */
public interface KeyStream extends Iterator<RowKey>, AutoCloseable {
    @Override
    void close();
}
