package io.deltalite.flink.internal.merge.writer;

import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.journal.FileReclaimer;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.PendingCheckpoint;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoints one writer prepared (or restored) that the table does not show committed yet.
 * They are part of the writer's view of a partition: checkpoint N is committed only after it
 * completes, while the writer already merges N+1, so N+1 must plan against N's files as if they
 * were committed.
 *
 * <p>A pending checkpoint is dropped once the table records its app id at its checkpoint id or
 * later — which means it is committed, because the committer lands the checkpoints of an app id in
 * order and never drops one (see {@link CheckpointCommitter}). Dropping it is also when its files
 * are resolved: the writer is the only reader of them, and it reads them only from within a merge,
 * which never runs concurrently with this. After a rescale a writer may hold checkpoints that other
 * subtasks prepared, several for one checkpoint id; each keeps its own journal entry.
 */
final class PendingCheckpoints {
    private static final Logger LOG = LoggerFactory.getLogger(PendingCheckpoints.class);

    private final MergeTable table;
    private final String ownAppId;
    private final FileReclaimer reclaimer;
    private final List<PendingCheckpoint> pending = new ArrayList<>();

    /**
     * @param ownAppId the app id of the checkpoints this job prepares: only their data files may be
     *     deleted here (another job holding the same restored checkpoints may still read theirs)
     */
    PendingCheckpoints(MergeTable table, String ownAppId) {
        this.table = table;
        this.ownAppId = ownAppId;
        this.reclaimer = new FileReclaimer(table);
    }

    void add(PendingCheckpoint checkpoint) {
        pending.add(checkpoint);
        pending.sort(Comparator.comparingLong(PendingCheckpoint::checkpointId));
    }

    void restore(Collection<PendingCheckpoint> restored) {
        restored.forEach(this::add);
    }

    List<PendingCheckpoint> all() {
        return List.copyOf(pending);
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    /** The partitions the pending checkpoints changed. */
    Set<PartitionValues> partitions() {
        Set<PartitionValues> partitions = new java.util.LinkedHashSet<>();
        for (PendingCheckpoint checkpoint : pending) {
            for (PartitionWriteResult result : checkpoint.results()) {
                partitions.add(result.partition());
            }
        }
        return partitions;
    }

    /** Applies the pending results of {@code partition}, oldest first, to its files by path. */
    void overlay(PartitionValues partition, Map<String, DataFile> files) {
        for (PendingCheckpoint checkpoint : pending) {
            for (PartitionWriteResult result : checkpoint.results()) {
                if (result.partition().equals(partition)) {
                    result.applyTo(files);
                }
            }
        }
    }

    /**
     * The survivor files and compaction outputs of the pending results of {@code partition}. They
     * are not the table's yet: a committer that merges their checkpoint again (or drops its
     * compaction) leaves them out, so a later merge rewrites them rather than giving them a
     * deletion vector.
     */
    Set<String> survivorPaths(PartitionValues partition) {
        Set<String> paths = new HashSet<>();
        for (PartitionWriteResult result : results(partition)) {
            result.survivorFiles().forEach(file -> paths.add(file.path()));
            result.compaction().outputs().forEach(file -> paths.add(file.path()));
        }
        return paths;
    }

    /**
     * Every path the pending results of {@code partition} remove or add: files a compaction of a
     * later checkpoint must not read, because their fate depends on a commit still to come.
     */
    Set<String> touchedPaths(PartitionValues partition) {
        Set<String> paths = new HashSet<>();
        for (PartitionWriteResult result : results(partition)) {
            paths.addAll(result.touchedPaths());
        }
        return paths;
    }

    private List<PartitionWriteResult> results(PartitionValues partition) {
        List<PartitionWriteResult> results = new ArrayList<>();
        for (PendingCheckpoint checkpoint : pending) {
            for (PartitionWriteResult result : checkpoint.results()) {
                if (result.partition().equals(partition)) {
                    results.add(result);
                }
            }
        }
        return results;
    }

    /**
     * Drops the checkpoints {@code snapshot} shows committed, deletes the files of theirs that no
     * version references, and removes their journal entries.
     */
    void dropCommitted(TableSnapshot snapshot) {
        Iterator<PendingCheckpoint> checkpoints = pending.iterator();
        while (checkpoints.hasNext()) {
            PendingCheckpoint checkpoint = checkpoints.next();
            FileReclaimer.Landing landing =
                    reclaimer.find(
                            snapshot,
                            checkpoint.appId(),
                            checkpoint.checkpointId(),
                            checkpoint.notCommittedAt());
            if (!landing.isResolved()) {
                continue;
            }
            checkpoints.remove();
            boolean own = checkpoint.appId().equals(ownAppId);
            int deleted = reclaimer.reclaim(snapshot, landing, checkpoint.writtenPaths(), own);
            if (deleted > 0) {
                LOG.info(
                        "Checkpoint {} of app {} is committed in {}; deleted {} of its files that"
                                + " the commit did not take (staged keys, or files a re-merge"
                                + " replaced).",
                        checkpoint.checkpointId(),
                        checkpoint.appId(),
                        table.location(),
                        deleted);
            }
            if (own || !reclaimer.leavesDataFiles(landing, checkpoint.writtenPaths())) {
                table.journal().remove(checkpoint.journalEntry().withoutFiles());
            }
            // Otherwise the entry of the job that prepared the checkpoint stays: its files that
            // no version took are that job's to delete, or VACUUM's.
        }
    }
}
