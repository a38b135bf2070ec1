package io.deltalite.flink.internal.merge.commit;

import io.deltalite.flink.exceptions.DeltaLiteCommitConflictException;
import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.exceptions.DeltaLiteStorageException;
import io.deltalite.flink.internal.merge.journal.FileReclaimer;
import io.deltalite.flink.internal.merge.journal.JournalSweep;
import io.deltalite.flink.internal.merge.journal.WriterJournal;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.Compaction;
import io.deltalite.flink.internal.merge.result.LiveSetFingerprint;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.SharedPartitionResults;
import io.deltalite.flink.internal.merge.result.WidenedValues;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.table.Causes;
import io.deltalite.flink.internal.merge.table.CommitOutcomeUnknownException;
import io.deltalite.flink.internal.merge.table.CommitRecord;
import io.deltalite.flink.internal.merge.table.ConcurrentCommitException;
import io.deltalite.flink.internal.merge.table.DeletionVectorSink;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableCommit;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.table.UnreadableDataFileException;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.UpsertStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lands the partition results of one checkpoint as one Delta version, exactly once. This class owns
 * the commit protocol; its rules are:
 *
 * <ol>
 *   <li><b>Identity.</b> A checkpoint is committed with the Delta transaction id {@code (appId,
 *       checkpointId)}. The app id names one <em>lineage</em> of checkpoint ids: the user's app id
 *       (or {@code deltalite}) plus the job that prepared the checkpoint, fixed when the job is
 *       built and submitted. Flink's checkpoint ids only grow within one job — across failovers and
 *       rescales — so each {@code (appId, checkpointId)} names one checkpoint forever. A new
 *       submission (a redeploy without state, another batch run, a second job started from a
 *       savepoint) starts a new lineage for the checkpoints it prepares; the checkpoints restored
 *       from state keep the app id they were prepared under.
 *   <li><b>Order.</b> The checkpoints of one app id are committed in checkpoint order, each as a
 *       version of its own, and none is skipped: Flink hands committables over in order, the
 *       aggregator emits a checkpoint some writers skipped before the next one, and a commit that
 *       fails fails the job rather than letting a later checkpoint pass it.
 *   <li><b>Already committed</b> therefore means: the table records the app id at this checkpoint
 *       id or a later one. The committable is then acknowledged and nothing is written.
 *   <li><b>Unknown outcomes are resolved from the log.</b> An attempt may land and still report an
 *       error (a failed call after the write; a store retrying its own conditional put). Each
 *       attempt starts by looking up the checkpoint in the log ({@link FileReclaimer#find}); the
 *       version that holds it tells which of this committer's files it took.
 *   <li><b>Re-merge, never rebase blindly.</b> A result is valid only on top of the exact live
 *       files it planned against ({@link PartitionWriteResult#baseFingerprint()}). If another
 *       writer changed the partition, it is {@linkplain PartitionMerger#remerge merged again}
 *       against the current files from its upsert files and deleted keys. Appends (tables without a
 *       key) remove nothing and have no key to collide with: they are never merged again.
 *   <li><b>Shared partitions compose, or are merged again.</b> Distributed by key, several writers
 *       change one partition in a checkpoint, each its own keys. Their results are combined on the
 *       live files of each attempt ({@link SharedPartitionResults}): only when every commit since
 *       they planned is this job attempt's own checkpoint, everything they replace is still live,
 *       and no file is rewritten by one and touched by another; the vectors several give one file
 *       become one, unioned with the live one. Otherwise the partition is merged again, as above.
 *   <li><b>Compaction rides along, or is dropped.</b> A result's {@link Compaction} (committed
 *       files of the partition rewritten into fewer, {@code dataChange = false}) is committed only
 *       while every file it read is live as it read it; otherwise — and whenever its partition is
 *       merged again — it is dropped, never redone here, and the checkpoint commits without it. A
 *       result that changes no data (only a compaction, as the one-off pass commits) is never
 *       merged again: files others added meanwhile do not make it stale, and any change to a file
 *       it read (a remove, a new deletion vector) fails that check. A compaction therefore never
 *       fails a checkpoint and never brings back a row.
 *   <li><b>One schema.</b> Every version this committer writes has the schema the sink opened the
 *       table with. A schema change is a version of its own, made only when a writer or the
 *       committer opens the table ({@code DeltaTable}'s schema evolution), before any of them
 *       writes; a table whose schema changed while the sink runs fails the attempt ({@link
 *       MergeTable#latestSnapshot()}), and the job restarts with the new schema. A checkpoint
 *       restored from state is refused when its files no longer fit the table: merged under another
 *       partitioning, or holding a column under a name the table no longer reads (a column another
 *       writer dropped, column mapping turned off: {@link MergeTable#columnsLostSince(long)}),
 *       since committing them would misplace or lose values.
 *   <li><b>The end is always recorded.</b> The checkpoint that ends every writer's input gets a
 *       version even when it changes nothing (its transaction id alone), whenever its writers left
 *       results or notes: only a checkpoint the log records is resolved, so that what the lineage
 *       left can be cleaned up and a replay of the end is recognized as committed. Other
 *       checkpoints that change nothing make no version; a later one resolves them.
 *   <li><b>Files.</b> This committer deletes only the files its own re-merges and unions wrote,
 *       and, once a checkpoint that ends every writer's input is committed, what the lineage's
 *       writers noted and no version took. Its own files only once the version holding the
 *       checkpoint is known not to take them. The writers' files are theirs to delete ({@link
 *       PendingCheckpoints}); see {@link FileReclaimer} for every rule.
 *   <li><b>A key-only delete leaves no row elsewhere.</b> A delete that carried nothing but its key
 *       names the empty partition of a table partitioned outside its key, while the row may be in
 *       another; its writer fails it when another partition holds the key as far as it sees, and
 *       its result lists the ones that found no row ({@link
 *       PartitionWriteResult#unmatchedKeyOnlyDeletes()}). Right before each attempt writes its
 *       version — after the re-merges and unions — the committer checks that, after that version,
 *       no partition other than the one such a delete named holds its key; else another writer
 *       added the row (in this checkpoint, or an earlier one the delete's writer did not see
 *       committed) and the checkpoint fails ({@link KeyOnlyDeleteRule}): no version is written, and
 *       the attempt's files go as after any failed attempt (the re-merge and union outputs no
 *       attempt carried are deleted; the writers' files stay theirs). The named partition itself is
 *       merged again when it changed (rule 5), deleting the key there.
 * </ol>
 */
public final class CheckpointCommitter {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommitter.class);

    private final MergeTable table;
    private final PartitionMerger merger;

    /** The merger of partitions several writers share: it owns none of their files. */
    private final PartitionMerger sharingMerger;

    private final FileReclaimer reclaimer;
    private final KeyOnlyDeleteRule keyOnlyDeletes;
    private final int commitRetries;
    private final JournalSweep sweep;
    private final String ownAppId;
    private final long restoredCheckpointId;

    /** A committer of checkpoints prepared elsewhere (tools, tests): it sweeps its own entries. */
    public CheckpointCommitter(MergeTable table, PartitionMerger merger, MergeOptions options) {
        this(table, merger, options, null, 0);
    }

    /**
     * @param ownAppId the app id of the checkpoints this job prepares
     * @param restoredCheckpointId the checkpoint the job restored, 0 for none
     */
    public CheckpointCommitter(
            MergeTable table,
            PartitionMerger merger,
            MergeOptions options,
            String ownAppId,
            long restoredCheckpointId) {
        this.table = table;
        this.merger = merger;
        this.sharingMerger = merger.sharing(WriterShare.NONE_OWNED);
        this.reclaimer = new FileReclaimer(table);
        this.keyOnlyDeletes =
                new KeyOnlyDeleteRule(table.schema(), table.location(), table.files(), merger);
        this.commitRetries = options.commitRetries();
        this.sweep = new JournalSweep(table, ownAppId, restoredCheckpointId);
        this.ownAppId = ownAppId;
        this.restoredCheckpointId = restoredCheckpointId;
    }

    public CommitOutcome commit(CheckpointResults checkpoint) {
        Map<PartitionValues, List<PartitionWriteResult>> current = byPartition(checkpoint);
        boolean record = mustBeRecorded(checkpoint, current);
        if (current.isEmpty() && !record) {
            return new CommitOutcome(
                    CommitOutcome.Status.NOTHING_TO_COMMIT, -1, UpsertStats.EMPTY, 0, 0);
        }
        Attempts attempts = new Attempts(checkpoint, record);
        try {
            CommitOutcome outcome;
            try {
                outcome = attempts.run(current);
            } catch (RuntimeException e) {
                attempts.abandon();
                throw e;
            }
            closeLineageIfEnded(checkpoint);
            return outcome;
        } finally {
            try {
                sweep.afterCommit(checkpoint.appId(), checkpoint.checkpointId());
            } catch (RuntimeException e) {
                LOG.warn(
                        "Could not clean up files of earlier commit attempts in {}: {}",
                        table.location(),
                        e.toString());
            }
        }
    }

    /** Whether {@code checkpoint} ends the input of every writer of this job's lineage. */
    private boolean endsOwnLineage(CheckpointResults checkpoint) {
        return checkpoint.endsInput() && (ownAppId == null || ownAppId.equals(checkpoint.appId()));
    }

    /**
     * Whether {@code checkpoint} must get a version of its own even if it changes nothing: the
     * checkpoint that ends the lineage, when its writers left results or notes. Only a checkpoint
     * the log records is resolved — the lineage's files can then be cleaned up, and a replay after
     * a restore is recognized as committed — so an end that would commit nothing commits its
     * transaction id alone.
     */
    private boolean mustBeRecorded(
            CheckpointResults checkpoint,
            Map<PartitionValues, List<PartitionWriteResult>> current) {
        if (!endsOwnLineage(checkpoint)) {
            return false;
        }
        return !current.isEmpty() || !table.journal().entries(checkpoint.appId()).isEmpty();
    }

    /**
     * After a checkpoint that ends the input of every writer of this job's lineage: cleans up what
     * the lineage left, best effort — the checkpoint is resolved, what is left is upkeep (VACUUM's
     * if this fails).
     */
    private void closeLineageIfEnded(CheckpointResults checkpoint) {
        if (!endsOwnLineage(checkpoint)) {
            return;
        }
        try {
            closeLineage(checkpoint);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not clean up the files of the finished job in {}: {}",
                    table.location(),
                    e.toString());
        }
    }

    /**
     * The results by partition: one per partition when the sink is distributed by partition, one
     * per writer that changed it when by key ({@link SharedPartitionResults} combines those).
     */
    /**
     * The checkpoint's results by partition, whose values are in the partition columns' current
     * types: the results may come from a job's state that predates another writer's widening.
     */
    private Map<PartitionValues, List<PartitionWriteResult>> byPartition(
            CheckpointResults checkpoint) {
        Map<PartitionValues, List<PartitionWriteResult>> current = new LinkedHashMap<>();
        for (PartitionWriteResult decoded : checkpoint.results()) {
            PartitionWriteResult result = WidenedValues.conformPartition(decoded, table.schema());
            current.computeIfAbsent(result.partition(), partition -> new ArrayList<>()).add(result);
        }
        return current;
    }

    /** The attempts to land one checkpoint, and the files its re-merges wrote. */
    private final class Attempts {
        private final String appId;
        private final long checkpointId;

        /** Whether the checkpoint is committed even when it changes nothing. */
        private final boolean recordEvenIfEmpty;

        private final AttemptJournal.Entry journalEntry;
        private final Map<String, DataFile> writtenHere = new HashMap<>();

        /** The stats of each commit attempt made, by the set of file names it added. */
        private final Map<Set<String>, UpsertStats> attemptedStats = new HashMap<>();

        private long notCommittedAt;

        /** The partition columns of the versions restored results were merged against. */
        private final Map<Long, List<String>> partitioningAt = new HashMap<>();

        private final Map<Long, List<String>> lostColumnsAt = new HashMap<>();

        private int remerged;
        private boolean recorded;
        private Exception lastFailure;
        private boolean lastFailureWasStorage;

        Attempts(CheckpointResults checkpoint, boolean recordEvenIfEmpty) {
            this.recordEvenIfEmpty = recordEvenIfEmpty;
            this.appId = checkpoint.appId();
            this.checkpointId = checkpoint.checkpointId();
            this.notCommittedAt = checkpoint.notCommittedAt();
            this.journalEntry =
                    new AttemptJournal.Entry(
                            appId,
                            checkpointId,
                            AttemptJournal.COMMITTER_PREFIX
                                    + UUID.randomUUID().toString().substring(0, 8),
                            -1,
                            List.of());
        }

        CommitOutcome run(Map<PartitionValues, List<PartitionWriteResult>> byPartition) {
            Set<PartitionValues> remergedPartitions = new HashSet<>();
            // Partitions merged again here: from then on, their result is the redone one.
            Map<PartitionValues, PartitionWriteResult> redone = new HashMap<>();
            Set<PartitionValues> shared = new HashSet<>();
            byPartition.forEach(
                    (partition, results) -> {
                        if (results.stream().anyMatch(SharedPartitionResults::isShared)) {
                            shared.add(partition);
                        }
                    });
            for (int attempt = 1; attempt <= commitRetries + 1; attempt++) {
                TableSnapshot snapshot = table.latestSnapshot();
                FileReclaimer.Landing landing =
                        reclaimer.find(snapshot, appId, checkpointId, notCommittedAt);
                if (landing.isResolved()) {
                    return landed(snapshot, landing, attempt, remergedPartitions.size());
                }
                // Not committed at this version: a valid (and closer) start for later lookups.
                notCommittedAt = snapshot.version();
                if (attempt == 1 && isRestored()) {
                    byPartition.values().forEach(this::requireFilesExist);
                    byPartition.values().forEach(this::requireSamePartitioning);
                    byPartition.values().forEach(this::requireNoColumnLost);
                }
                Map<PartitionValues, PartitionWriteResult> current;
                try {
                    Map<PartitionValues, List<DataFile>> live =
                            snapshot.liveFiles(byPartition.keySet());
                    // Only once the log shows the checkpoint is not in it: a committed one's
                    // writers may have deleted the vector files a union reads.
                    current = combine(snapshot, byPartition, live, redone);
                    dropStaleCompactions(snapshot, live, current);
                    remergeChanged(snapshot, live, current, remergedPartitions, shared);
                    for (PartitionValues partition : remergedPartitions) {
                        redone.put(partition, current.get(partition));
                    }
                    keyOnlyDeletes.require(
                            snapshot, current, "Checkpoint " + checkpointId + " of app " + appId);
                } catch (RuntimeException e) {
                    // A file it reads may be gone because another job committed this very
                    // checkpoint (a job started from its savepoint) and cleaned up: look again.
                    TableSnapshot latest = table.latestSnapshot();
                    FileReclaimer.Landing again =
                            reclaimer.find(latest, appId, checkpointId, notCommittedAt);
                    if (again.isResolved()) {
                        return landed(latest, again, attempt, remergedPartitions.size());
                    }
                    throw e;
                }
                TableCommit commit = toCommit(appId, checkpointId, current.values());
                UpsertStats stats = total(current.values());
                if (commit.isEmpty() && !recordEvenIfEmpty) {
                    release(snapshot, Set.of());
                    return new CommitOutcome(
                            CommitOutcome.Status.NOTHING_TO_COMMIT,
                            -1,
                            stats,
                            attempt,
                            remergedPartitions.size());
                }
                attemptedStats.put(addedNames(commit), stats);
                noteWrittenFiles();
                try {
                    long version = snapshot.commit(commit);
                    release(snapshot, addedNames(commit));
                    return new CommitOutcome(
                            CommitOutcome.Status.COMMITTED,
                            version,
                            stats.withVersion(version),
                            attempt,
                            remergedPartitions.size());
                } catch (ConcurrentCommitException e) {
                    lastFailure = e;
                    lastFailureWasStorage = false;
                    LOG.info(
                            "Version {} of table {} exists already (attempt {} of {} to commit"
                                    + " checkpoint {}); reading the log to see whose it is.",
                            snapshot.version() + 1,
                            table.location(),
                            attempt,
                            commitRetries + 1,
                            checkpointId);
                } catch (CommitOutcomeUnknownException e) {
                    lastFailure = e;
                    lastFailureWasStorage = true;
                    LOG.warn(
                            "Storage failed while committing checkpoint {} to table {} as version"
                                    + " {} (attempt {} of {}); the log will tell whether it"
                                    + " landed: {}",
                            checkpointId,
                            table.location(),
                            snapshot.version() + 1,
                            attempt,
                            commitRetries + 1,
                            rootMessage(e));
                }
                backOff(attempt);
            }
            TableSnapshot last = table.latestSnapshot();
            FileReclaimer.Landing landing =
                    reclaimer.find(last, appId, checkpointId, notCommittedAt);
            if (landing.isResolved()) {
                return landed(last, landing, commitRetries + 1, remergedPartitions.size());
            }
            throw failure(byPartition.keySet());
        }

        /**
         * One result per partition, for this attempt: the redone one where this committer merged
         * the partition again; else the writers' results combined on the live files ({@link
         * SharedPartitionResults}), whose union vector files are noted at once.
         */
        private Map<PartitionValues, PartitionWriteResult> combine(
                TableSnapshot snapshot,
                Map<PartitionValues, List<PartitionWriteResult>> byPartition,
                Map<PartitionValues, List<DataFile>> live,
                Map<PartitionValues, PartitionWriteResult> redone) {
            Map<PartitionValues, PartitionWriteResult> combined = new LinkedHashMap<>();
            for (Map.Entry<PartitionValues, List<PartitionWriteResult>> entry :
                    byPartition.entrySet()) {
                PartitionWriteResult again = redone.get(entry.getKey());
                if (again != null) {
                    combined.put(entry.getKey(), again);
                    continue;
                }
                SharedPartitionResults.Combined shared =
                        SharedPartitionResults.combine(
                                entry.getValue(),
                                live.getOrDefault(entry.getKey(), List.of()),
                                baseVersion -> onlyOwnCommitsSince(snapshot, baseVersion),
                                table.files(),
                                table.files()::newDeletionVectorSink);
                if (shared.vectorFile() != null) {
                    writtenHere.put(shared.vectorFile(), DataFile.atPath(shared.vectorFile()));
                    recorded = false;
                    noteWrittenFiles();
                }
                combined.put(entry.getKey(), shared.result());
            }
            return combined;
        }

        /**
         * Whether every version after {@code baseVersion} commits a checkpoint of this job's
         * lineage that this job attempt prepared (after the checkpoint it restored): the writers
         * that prepared them owned other keys than any writer of this attempt.
         */
        private boolean onlyOwnCommitsSince(TableSnapshot snapshot, long baseVersion) {
            if (baseVersion >= snapshot.version()) {
                return true;
            }
            if (ownAppId == null || !ownAppId.equals(appId)) {
                return false;
            }
            java.util.Optional<List<CommitRecord>> commits = snapshot.commitsAfter(baseVersion);
            if (commits.isEmpty()) {
                return false;
            }
            for (CommitRecord commit : commits.get()) {
                java.util.OptionalLong checkpoint = commit.transaction(appId);
                if (commit.version() > baseVersion
                        && (checkpoint.isEmpty()
                                || checkpoint.getAsLong() <= restoredCheckpointId)) {
                    return false;
                }
            }
            return true;
        }

        /** Drops each compaction that read a file which is no longer live as it read it. */
        private void dropStaleCompactions(
                TableSnapshot snapshot,
                Map<PartitionValues, List<DataFile>> live,
                Map<PartitionValues, PartitionWriteResult> current) {
            for (Map.Entry<PartitionValues, PartitionWriteResult> entry : current.entrySet()) {
                PartitionWriteResult result = entry.getValue();
                if (result.compaction().isEmpty()
                        || result.compaction()
                                .isValidOn(live.getOrDefault(entry.getKey(), List.of()))) {
                    continue;
                }
                LOG.info(
                        "Another writer changed files that checkpoint {} compacted in partition {}"
                                + " of table {} (version {}); committing the checkpoint without"
                                + " that compaction.",
                        checkpointId,
                        result.partition().describe(table.schema().partitionColumns()),
                        table.location(),
                        snapshot.version());
                entry.setValue(result.withoutCompaction());
            }
        }

        /** Merges again each partition another writer changed since its result was planned. */
        private void remergeChanged(
                TableSnapshot snapshot,
                Map<PartitionValues, List<DataFile>> live,
                Map<PartitionValues, PartitionWriteResult> current,
                Set<PartitionValues> remergedPartitions,
                Set<PartitionValues> shared) {
            if (table.schema().isAppendOnly()) {
                // Appends add files and remove none: Kernel puts them on top of any version.
                return;
            }
            for (Map.Entry<PartitionValues, PartitionWriteResult> entry : current.entrySet()) {
                List<DataFile> liveFiles = live.getOrDefault(entry.getKey(), List.of());
                PartitionWriteResult result = entry.getValue();
                if (result.changesNoData()) {
                    // Only a compaction (a maintenance pass): its own rule, checked above, is
                    // all it needs; files others added meanwhile do not make it stale.
                    continue;
                }
                // Vectors are only valid on the files they were planned against, and only while
                // the table allows them (someone may have turned them off meanwhile).
                if (LiveSetFingerprint.of(liveFiles).equals(result.baseFingerprint())
                        && (result.filesWithDeletionVectors().isEmpty()
                                || snapshot.allowsDeletionVectors())) {
                    continue;
                }
                LOG.info(
                        "Partition {} of table {} changed since checkpoint {} was merged; merging"
                                + " it again against version {}.",
                        result.partition().describe(table.schema().partitionColumns()),
                        table.location(),
                        checkpointId,
                        snapshot.version());
                PartitionWriteResult redone =
                        remerge(snapshot, result, liveFiles, shared.contains(entry.getKey()));
                redone.survivorFiles().forEach(file -> writtenHere.put(file.path(), file));
                rewrittenUpsertFiles(result, redone)
                        .forEach(file -> writtenHere.put(file.path(), file));
                redone.vectorFilePaths()
                        .forEach(path -> writtenHere.put(path, DataFile.atPath(path)));
                recorded = false;
                // Noted at once: a failure before the commit leaves them findable.
                noteWrittenFiles();
                entry.setValue(redone);
                remergedPartitions.add(entry.getKey());
                remerged++;
            }
        }

        /**
         * One partition merged again; its deletion vectors (if any) are in a file of its own.
         *
         * @param shared whether several writers share the partition: then files are marked, not
         *     rewritten where marking will do, so that the writers' next results still compose
         */
        private PartitionWriteResult remerge(
                TableSnapshot snapshot,
                PartitionWriteResult stale,
                List<DataFile> liveFiles,
                boolean shared) {
            DeletionVectorSink vectors = merger.newDeletionVectorSink(snapshot);
            PartitionWriteResult redone;
            try {
                redone =
                        (shared ? sharingMerger : merger)
                                .remerge(stale, liveFiles, snapshot.version(), vectors);
            } catch (RuntimeException e) {
                if (vectors != null) {
                    vectors.discard();
                }
                if (e instanceof UnreadableDataFileException unreadable) {
                    throw unreadable.atVersion(snapshot.version());
                }
                throw e;
            }
            if (vectors != null) {
                if (!redone.vectorFilePaths().contains(vectors.path())) {
                    // Every vector it took was replaced by a later chunk of the re-merge.
                    vectors.discard();
                    return redone;
                }
                try {
                    vectors.close();
                } catch (RuntimeException e) {
                    redone.survivorFiles().forEach(table.files()::deleteUncommitted);
                    rewrittenUpsertFiles(stale, redone).forEach(table.files()::deleteUncommitted);
                    throw e;
                }
            }
            return redone;
        }

        /**
         * The upsert files of {@code redone} that {@code stale} did not have: in a table that
         * tracks rows, those whose row ids had to change, written anew by the re-merge.
         */
        private static List<DataFile> rewrittenUpsertFiles(
                PartitionWriteResult stale, PartitionWriteResult redone) {
            Set<String> planned = new HashSet<>();
            stale.upsertFiles().forEach(file -> planned.add(file.path()));
            List<DataFile> rewritten = new ArrayList<>();
            for (DataFile file : redone.upsertFiles()) {
                if (!planned.contains(file.path())) {
                    rewritten.add(file);
                }
            }
            return rewritten;
        }

        /**
         * This call fails (storage, interruption): the re-merge outputs that no commit attempt
         * carried can never be committed, and nobody else knows them — delete them. Those an
         * attempt carried may still land (an unknown outcome); their note stays for the sweep.
         */
        void abandon() {
            Set<String> attempted = new HashSet<>();
            attemptedStats.keySet().forEach(attempted::addAll);
            for (DataFile file : writtenHere.values()) {
                if (!attempted.contains(FileReclaimer.name(file.path()))) {
                    table.files().deleteUncommitted(file);
                }
            }
        }

        /** A checkpoint restored from state (or from another job): its files may be long gone. */
        private boolean isRestored() {
            return checkpointId <= restoredCheckpointId
                    || (ownAppId != null && !ownAppId.equals(appId));
        }

        private void requireFilesExist(Iterable<PartitionWriteResult> results) {
            for (PartitionWriteResult result : results) {
                for (String path : result.writtenPaths()) {
                    if (!table.files().exists(path)) {
                        throw new DeltaLiteException(
                                "Checkpoint "
                                        + checkpointId
                                        + " of app "
                                        + appId
                                        + ", restored from a savepoint or checkpoint, cannot be"
                                        + " committed to table "
                                        + table.location()
                                        + ": its file "
                                        + path
                                        + " no longer exists. VACUUM deletes files no version"
                                        + " references after its retention period, so a savepoint"
                                        + " older than that cannot be committed. Restore a newer"
                                        + " savepoint, or start the job without state.");
                    }
                }
            }
        }

        /**
         * Refuses restored results merged when the table had other partition columns (it was
         * replaced since, as {@code REPLACE TABLE … PARTITIONED BY} does): their files hold rows
         * and folders of the old partitioning, and committed as partitions of the new one would
         * lose the old partition column's values.
         */
        /**
         * Refuses restored results whose files hold a column's values under a name by which the
         * table no longer reads them (another writer dropped the column, or turned column mapping
         * off, after the merge): committed, those values would read as null, and a re-merge would
         * read the files the same wrong way.
         */
        private void requireNoColumnLost(Iterable<PartitionWriteResult> results) {
            for (PartitionWriteResult result : results) {
                if (result.baseVersion() < 0) {
                    continue;
                }
                List<String> lost =
                        lostColumnsAt.computeIfAbsent(
                                result.baseVersion(), table::columnsLostSince);
                if (!lost.isEmpty()) {
                    throw new DeltaLiteSchemaMismatchException(
                            "Checkpoint "
                                    + checkpointId
                                    + " of app "
                                    + appId
                                    + ", restored from a savepoint or checkpoint, was written when"
                                    + " the Delta table at "
                                    + table.location()
                                    + " stored columns "
                                    + lost
                                    + " under names by which it no longer reads them (version "
                                    + result.baseVersion()
                                    + " then; since, another writer dropped them or changed the"
                                    + " table's column mapping). Committed, the checkpoint's"
                                    + " values of them would be lost. Nothing was committed; start"
                                    + " the job without its state (the changes of that checkpoint"
                                    + " are then not written: replay them from the source).");
                }
            }
        }

        private void requireSamePartitioning(Iterable<PartitionWriteResult> results) {
            List<String> now = table.schema().partitionColumns();
            for (PartitionWriteResult result : results) {
                // Whatever the log still tells: a partition of another number of columns never
                // belongs to this partitioning.
                boolean otherCount = result.partition().values().size() != now.size();
                if (result.baseVersion() < 0 && !otherCount) {
                    continue;
                }
                List<String> then =
                        result.baseVersion() < 0
                                ? now
                                : partitioningAt.computeIfAbsent(
                                        result.baseVersion(),
                                        version -> table.partitionColumnsAt(version).orElse(now));
                if (otherCount && then.equals(now)) {
                    then = List.of("? (" + result.partition().values().size() + " columns)");
                }
                if (!then.equals(now)) {
                    throw new DeltaLiteSchemaMismatchException(
                            "Checkpoint "
                                    + checkpointId
                                    + " of app "
                                    + appId
                                    + ", restored from a savepoint or checkpoint, was merged"
                                    + " when the Delta table at "
                                    + table.location()
                                    + " was partitioned by "
                                    + then
                                    + " (version "
                                    + result.baseVersion()
                                    + "), but it is now partitioned by "
                                    + now
                                    + ": the table was replaced. Its files cannot be committed"
                                    + " by the new partitioning. Nothing was committed; start the"
                                    + " job without its state (the changes of that checkpoint"
                                    + " are then not written: replay them from the source).");
                }
            }
        }

        /** Notes the re-merge outputs before a commit can take them, in case this process dies. */
        private void noteWrittenFiles() {
            if (recorded || writtenHere.isEmpty()) {
                return;
            }
            table.journal()
                    .record(
                            new AttemptJournal.Entry(
                                    appId,
                                    checkpointId,
                                    journalEntry.owner(),
                                    notCommittedAt,
                                    new ArrayList<>(writtenHere.keySet())));
            recorded = true;
        }

        /** The checkpoint is in the log: keep what the version took, delete the rest. */
        private CommitOutcome landed(
                TableSnapshot snapshot,
                FileReclaimer.Landing landing,
                int attempts,
                int remergedPartitions) {
            if (landing.status() == FileReclaimer.Status.COMMITTED) {
                release(snapshot, landing);
                UpsertStats ours = attemptedStats.get(landing.addedNames());
                if (ours != null) {
                    // One of this committer's attempts landed though it reported an error.
                    LOG.info(
                            "Checkpoint {} landed in table {} as version {} although its commit"
                                    + " reported an error.",
                            checkpointId,
                            table.location(),
                            landing.version());
                    return new CommitOutcome(
                            CommitOutcome.Status.COMMITTED,
                            landing.version(),
                            ours.withVersion(landing.version()),
                            attempts,
                            remergedPartitions);
                }
            } else if (landing.status() == FileReclaimer.Status.SKIPPED) {
                release(snapshot, landing);
            } else if (!writtenHere.isEmpty()) {
                LOG.warn(
                        "Checkpoint {} is committed in table {}, but the log no longer says by"
                                + " which version; leaving {} re-merged file(s) to VACUUM.",
                        checkpointId,
                        table.location(),
                        writtenHere.size());
                table.journal().remove(journalEntry);
            }
            return new CommitOutcome(
                    CommitOutcome.Status.ALREADY_COMMITTED,
                    -1,
                    UpsertStats.EMPTY,
                    attempts,
                    remergedPartitions);
        }

        private void release(TableSnapshot snapshot, FileReclaimer.Landing landing) {
            reclaimer.reclaim(snapshot, landing, writtenHere.keySet(), true);
            table.journal().remove(journalEntry);
        }

        /** After a commit of known content: the re-merge outputs it did not take are garbage. */
        private void release(TableSnapshot snapshot, Set<String> addedNames) {
            release(snapshot, FileReclaimer.Landing.committedHere(addedNames));
        }

        private DeltaLiteException failure(Set<PartitionValues> partitions) {
            List<String> touched = new ArrayList<>();
            partitions.forEach(p -> touched.add(p.describe(table.schema().partitionColumns())));
            if (lastFailureWasStorage) {
                return new DeltaLiteStorageException(
                        "Checkpoint "
                                + checkpointId
                                + " could not be committed to table "
                                + table.location()
                                + ": writing the Delta log failed "
                                + (commitRetries + 1)
                                + " times, last with: "
                                + rootMessage(lastFailure)
                                + ". Nothing of it is in the table. Check that the table's"
                                + " _delta_log is writable and the storage is reachable; the"
                                + " job restarts and commits the checkpoint then.",
                        lastFailure);
            }
            return new DeltaLiteCommitConflictException(
                    "Checkpoint "
                            + checkpointId
                            + " could not be committed to table "
                            + table.location()
                            + " after "
                            + (commitRetries + 1)
                            + " attempts: other writers kept committing, touching partitions "
                            + touched
                            + ". The job fails and replays the checkpoint after its"
                            + " restart. If several jobs write the same partitions, give each its"
                            + " own partitions, or raise 'commit-retries'.");
        }
    }

    /**
     * After the end-of-input checkpoint of this job's lineage no writer of it merges again: the
     * files of its checkpoints that no version took (the writers' survivors a re-merge replaced,
     * staged keys, unprepared files) are deleted, and its journal with them. Only for the own
     * lineage: another job's may still be running.
     */
    private void closeLineage(CheckpointResults checkpoint) {
        String appId = checkpoint.appId();
        TableSnapshot snapshot = table.latestSnapshot();
        FileReclaimer.Landing last =
                reclaimer.find(
                        snapshot, appId, checkpoint.checkpointId(), checkpoint.notCommittedAt());
        List<AttemptJournal.Entry> entries = table.journal().entries(appId);
        for (AttemptJournal.Entry entry : entries) {
            if (WriterJournal.isUnprepared(entry)) {
                // Files no checkpoint took (in batch mode: all of them): those the lineage's last
                // commit, or any commit since the note, took stay.
                if (last.isResolved()) {
                    WriterJournal.reclaimUnprepared(
                            table,
                            snapshot,
                            entry,
                            entries,
                            last.status() == FileReclaimer.Status.COMMITTED ? last : null);
                    table.journal().remove(entry);
                }
                continue;
            }
            FileReclaimer.Landing landing =
                    reclaimer.find(snapshot, appId, entry.checkpointId(), entry.notCommittedAt());
            if (landing.isResolved()) {
                if (landing.status() != FileReclaimer.Status.UNKNOWN) {
                    reclaimer.reclaim(snapshot, landing, entry.files(), true);
                }
                table.journal().remove(entry);
            }
        }
    }

    /**
     * Waits a random time that grows with the attempt (up to 2 s), so that writers who keep
     * colliding spread out instead of colliding again.
     */
    private static void backOff(int attempt) {
        long ceiling = Math.min(2_000, 20L << Math.min(attempt, 10));
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to retry a commit", e);
        }
    }

    private static String rootMessage(Throwable error) {
        Throwable root = Causes.root(error);
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    private static TableCommit toCommit(
            String appId, long checkpointId, Iterable<PartitionWriteResult> results) {
        Map<PartitionValues, List<DataFile>> removed = new HashMap<>();
        Map<PartitionValues, List<DataFile>> added = new HashMap<>();
        Map<PartitionValues, List<DataFile>> compacted = new HashMap<>();
        Map<PartitionValues, List<DataFile>> compactedInto = new HashMap<>();
        for (PartitionWriteResult result : results) {
            putIfAny(removed, result.partition(), result.removedFiles());
            putIfAny(added, result.partition(), result.addedFiles());
            putIfAny(compacted, result.partition(), result.compaction().inputs());
            putIfAny(compactedInto, result.partition(), result.compaction().outputs());
        }
        return new TableCommit(appId, checkpointId, removed, added, compacted, compactedInto);
    }

    private static void putIfAny(
            Map<PartitionValues, List<DataFile>> files,
            PartitionValues partition,
            List<DataFile> these) {
        if (!these.isEmpty()) {
            files.put(partition, these);
        }
    }

    /** The names of the files a commit adds, as the log lists them: data and vector files. */
    private Set<String> addedNames(TableCommit commit) {
        Set<String> names = new HashSet<>();
        for (List<DataFile> files : commit.compactedInto().values()) {
            files.forEach(file -> names.add(FileReclaimer.name(file.path())));
        }
        for (List<DataFile> files : commit.added().values()) {
            for (DataFile file : files) {
                names.add(FileReclaimer.name(file.path()));
                if (file.hasDeletionVector()) {
                    String vectorFile = table.files().deletionVectorPath(file.deletionVector());
                    if (vectorFile != null) {
                        names.add(FileReclaimer.name(vectorFile));
                    }
                }
            }
        }
        return names;
    }

    private static UpsertStats total(Iterable<PartitionWriteResult> results) {
        UpsertStats total = UpsertStats.EMPTY;
        for (PartitionWriteResult result : results) {
            total = total.plus(result.stats());
        }
        return total;
    }
}
