package io.deltalite.flink.internal.merge.result;

import io.deltalite.flink.sink.UpsertStats;

/** Derives the statistics of a result whose compaction or file counts change. */
public final class MergeStats {
    private MergeStats() {}

    /** {@code stats} plus {@code compaction} (its inputs removed, its outputs added). */
    static UpsertStats plusCompaction(UpsertStats stats, Compaction compaction) {
        return withCompaction(stats, compaction, 1);
    }

    /** {@code stats} without {@code compaction}, which {@link #plusCompaction} had added. */
    static UpsertStats minusCompaction(UpsertStats stats, Compaction compaction) {
        return withCompaction(stats, compaction, -1);
    }

    private static UpsertStats withCompaction(UpsertStats s, Compaction compaction, int sign) {
        long inputs = sign * (long) compaction.inputs().size();
        long outputs = sign * (long) compaction.outputs().size();
        return new UpsertStats(
                s.version(),
                s.partitionsTouched(),
                s.filesAdded() + outputs,
                s.filesRemoved() + inputs,
                Math.max(0, s.filesCarriedOver() - inputs),
                s.filesProbed(),
                s.rowsInserted(),
                s.rowsUpdated(),
                s.rowsDeleted(),
                s.rowsCopied(),
                s.sourceRows(),
                s.nullKeyRows(),
                s.bytesWritten() + sign * compaction.outputBytes(),
                s.deletionVectorsWritten(),
                s.deletionVectorBytes(),
                s.filesCompacted() + inputs,
                s.bytesCompacted() + sign * compaction.bytesRead(),
                // Taking a compaction away restores its inputs (most of them small).
                sign < 0 ? s.liveFiles() - inputs + outputs : s.liveFiles(),
                sign < 0 ? Math.max(0, s.smallFiles() - inputs + outputs) : s.smallFiles());
    }

    /** {@code s} with the file counts of its partition after the commit. */
    public static UpsertStats withFileCounts(UpsertStats s, long liveFiles, long smallFiles) {
        return new UpsertStats(
                s.version(),
                s.partitionsTouched(),
                s.filesAdded(),
                s.filesRemoved(),
                s.filesCarriedOver(),
                s.filesProbed(),
                s.rowsInserted(),
                s.rowsUpdated(),
                s.rowsDeleted(),
                s.rowsCopied(),
                s.sourceRows(),
                s.nullKeyRows(),
                s.bytesWritten(),
                s.deletionVectorsWritten(),
                s.deletionVectorBytes(),
                s.filesCompacted(),
                s.bytesCompacted(),
                liveFiles,
                smallFiles);
    }

    /** {@code s}, a sum over several writers' results, as the stats of one partition. */
    static UpsertStats asOnePartition(UpsertStats s, long liveFiles, long smallFiles) {
        UpsertStats counted = withFileCounts(s, liveFiles, smallFiles);
        return new UpsertStats(
                counted.version(),
                Math.min(1, counted.partitionsTouched()),
                counted.filesAdded(),
                counted.filesRemoved(),
                counted.filesCarriedOver(),
                counted.filesProbed(),
                counted.rowsInserted(),
                counted.rowsUpdated(),
                counted.rowsDeleted(),
                counted.rowsCopied(),
                counted.sourceRows(),
                counted.nullKeyRows(),
                counted.bytesWritten(),
                counted.deletionVectorsWritten(),
                counted.deletionVectorBytes(),
                counted.filesCompacted(),
                counted.bytesCompacted(),
                liveFiles,
                smallFiles);
    }
}
