package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.value.KeyIdentity;

/**
 * Receives the keys of a data file's rows a block at a time ({@link
 * DataFileStore#readKeyIdentities}): each row's key identity ({@link KeyIdentity}, {@code low} 0
 * for an integral key) and physical position in the file.
 */
@FunctionalInterface
public interface KeyIdentitySink {
    /**
     * The first {@code count} entries of the arrays are a block of rows; the arrays are the
     * reader's, reused once this returns.
     */
    void accept(long[] high, long[] low, long[] positions, int count);
}
