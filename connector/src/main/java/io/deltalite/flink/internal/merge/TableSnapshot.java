package io.deltalite.flink.internal.merge;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** One committed version of the table, and the door to commit the next one on top of it. */
public interface TableSnapshot {

    long version();

    /** The highest checkpoint id committed with the transaction id {@code appId}, if any. */
    OptionalLong committedCheckpoint(String appId);

    /**
     * The live data files of each requested partition; a partition without files maps to an empty
     * list.
     */
    Map<PartitionValues, List<DataFile>> liveFiles(Collection<PartitionValues> partitions);

    /** Which of {@code paths} are live data files of this version, in any partition. */
    java.util.Set<String> livePaths(Collection<String> paths);

    /**
     * Commits {@code commit} as the version after this one.
     *
     * @return the committed version
     * @throws ConcurrentCommitException when another commit took that version first; nothing of
     *     this commit is visible then
     */
    long commit(TableCommit commit) throws ConcurrentCommitException;
}
