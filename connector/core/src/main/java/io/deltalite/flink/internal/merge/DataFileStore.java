package io.deltalite.flink.internal.merge;

import java.util.List;

/** How the engine reads and writes the data files of one table. */
public interface DataFileStore {

    /** Streams {@code file} with only its match-key columns decoded, one batch at a time. */
    BatchStream readKeys(DataFile file);

    /** Streams the complete rows of {@code file}; rows its deletion vector deletes are not live. */
    BatchStream readRows(DataFile file);

    /** Wraps new rows, in table-column order, as a batch that can be written. */
    RowBatch newRows(List<Object[]> rows);

    /**
     * Writes the live rows of {@code batches} into new data files of {@code partition}, starting a
     * new file at the target file size, with statistics. The files are not part of the table until
     * a commit adds them. If writing fails, the files written so far are deleted.
     */
    default List<DataFile> write(PartitionValues partition, BatchStream batches) {
        return write(partition, batches, null);
    }

    /**
     * As {@link #write(PartitionValues, BatchStream)}, into the folder of {@code keys} in the
     * partition: for rows whose keys are all in that range (see {@link KeyGroups}); null writes
     * into the partition's own folder.
     */
    List<DataFile> write(PartitionValues partition, BatchStream batches, KeyGroups keys);

    /** Deletes a data file that was written but will never be committed. Best effort. */
    void deleteUncommitted(DataFile file);

    /**
     * Writes {@code keys} into a new staged key file outside the table's data, for a checkpoint's
     * re-merge; only {@link #readStagedKeys} reads it.
     */
    StagedKeys stageKeys(java.util.Collection<RowKey> keys);

    /** The rows of {@code file} that its deletion vector deletes (empty when it has none). */
    DeletionVector readDeletionVector(DataFile file);

    /**
     * A new deletion vector file: the merges of one round add their vectors to it, and closing it
     * writes it (nothing is written when no vector was added).
     */
    DeletionVectorSink newDeletionVectorSink();

    /** The file a deletion vector is stored in, or {@code null} for one inline in the log. */
    String deletionVectorPath(DeletionVectorRef vector);

    /** Whether the file at {@code path} exists. */
    boolean exists(String path);

    /** The size in bytes of the file at {@code path}; empty when it does not exist. */
    java.util.OptionalLong fileSize(String path);

    /** Whether {@code path} is a staged key file (which no Delta version ever references). */
    boolean isStagedKeyFile(String path);

    /** Streams the keys of a staged key file. */
    KeyStream readStagedKeys(StagedKeys file);
}
