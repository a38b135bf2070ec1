package io.deltalite.flink.internal.merge;

import java.util.Iterator;

/** Keys read lazily from a staged key file; closing it releases the reader. */
public interface KeyStream extends Iterator<RowKey>, AutoCloseable {
    @Override
    void close();
}
