package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.DeletionVectorRef;

/**
 * Where the merges of one round write their new deletion vectors: one file, written when the round
 * closes it, so that a checkpoint adds a file of vectors per writer rather than a file per vector.
 * Thread-safe: the partitions of a round merge in parallel.
 */
public interface DeletionVectorSink extends AutoCloseable {

    /**
     * Adds {@code vector} to the file; the descriptor is valid once the sink is closed. Until then,
     * the table's files read it from here.
     */
    DeletionVectorRef add(DeletionVector vector);

    /** The file's path. */
    String path();

    /** Bytes written so far (0 when no vector was added). */
    long bytes();

    /** Writes the file, if any vector was added. */
    @Override
    void close();

    /** Forgets the vectors without writing them: the merges that added them failed. */
    void discard();
}
