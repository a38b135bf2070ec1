package io.deltalite.flink.internal.merge;

import io.deltalite.flink.exceptions.DeltaLiteCommitConflictException;
import io.deltalite.flink.sink.UpsertStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lands the partition results of one checkpoint as one Delta commit, exactly once.
 *
 * <p>It relies on three facts:
 *
 * <ul>
 *   <li>the transaction id {@code (appId, checkpointId)} is written with the commit, so a table
 *       that records {@code checkpointId} or a later one for {@code appId} already holds it;
 *   <li>a result is valid only on top of the exact set of live files it was planned against ({@link
 *       PartitionWriteResult#baseFingerprint()}); if another writer changed the partition, the
 *       result is {@linkplain PartitionMerger#remerge re-merged} against the current files;
 *   <li>a commit either lands as the next version or has no effect ({@link
 *       ConcurrentCommitException}), after which everything is re-checked on the new snapshot.
 * </ul>
 *
 * Survivor files that were replaced by a re-merge are deleted once the commit has landed; before
 * that they might still be needed by a replay.
 */
public final class CheckpointCommitter {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommitter.class);

    private final MergeTable table;
    private final PartitionMerger merger;
    private final int commitRetries;

    public CheckpointCommitter(MergeTable table, PartitionMerger merger, MergeOptions options) {
        this.table = table;
        this.merger = merger;
        this.commitRetries = options.commitRetries();
    }

    public CommitOutcome commit(CheckpointResults checkpoint) {
        String appId = checkpoint.appId();
        long checkpointId = checkpoint.checkpointId();
        List<PartitionWriteResult> results = checkpoint.results();
        Map<PartitionValues, PartitionWriteResult> current = new LinkedHashMap<>();
        for (PartitionWriteResult result : results) {
            current.merge(
                    result.partition(),
                    result,
                    (first, later) -> {
                        throw new IllegalArgumentException(
                                "two results for partition "
                                        + first.partition()
                                        + " in one checkpoint; each partition has one owner");
                    });
        }
        if (current.isEmpty()) {
            return new CommitOutcome(
                    CommitOutcome.Status.NOTHING_TO_COMMIT, -1, UpsertStats.EMPTY, 0, 0);
        }
        Map<String, DataFile> writtenHere = new HashMap<>();
        Set<PartitionValues> remerged = new HashSet<>();
        for (int attempt = 1; attempt <= commitRetries + 1; attempt++) {
            TableSnapshot snapshot = table.latestSnapshot();
            OptionalLong committed = snapshot.committedCheckpoint(appId);
            if (committed.isPresent() && committed.getAsLong() >= checkpointId) {
                writtenHere.values().forEach(table.files()::deleteUncommitted);
                return new CommitOutcome(
                        CommitOutcome.Status.ALREADY_COMMITTED, -1, UpsertStats.EMPTY, attempt, 0);
            }
            Map<PartitionValues, List<DataFile>> live = snapshot.liveFiles(current.keySet());
            for (Map.Entry<PartitionValues, PartitionWriteResult> entry : current.entrySet()) {
                List<DataFile> liveFiles = live.getOrDefault(entry.getKey(), List.of());
                PartitionWriteResult result = entry.getValue();
                if (!LiveSetFingerprint.of(liveFiles).equals(result.baseFingerprint())) {
                    LOG.info(
                            "Partition {} of table {} changed since checkpoint {} was merged;"
                                    + " merging it again against version {}.",
                            result.partition().describe(table.schema().partitionColumns()),
                            table.location(),
                            checkpointId,
                            snapshot.version());
                    PartitionWriteResult redone = merger.remerge(result, liveFiles);
                    redone.survivorFiles().forEach(file -> writtenHere.put(file.path(), file));
                    entry.setValue(redone);
                    remerged.add(entry.getKey());
                }
            }
            TableCommit commit = toCommit(appId, checkpointId, current.values());
            UpsertStats stats = total(current.values());
            if (commit.isEmpty()) {
                deleteUnused(writtenHere, commit);
                return new CommitOutcome(
                        CommitOutcome.Status.NOTHING_TO_COMMIT,
                        -1,
                        stats,
                        attempt,
                        remerged.size());
            }
            try {
                long version = snapshot.commit(commit);
                deleteUnused(writtenHere, commit);
                deleteReplacedOriginals(results, commit);
                return new CommitOutcome(
                        CommitOutcome.Status.COMMITTED,
                        version,
                        stats.withVersion(version),
                        attempt,
                        remerged.size());
            } catch (ConcurrentCommitException e) {
                LOG.info(
                        "Another writer committed to table {} before checkpoint {} (attempt {} of"
                                + " {}); checking the partitions again.",
                        table.location(),
                        checkpointId,
                        attempt,
                        commitRetries + 1);
                backOff(attempt);
            }
        }
        List<String> partitions = new ArrayList<>();
        current.keySet()
                .forEach(p -> partitions.add(p.describe(table.schema().partitionColumns())));
        throw new DeltaLiteCommitConflictException(
                "Checkpoint "
                        + checkpointId
                        + " could not be committed to table "
                        + table.location()
                        + " after "
                        + (commitRetries + 1)
                        + " attempts: other writers kept committing, touching partitions "
                        + partitions
                        + ". The job fails and replays the checkpoint after its"
                        + " restart. If several jobs write the same partitions, give each its"
                        + " own partitions, or raise 'commit-retries'.");
    }

    /**
     * Waits a random time that grows with the attempt (up to 2 s), so that writers who keep
     * colliding spread out instead of colliding again.
     */
    private static void backOff(int attempt) {
        long ceiling = Math.min(2_000, 20L << Math.min(attempt, 10));
        try {
            Thread.sleep(
                    java.util.concurrent.ThreadLocalRandom.current()
                            .nextLong(ceiling / 2, ceiling + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to retry a commit", e);
        }
    }

    private static TableCommit toCommit(
            String appId, long checkpointId, Iterable<PartitionWriteResult> results) {
        Map<PartitionValues, List<DataFile>> removed = new HashMap<>();
        Map<PartitionValues, List<DataFile>> added = new HashMap<>();
        for (PartitionWriteResult result : results) {
            if (!result.removedFiles().isEmpty()) {
                removed.put(result.partition(), result.removedFiles());
            }
            if (!result.addedFiles().isEmpty()) {
                added.put(result.partition(), result.addedFiles());
            }
        }
        return new TableCommit(appId, checkpointId, removed, added);
    }

    private static UpsertStats total(Iterable<PartitionWriteResult> results) {
        UpsertStats total = UpsertStats.EMPTY;
        for (PartitionWriteResult result : results) {
            total = total.plus(result.stats());
        }
        return total;
    }

    /** Deletes the survivor files written by re-merges here that the commit does not add. */
    private void deleteUnused(Map<String, DataFile> writtenHere, TableCommit commit) {
        Set<String> committed = addedPaths(commit);
        for (DataFile file : writtenHere.values()) {
            if (!committed.contains(file.path())) {
                table.files().deleteUncommitted(file);
            }
        }
    }

    /** Once a commit landed, survivors of the original results that it replaced are garbage. */
    private void deleteReplacedOriginals(List<PartitionWriteResult> originals, TableCommit commit) {
        Set<String> committed = addedPaths(commit);
        for (PartitionWriteResult original : originals) {
            for (DataFile file : original.survivorFiles()) {
                if (!committed.contains(file.path())) {
                    table.files().deleteUncommitted(file);
                }
            }
        }
    }

    private static Set<String> addedPaths(TableCommit commit) {
        Set<String> paths = new HashSet<>();
        commit.added().values().forEach(files -> files.forEach(file -> paths.add(file.path())));
        return paths;
    }
}
