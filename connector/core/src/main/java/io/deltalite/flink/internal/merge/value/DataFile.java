package io.deltalite.flink.internal.merge.value;

import java.util.List;
import java.util.Objects;

/**
 * A Parquet data file of the table, committed or written but not yet committed.
 *
 * @param path absolute, fully qualified path; the identity of the file
 * @param sizeBytes file size
 * @param modificationTime milliseconds since the epoch
 * @param numRecords rows in the file (before deletion vectors), -1 when unknown
 * @param keyStatistics per match-key column, in key order; empty when the file has no statistics
 * @param deletionVector the deletion vector that deletes some rows of the file, or {@code null}
 *     when it has none; a file that gains a deletion vector is a different file
 * @param logStatistics the statistics as they are written in the Delta log (opaque to the engine),
 *     or {@code null}
 * @param rowLineage the file's base row id and default row commit version in a table with row
 *     tracking, or {@code null}: a file not committed yet has none (its rows without a materialized
 *     row id get fresh ids when it is)
 */
public record DataFile(
        String path,
        long sizeBytes,
        long modificationTime,
        long numRecords,
        List<ColumnStatistics> keyStatistics,
        DeletionVectorRef deletionVector,
        String logStatistics,
        RowLineage rowLineage) {

    public DataFile {
        Objects.requireNonNull(path, "path");
        keyStatistics = List.copyOf(keyStatistics);
    }

    /** A file without row lineage: not committed yet, or of a table without row tracking. */
    public DataFile(
            String path,
            long sizeBytes,
            long modificationTime,
            long numRecords,
            List<ColumnStatistics> keyStatistics,
            DeletionVectorRef deletionVector,
            String logStatistics) {
        this(
                path,
                sizeBytes,
                modificationTime,
                numRecords,
                keyStatistics,
                deletionVector,
                logStatistics,
                null);
    }

    /** A file known only by its path, for deleting it. */
    public static DataFile atPath(String path) {
        return new DataFile(path, 0, 0, -1, List.of(), null, null);
    }

    public boolean hasDeletionVector() {
        return deletionVector != null;
    }

    /** Path and deletion vector: what makes two listings of a file the same file. */
    public String identity() {
        return deletionVector == null ? path : path + "#dv=" + deletionVector.id();
    }

    public boolean hasStatistics() {
        return numRecords >= 0;
    }

    /** How many rows it holds that no deletion vector deletes, -1 when unknown. */
    public long liveRecords() {
        if (numRecords < 0) {
            return -1;
        }
        return numRecords - (deletionVector == null ? 0 : deletionVector.cardinality());
    }

    /** The same file with another deletion vector (and statistics that are no longer tight). */
    public DataFile withDeletionVector(DeletionVectorRef vector, String statistics) {
        return new DataFile(
                path,
                sizeBytes,
                modificationTime,
                numRecords,
                keyStatistics,
                vector,
                statistics,
                rowLineage);
    }

    /** The file name, for messages. */
    public String name() {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
