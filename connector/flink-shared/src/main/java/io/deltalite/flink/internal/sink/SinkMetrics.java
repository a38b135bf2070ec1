package io.deltalite.flink.internal.sink;

import io.deltalite.flink.sink.UpsertStats;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/** The committer's metrics: what each commit did, how long it took, the last Delta version. */
final class SinkMetrics {
    private final Counter rowsInserted;
    private final Counter rowsUpdated;
    private final Counter rowsDeleted;
    private final Counter rowsCopied;
    private final Counter filesAdded;
    private final Counter filesRemoved;
    private final Counter filesCarriedOver;
    private final Counter filesProbed;
    private final Counter bytesWritten;
    private final Counter deletionVectorsWritten;
    private final Counter deletionVectorBytes;
    private final Counter filesCompacted;
    private final Counter bytesCompacted;
    private volatile long liveFiles;
    private volatile long smallFiles;
    private final Counter commits;
    private volatile long lastCommittedVersion = -1;
    private volatile long lastCommitDurationMillis = -1;

    SinkMetrics(MetricGroup group) {
        MetricGroup deltalite = group.addGroup("deltalite");
        rowsInserted = deltalite.counter("rowsInserted");
        rowsUpdated = deltalite.counter("rowsUpdated");
        rowsDeleted = deltalite.counter("rowsDeleted");
        rowsCopied = deltalite.counter("rowsCopied");
        filesAdded = deltalite.counter("filesAdded");
        filesRemoved = deltalite.counter("filesRemoved");
        filesCarriedOver = deltalite.counter("filesCarriedOver");
        filesProbed = deltalite.counter("filesProbed");
        bytesWritten = deltalite.counter("bytesWritten");
        deletionVectorsWritten = deltalite.counter("deletionVectorsWritten");
        deletionVectorBytes = deltalite.counter("deletionVectorBytes");
        filesCompacted = deltalite.counter("filesCompacted");
        bytesCompacted = deltalite.counter("bytesCompacted");
        // Of the partitions the last commit touched, after it.
        deltalite.gauge("liveFilesOfTouchedPartitions", () -> liveFiles);
        deltalite.gauge("smallFilesOfTouchedPartitions", () -> smallFiles);
        commits = deltalite.counter("commits");
        deltalite.gauge("lastCommittedVersion", () -> lastCommittedVersion);
        deltalite.gauge("lastCommitDurationMillis", () -> lastCommitDurationMillis);
    }

    void committed(UpsertStats stats, long durationMillis) {
        rowsInserted.inc(stats.rowsInserted());
        rowsUpdated.inc(stats.rowsUpdated());
        rowsDeleted.inc(stats.rowsDeleted());
        rowsCopied.inc(stats.rowsCopied());
        filesAdded.inc(stats.filesAdded());
        filesRemoved.inc(stats.filesRemoved());
        filesCarriedOver.inc(stats.filesCarriedOver());
        filesProbed.inc(stats.filesProbed());
        bytesWritten.inc(stats.bytesWritten());
        deletionVectorsWritten.inc(stats.deletionVectorsWritten());
        deletionVectorBytes.inc(stats.deletionVectorBytes());
        filesCompacted.inc(stats.filesCompacted());
        bytesCompacted.inc(stats.bytesCompacted());
        liveFiles = stats.liveFiles();
        smallFiles = stats.smallFiles();
        commits.inc();
        lastCommittedVersion = stats.version();
        lastCommitDurationMillis = durationMillis;
    }
}
