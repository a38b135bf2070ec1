package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** One committed version of the table, and the door to commit the next one on top of it. */
public interface TableSnapshot {

    long version();

    /**
     * Whether a commit on top of this version may add deletion vectors: the table has the {@code
     * deletionVectors} feature and {@code delta.enableDeletionVectors = true}.
     */
    boolean allowsDeletionVectors();

    /**
     * The table's {@code delta.deletedFileRetentionDuration} when the table sets it: how long a
     * file no version references any more must stay, for readers of older versions.
     */
    java.util.Optional<java.time.Duration> deletedFileRetention();

    /** The highest checkpoint id committed with the transaction id {@code appId}, if any. */
    OptionalLong committedCheckpoint(String appId);

    /**
     * The live data files of each requested partition; a partition without files maps to an empty
     * list.
     */
    Map<PartitionValues, List<DataFile>> liveFiles(Collection<PartitionValues> partitions);

    /** The live files of every partition that has one. */
    Map<PartitionValues, List<DataFile>> allLiveFiles();

    /**
     * What the versions after {@code version} up to this one recorded, in version order; empty when
     * the log no longer holds all of them (log files expire after the table's log retention).
     */
    java.util.Optional<List<CommitRecord>> commitsAfter(long version);

    /**
     * Commits {@code commit} as the version after this one.
     *
     * @return the committed version
     * @throws ConcurrentCommitException when that version exists already: another writer took it,
     *     or an earlier attempt of the same commit whose answer was lost
     * @throws CommitOutcomeUnknownException when the store failed during the commit, which may or
     *     may not have landed
     */
    long commit(TableCommit commit) throws ConcurrentCommitException, CommitOutcomeUnknownException;
}
