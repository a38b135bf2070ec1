package io.deltalite.flink.sink;

/**
 * What one merge or one commit did. A merge of one partition reports {@code version == -1}; a
 * commit reports the Delta version it created and the sum over its partitions.
 *
 * @param version the Delta table version the commit created, or -1 before it is committed
 * @param partitionsTouched partitions with at least one change
 * @param filesAdded data files added, by the merge and by compaction
 * @param filesRemoved data files removed, by the merge (rewritten) and by compaction
 * @param filesCarriedOver files of touched partitions that were kept untouched
 * @param filesProbed files whose key columns were read to look for changed keys
 * @param rowsInserted upserted keys that were not in the partition before
 * @param rowsUpdated upserted keys that replaced stored rows
 * @param rowsDeleted stored keys removed by a delete
 * @param rowsCopied unchanged rows copied from rewritten files into new files
 * @param sourceRows change records that reached the merge, before the last change per key won
 * @param nullKeyRows change records with a null in a primary-key column
 * @param bytesWritten bytes of the data files (merge and compaction) and deletion vector files
 *     added
 * @param deletionVectorsWritten files that kept their data and got a new deletion vector marking
 *     the rows that changed (write mode {@code deletion-vectors} or {@code auto})
 * @param deletionVectorBytes bytes of the deletion vector files added
 * @param filesCompacted files that no change touched, rewritten into fewer by compaction (counted
 *     in {@code filesRemoved} too)
 * @param bytesCompacted bytes of the files compaction read
 * @param liveFiles data files of the touched partitions after the commit
 * @param smallFiles of those, files below {@code compaction.small-file-size}
 */
public record UpsertStats(
        long version,
        long partitionsTouched,
        long filesAdded,
        long filesRemoved,
        long filesCarriedOver,
        long filesProbed,
        long rowsInserted,
        long rowsUpdated,
        long rowsDeleted,
        long rowsCopied,
        long sourceRows,
        long nullKeyRows,
        long bytesWritten,
        long deletionVectorsWritten,
        long deletionVectorBytes,
        long filesCompacted,
        long bytesCompacted,
        long liveFiles,
        long smallFiles) {

    /** Statistics of a merge that did nothing. */
    public static final UpsertStats EMPTY =
            new UpsertStats(-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** Statistics of a merge without compaction, whose partition's files were not counted. */
    public UpsertStats(
            long version,
            long partitionsTouched,
            long filesAdded,
            long filesRemoved,
            long filesCarriedOver,
            long filesProbed,
            long rowsInserted,
            long rowsUpdated,
            long rowsDeleted,
            long rowsCopied,
            long sourceRows,
            long nullKeyRows,
            long bytesWritten,
            long deletionVectorsWritten,
            long deletionVectorBytes) {
        this(
                version,
                partitionsTouched,
                filesAdded,
                filesRemoved,
                filesCarriedOver,
                filesProbed,
                rowsInserted,
                rowsUpdated,
                rowsDeleted,
                rowsCopied,
                sourceRows,
                nullKeyRows,
                bytesWritten,
                deletionVectorsWritten,
                deletionVectorBytes,
                0,
                0,
                0,
                0);
    }

    /** The sum of two merges; the version of the result is -1. */
    public UpsertStats plus(UpsertStats other) {
        return new UpsertStats(
                -1,
                partitionsTouched + other.partitionsTouched,
                filesAdded + other.filesAdded,
                filesRemoved + other.filesRemoved,
                filesCarriedOver + other.filesCarriedOver,
                filesProbed + other.filesProbed,
                rowsInserted + other.rowsInserted,
                rowsUpdated + other.rowsUpdated,
                rowsDeleted + other.rowsDeleted,
                rowsCopied + other.rowsCopied,
                sourceRows + other.sourceRows,
                nullKeyRows + other.nullKeyRows,
                bytesWritten + other.bytesWritten,
                deletionVectorsWritten + other.deletionVectorsWritten,
                deletionVectorBytes + other.deletionVectorBytes,
                filesCompacted + other.filesCompacted,
                bytesCompacted + other.bytesCompacted,
                liveFiles + other.liveFiles,
                smallFiles + other.smallFiles);
    }

    /** These statistics, as committed in Delta version {@code committedVersion}. */
    public UpsertStats withVersion(long committedVersion) {
        return new UpsertStats(
                committedVersion,
                partitionsTouched,
                filesAdded,
                filesRemoved,
                filesCarriedOver,
                filesProbed,
                rowsInserted,
                rowsUpdated,
                rowsDeleted,
                rowsCopied,
                sourceRows,
                nullKeyRows,
                bytesWritten,
                deletionVectorsWritten,
                deletionVectorBytes,
                filesCompacted,
                bytesCompacted,
                liveFiles,
                smallFiles);
    }
}
