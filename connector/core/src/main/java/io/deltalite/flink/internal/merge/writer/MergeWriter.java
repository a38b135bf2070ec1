package io.deltalite.flink.internal.merge.writer;

import io.deltalite.flink.internal.merge.changes.BufferBudget;
import io.deltalite.flink.internal.merge.changes.ChangeBuffer;
import io.deltalite.flink.internal.merge.changes.PartitionChanges;
import io.deltalite.flink.internal.merge.compaction.PartitionCompactor;
import io.deltalite.flink.internal.merge.index.KeyIndex;
import io.deltalite.flink.internal.merge.journal.WriterJournal;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.probe.ParallelFileWork;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.Compaction;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.PendingCheckpoint;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.table.DeletionVectorSink;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.table.UnreadableDataFileException;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.sink.UpsertStats;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine side of one sink writer: it buffers changes, merges them partition by partition, and
 * remembers what it merged until the table shows it committed.
 *
 * <p>Each merge plans against a <em>view</em> of the partition: the latest committed snapshot, plus
 * the results of earlier checkpoints that are not committed yet (a commit is late or being
 * retried), plus the results of earlier merges of the current checkpoint (when the buffer ran over
 * its budget and was merged early). So a key written in checkpoint N and updated in N+1 ends up as
 * exactly one row, whatever the timing of N's commit.
 *
 * <p>The last merge of a checkpoint also compacts the partitions it touched ({@link
 * PartitionCompactor}), within {@code compaction.max-bytes-per-checkpoint}: only committed files
 * that neither this checkpoint nor a pending one removes or adds, so that the compaction depends on
 * nothing but the files it read (see {@link Compaction}). In deletion-vector mode the same budget
 * first pays for the bins the merge folds: bins compaction would take that hold changed keys, which
 * the merge rewrites without the changed rows instead of marking them ({@link PartitionMerger}).
 *
 * <p>Not thread-safe: one writer thread calls it. Partition merges run on an internal pool of
 * {@code maxParallelPartitions} threads.
 */
public final class MergeWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MergeWriter.class);

    /** A partition's merge that takes this long is logged at info level ({@link #logIfSlow}). */
    static final long SLOW_MERGE_MILLIS = 1_000;

    private final MergeTable table;
    private final MergeOptions options;
    private final String appId;
    private final PartitionMerger merger;
    private final PartitionCompactor compactor;
    private final BufferBudget bufferBudget;
    private final ChangeBuffer buffer;
    private final KeyIndexAhead indexAhead;
    private final ExecutorService partitionPool;
    private final ParallelFileWork partitions;
    private final int subtask;
    private final WriterJournal journal;
    private final WriterShare share;
    private final int parallelism;
    private final int maxParallelPartitions;
    private final ExecutorService fileExecutor;

    /** Checkpoints prepared (or restored) and not yet seen committed. */
    private final PendingCheckpoints pending;

    /** Results of the current checkpoint so far (early merges). */
    private final Map<PartitionValues, PartitionWriteResult> current = new LinkedHashMap<>();

    private List<PartitionWriteResult> lastPrepared = List.of();

    public MergeWriter(
            MergeTable table,
            MergeOptions options,
            String appId,
            int maxParallelPartitions,
            ExecutorService fileExecutor) {
        this(table, options, appId, 0, 1, maxParallelPartitions, fileExecutor);
    }

    /**
     * @param subtask the writer's index among the sink's writers, which names its journal entries
     * @param parallelism the number of writer subtasks
     */
    public MergeWriter(
            MergeTable table,
            MergeOptions options,
            String appId,
            int subtask,
            int parallelism,
            int maxParallelPartitions,
            ExecutorService fileExecutor) {
        this(
                table,
                options,
                appId,
                subtask,
                parallelism,
                maxParallelPartitions,
                fileExecutor,
                WriterShare.WHOLE_PARTITIONS);
    }

    /**
     * @param subtask the writer's index among the sink's writers, which names its journal entries
     * @param parallelism the number of writer subtasks
     * @param share the part of each partition's changes this writer gets
     */
    public MergeWriter(
            MergeTable table,
            MergeOptions options,
            String appId,
            int subtask,
            int parallelism,
            int maxParallelPartitions,
            ExecutorService fileExecutor,
            WriterShare share) {
        this.share = share;
        this.subtask = subtask;
        this.parallelism = parallelism;
        this.maxParallelPartitions = maxParallelPartitions;
        this.fileExecutor = fileExecutor;
        this.journal = new WriterJournal(table, appId, subtask, parallelism);
        this.table = table;
        this.options = options;
        this.appId = appId;
        this.merger = new PartitionMerger(table, options, fileExecutor, share);
        this.compactor = new PartitionCompactor(table, options);
        this.pending = new PendingCheckpoints(table, appId);
        this.bufferBudget = BufferBudget.forWriter(options.maxBufferedBytes());
        this.indexAhead =
                new KeyIndexAhead(
                        table,
                        merger,
                        WriterThreads.prefix("key-index", table.location(), subtask));
        this.buffer =
                new ChangeBuffer(
                        table,
                        options.nullKeyPolicy(),
                        bufferBudget,
                        indexAhead::firstChange,
                        getsEveryChangeOfItsKeys());
        this.partitionPool =
                maxParallelPartitions > 1
                        ? Executors.newFixedThreadPool(
                                maxParallelPartitions,
                                WriterThreads.daemon(
                                        WriterThreads.prefix(
                                                "partition-merge", table.location(), subtask)))
                        : null;
        this.partitions = new ParallelFileWork(partitionPool);
    }

    public void upsert(Object[] row) {
        buffer.upsert(row);
        mergeEarlyIfOverBudget();
    }

    public void delete(Object[] row) {
        buffer.delete(row);
        mergeEarlyIfOverBudget();
    }

    public long bufferedBytes() {
        return buffer.estimatedBytes();
    }

    private void mergeEarlyIfOverBudget() {
        long budget = bufferBudget.bytes();
        if (buffer.estimatedBytes() <= budget) {
            return;
        }
        Map<PartitionValues, PartitionChanges> largest = buffer.drainLargestUntil(budget / 2);
        LOG.info(
                "Change buffer of table {} is over its budget of {} bytes; merging {} partition(s)"
                        + " early. Their results stay pending until the checkpoint.",
                table.location(),
                budget,
                largest.size());
        merge(largest, false);
    }

    /**
     * Merges everything buffered and returns the results of the checkpoint being prepared: one per
     * partition changed since the previous checkpoint.
     */
    public List<PartitionWriteResult> prepare() {
        if (!lastPrepared.isEmpty()) {
            // The checkpoint that took them failed to note them (its state was not taken), yet
            // they went to the committer: their fate is unknown here, so this writer restarts.
            throw new IllegalStateException(
                    "The results this writer of "
                            + table.location()
                            + " prepared for the previous checkpoint were never noted in its"
                            + " state; the writer restarts from the last completed checkpoint.");
        }
        merge(buffer.drainAll(), true);
        List<PartitionWriteResult> results = new ArrayList<>(current.values());
        current.clear();
        lastPrepared = results;
        noteUnprepared();
        return results;
    }

    /**
     * Merges everything buffered now, as the buffer's budget would: the results stay with the
     * checkpoint in progress, and {@link #prepare()} hands them on with the rest. Before the
     * table's schema is changed under this writer (a Flink CDC pipeline flushes every writer before
     * it applies a schema change), so that no buffered change waits for a merge the changed table
     * would refuse ({@link #continuedOn}).
     */
    public void mergeBuffered() {
        if (!buffer.isEmpty()) {
            merge(buffer.drainAll(), false);
        }
    }

    /**
     * This writer, continued on {@code changed}: the same table, opened again after its schema
     * changed in a way that keeps every file this writer wrote readable (columns added, types
     * widened, NOT NULL relaxed; renames and drops by column mapping). The successor takes over the
     * merges of the checkpoint in progress and the pending checkpoints (its view of the table is
     * this writer's), and builds its key index anew; this writer is closed. Nothing may be buffered
     * ({@link #mergeBuffered()} first): buffered rows are in the old schema's columns.
     */
    public MergeWriter continuedOn(MergeTable changed) {
        if (!buffer.isEmpty()) {
            throw new IllegalStateException(
                    "The writer of "
                            + table.location()
                            + " still buffers changes in the table's old schema; merge them"
                            + " before it continues on the new one.");
        }
        MergeWriter next =
                new MergeWriter(
                        changed,
                        options,
                        appId,
                        subtask,
                        parallelism,
                        maxParallelPartitions,
                        fileExecutor,
                        share);
        for (PendingCheckpoint checkpoint : pending.all()) {
            next.pending.add(
                    new PendingCheckpoint(
                            checkpoint.appId(),
                            checkpoint.checkpointId(),
                            checkpoint.journalOwner(),
                            conformed(checkpoint.results(), changed)));
        }
        for (PartitionWriteResult result : conformed(current.values(), changed)) {
            next.current.put(result.partition(), result);
        }
        next.lastPrepared = conformed(lastPrepared, changed);
        // The successor notes the files under its own name before this writer's note goes.
        next.noteUnprepared();
        journal.forgetUnprepared();
        close();
        return next;
    }

    /** {@code results} with their partition values in the types of {@code table}'s columns now. */
    private static List<PartitionWriteResult> conformed(
            java.util.Collection<PartitionWriteResult> results, MergeTable table) {
        List<PartitionWriteResult> conformed = new ArrayList<>();
        for (PartitionWriteResult result : results) {
            conformed.add(
                    io.deltalite.flink.internal.merge.result.WidenedValues.conformPartition(
                            result, table.schema()));
        }
        return conformed;
    }

    /**
     * Records that the results of the last {@link #prepare()} belong to {@code checkpointId}: their
     * files are noted in the journal before the checkpoint can complete (if it never does, they can
     * be found), and they join the pending checkpoints of this writer's view.
     */
    public void prepared(long checkpointId) {
        if (!lastPrepared.isEmpty()) {
            PendingCheckpoint checkpoint =
                    new PendingCheckpoint(
                            appId, checkpointId, journal.preparedOwner(), lastPrepared);
            journal.notePrepared(checkpoint);
            pending.add(checkpoint);
        }
        lastPrepared = List.of();
    }

    /**
     * When the writer starts: deletes the files that an earlier start of this subtask wrote and no
     * checkpoint took (see {@link WriterJournal}). Files of checkpoints that never completed are
     * left for the committer to resolve once the log proves they never will ({@link
     * io.deltalite.flink.internal.merge.journal.JournalSweep}).
     *
     * @return the number of files deleted
     */
    public int cleanUpEarlierStarts() {
        return journal.cleanUpEarlierStarts();
    }

    /** Notes the files of the checkpoint in progress, which no checkpoint holds yet. */
    private void noteUnprepared() {
        List<PartitionWriteResult> unprepared = new ArrayList<>(current.values());
        unprepared.addAll(lastPrepared);
        List<String> files = new ArrayList<>();
        unprepared.forEach(result -> files.addAll(result.writtenPaths()));
        journal.noteUnprepared(files, CheckpointResults.notCommittedAt(unprepared));
    }

    /** Checkpoints prepared or restored that the table did not show committed yet. */
    public List<PendingCheckpoint> pending() {
        return pending.all();
    }

    /** After a restore: checkpoints of this writer's state that may still be committed. */
    public void restorePending(List<PendingCheckpoint> restored) {
        pending.restore(restored);
    }

    public String appId() {
        return appId;
    }

    /**
     * @param last whether this is the checkpoint's last merge, which may also compact
     */
    private void merge(Map<PartitionValues, PartitionChanges> changes, boolean last) {
        // No index is built ahead while a merge may use it.
        indexAhead.awaitAll();
        if (changes.isEmpty()) {
            if (!pending.isEmpty()) {
                // Nothing to merge, but an idle writer still learns of its commits and cleans up.
                pending.dropCommitted(table.latestSnapshot());
            }
            return;
        }
        TableSnapshot snapshot = table.latestSnapshot();
        pending.dropCommitted(snapshot);
        KeyHolders holders = new KeyHolders(snapshot, changes);
        if (getsEveryChangeOfItsKeys()) {
            changes = deleteKeyOnlyDeletesWhereTheirRowsAre(changes, holders);
        }
        Map<PartitionValues, List<DataFile>> live = snapshot.liveFiles(changes.keySet());
        List<Callable<PartitionWriteResult>> merges = new ArrayList<>();
        long version = snapshot.version();
        // One deletion vector file per round holds the vectors of all its partitions.
        DeletionVectorSink vectors = deletionVectorSink(snapshot);
        PartitionCompactor.Budget budget =
                last && options.compaction().enabled()
                        ? new PartitionCompactor.Budget(
                                options.compaction().maxBytesPerCheckpoint())
                        : null;
        for (PartitionChanges partitionChanges : changes.values()) {
            PartitionValues partition = partitionChanges.partition();
            List<DataFile> committed = live.getOrDefault(partition, List.of());
            View view = view(partition, committed);
            merges.add(
                    () -> {
                        long start = System.nanoTime();
                        PartitionWriteResult merged =
                                merger.merge(
                                        partitionChanges,
                                        view.files,
                                        view.freshPaths,
                                        view.ownPaths,
                                        version,
                                        vectors,
                                        getsEveryChangeOfItsKeys() ? null : holders,
                                        budget);
                        long mergedAt = System.nanoTime();
                        PartitionWriteResult result = compactAfter(merged, view, committed, budget);
                        logIfSlow(result, mergedAt - start, System.nanoTime() - mergedAt);
                        return result;
                    });
        }
        List<PartitionWriteResult> results;
        try {
            results = runAll(merges);
        } catch (RuntimeException e) {
            if (vectors != null) {
                vectors.discard();
            }
            if (e instanceof UnreadableDataFileException unreadable) {
                throw unreadable.atVersion(version);
            }
            throw e;
        }
        if (vectors != null) {
            try {
                vectors.close();
            } catch (RuntimeException e) {
                discard(results);
                throw e;
            }
        }
        for (PartitionWriteResult result : results) {
            PartitionWriteResult earlier = current.get(result.partition());
            if (earlier == null) {
                current.put(result.partition(), result);
            } else {
                // Private to this writer still: no checkpoint holds the replaced files.
                earlier.filesReplacedBy(result).forEach(table.files()::deleteUncommitted);
                current.put(result.partition(), earlier.then(result));
            }
        }
        deleteReplacedVectorFiles();
        noteUnprepared();
    }

    /**
     * Logs what a partition's merge did when it took {@value #SLOW_MERGE_MILLIS} ms or more (at
     * debug level always): the first thing to read when a checkpoint is slow — whether the time
     * went into the changes (files probed, rows copied, vectors written) or into compaction.
     */
    private void logIfSlow(PartitionWriteResult result, long mergeNanos, long compactionNanos) {
        long mergeMillis = mergeNanos / 1_000_000;
        long compactionMillis = compactionNanos / 1_000_000;
        boolean slow = mergeMillis + compactionMillis >= SLOW_MERGE_MILLIS;
        if (!slow && !LOG.isDebugEnabled()) {
            return;
        }
        try {
            UpsertStats stats = result.stats();
            Compaction compaction = result.compaction();
            String message =
                    "Partition {} of table {}: merging {} change(s) took {} ms ({} file(s) probed,"
                            + " {} row(s) copied, {} deletion vector(s), {} data file(s)"
                            + " written); compaction took {} ms ({} file(s), {} bytes read, into"
                            + " {} file(s)). The times include waiting for the writer's file"
                            + " threads.";
            Object[] args = {
                result.partition().describe(table.schema().partitionColumns()),
                table.location(),
                stats.sourceRows(),
                mergeMillis,
                stats.filesProbed(),
                stats.rowsCopied(),
                stats.deletionVectorsWritten(),
                stats.filesAdded() - stats.deletionVectorsWritten() - compaction.outputs().size(),
                compactionMillis,
                compaction.inputs().size(),
                compaction.bytesRead(),
                compaction.outputs().size()
            };
            if (slow) {
                LOG.info(message, args);
            } else {
                LOG.debug(message, args);
            }
        } catch (RuntimeException e) {
            // A log line never fails a merge.
            LOG.debug("Could not describe a merge of table {}", table.location(), e);
        }
    }

    /**
     * Whether this writer receives every change of its keys, whatever partition they name: the sink
     * is distributed by key ({@link WriterShare#keys()}), and Flink routes each key to one writer.
     * A delete that carries nothing but its key ({@link PartitionChanges#keyOnlyDeletes()}) then
     * comes after every change of the key this writer buffered or merged, and this writer deletes
     * the key's row wherever it is.
     */
    private boolean getsEveryChangeOfItsKeys() {
        return share.keys() != null;
    }

    /**
     * The round {@code round} with each of its key-only deletes applied where the key's row is, for
     * a writer that gets every change of its keys. A key-only delete names the empty partition;
     * every other partition whose written rows — the table's, this writer's pending checkpoints',
     * its earlier merges of this checkpoint — hold the key gets a delete of the key in this round,
     * unless the partition has a buffered change of the key (in this round or still buffered): that
     * change came after the delete ({@link ChangeBuffer#delete} turned the upserts that came before
     * it into deletes) and decides the row there. The named partition keeps the delete too, and its
     * result lists it among the key-only deletes that found no row there, so that the committer
     * checks no other writer's row of the key is left ({@code KeyOnlyDeleteRule}).
     */
    private Map<PartitionValues, PartitionChanges> deleteKeyOnlyDeletesWhereTheirRowsAre(
            Map<PartitionValues, PartitionChanges> round, KeyHolders holders) {
        Map<PartitionValues, PartitionChanges> planned = new LinkedHashMap<>(round);
        for (PartitionChanges named : round.values()) {
            List<RowKey> keys = named.keyOnlyDeletes();
            if (keys.isEmpty()) {
                continue;
            }
            holders.writtenRowsOf(new java.util.LinkedHashSet<>(keys), named.partition())
                    .forEach(
                            (partition, held) -> {
                                PartitionChanges changes =
                                        planned.computeIfAbsent(
                                                partition,
                                                p ->
                                                        new PartitionChanges(
                                                                table.schema(),
                                                                p,
                                                                options.nullKeyPolicy()));
                                held.forEach(changes::deleteRowOf);
                            });
        }
        return planned;
    }

    /** The schema of the table as this writer opened it. */
    public io.deltalite.flink.internal.merge.schema.TableSchema tableSchema() {
        return table.schema();
    }

    /** This writer's key index, or null when it keeps none. */
    public KeyIndex keyIndex() {
        return merger.keyIndex();
    }

    /**
     * Where the merges of one round look up a key-only delete's key that its own partition lacks
     * ({@link PartitionMerger.KeyHolders}): every other partition this writer knows of that may
     * hold the key ({@link PartitionMerger#mayHoldKeysOf}) — the table's, its pending checkpoints',
     * its merges of this checkpoint, its buffered changes (of this round and still buffered) — by
     * buffered upserts, then statistics and an exact probe of the files as this writer sees them.
     * Another writer's uncommitted changes are not seen.
     */
    private final class KeyHolders implements PartitionMerger.KeyHolders {
        private final TableSnapshot snapshot;
        private final Map<PartitionValues, PartitionChanges> round;
        private Map<PartitionValues, List<DataFile>> live;

        KeyHolders(TableSnapshot snapshot, Map<PartitionValues, PartitionChanges> round) {
            this.snapshot = snapshot;
            this.round = round;
        }

        /** The table's files by partition, listed once per round, on first need. */
        private synchronized Map<PartitionValues, List<DataFile>> live() {
            if (live == null) {
                live = snapshot.allLiveFiles();
            }
            return live;
        }

        /** The changes of {@code partition} that this round merges and those still buffered. */
        private List<PartitionChanges> bufferedChangesOf(PartitionValues partition) {
            List<PartitionChanges> changes = new ArrayList<>(2);
            for (PartitionChanges buffered :
                    java.util.Arrays.asList(round.get(partition), buffer.changesOf(partition))) {
                if (buffered != null) {
                    changes.add(buffered);
                }
            }
            return changes;
        }

        /**
         * The partitions other than {@code excluded} this writer knows of that may hold its keys.
         */
        private Set<PartitionValues> othersThan(PartitionValues excluded) {
            Set<PartitionValues> partitions = new java.util.LinkedHashSet<>(live().keySet());
            partitions.addAll(pending.partitions());
            partitions.addAll(current.keySet());
            partitions.addAll(round.keySet());
            partitions.addAll(buffer.partitions());
            partitions.remove(excluded);
            partitions.removeIf(partition -> !merger.mayHoldKeysOf(excluded, partition));
            return partitions;
        }

        /**
         * For each partition other than {@code named} that has no buffered change of some of {@code
         * keys} (in this round or still buffered), which of those keys its written rows hold — the
         * table's files as this writer sees them, with its pending checkpoints and its merges of
         * this checkpoint — found by the partition's key index, or by statistics and the exact
         * probe ({@link PartitionMerger#keysHeldBy}).
         */
        Map<PartitionValues, Set<RowKey>> writtenRowsOf(Set<RowKey> keys, PartitionValues named) {
            Map<PartitionValues, Set<RowKey>> holders = new LinkedHashMap<>();
            for (PartitionValues partition : othersThan(named)) {
                Set<RowKey> unchanged = new java.util.LinkedHashSet<>(keys);
                for (PartitionChanges buffered : bufferedChangesOf(partition)) {
                    unchanged.removeIf(buffered::isChanged);
                }
                if (unchanged.isEmpty()) {
                    continue;
                }
                List<DataFile> files =
                        view(partition, live().getOrDefault(partition, List.of())).files;
                Set<RowKey> held = merger.keysHeldBy(partition, files, unchanged);
                if (!held.isEmpty()) {
                    holders.put(partition, held);
                }
            }
            return holders;
        }

        @Override
        public java.util.Optional<PartitionMerger.KeyHolder> find(
                Set<RowKey> keys, PartitionValues excluded) {
            for (PartitionValues partition : othersThan(excluded)) {
                List<RowKey> held = new ArrayList<>();
                for (PartitionChanges buffered : bufferedChangesOf(partition)) {
                    keys.stream().filter(buffered::isUpserted).forEach(held::add);
                }
                List<DataFile> files =
                        view(partition, live().getOrDefault(partition, List.of())).files;
                if (held.isEmpty() && !merger.filesHoldingAny(files, keys).isEmpty()) {
                    for (RowKey key : keys) {
                        if (!merger.filesHoldingAny(files, Set.of(key)).isEmpty()) {
                            held.add(key);
                        }
                    }
                }
                if (!held.isEmpty()) {
                    return java.util.Optional.of(new PartitionMerger.KeyHolder(partition, held));
                }
            }
            return java.util.Optional.empty();
        }
    }

    /**
     * Deletes the deletion vector files of earlier merges of this checkpoint whose every vector a
     * later merge replaced (it marked the same file again, or rewrote it). One such file holds the
     * vectors of a whole round, across partitions, so it is deleted only when no result of the
     * checkpoint refers to it. Private to this writer still: no checkpoint holds them.
     */
    private void deleteReplacedVectorFiles() {
        Set<String> referenced = new HashSet<>();
        for (PartitionWriteResult result : current.values()) {
            for (DataFile file : result.filesWithDeletionVectors()) {
                referenced.add(table.files().deletionVectorPath(file.deletionVector()));
            }
        }
        for (Map.Entry<PartitionValues, PartitionWriteResult> entry : current.entrySet()) {
            PartitionWriteResult result = entry.getValue();
            List<String> kept = new ArrayList<>();
            for (String path : result.vectorFilePaths()) {
                if (referenced.contains(path)) {
                    kept.add(path);
                } else if (!kept.contains(path)) {
                    table.files().deleteUncommitted(DataFile.atPath(path));
                }
            }
            if (kept.size() != result.vectorFilePaths().size()) {
                entry.setValue(result.withVectorFilePaths(kept));
            }
        }
    }

    /**
     * Where this round's merges put new deletion vectors, or null to merge copy-on-write: by the
     * write mode and whether the table allows deletion vectors now.
     */
    private DeletionVectorSink deletionVectorSink(TableSnapshot snapshot) {
        if (options.writeMode() == io.deltalite.flink.sink.WriteMode.DELETION_VECTORS
                && !snapshot.allowsDeletionVectors()) {
            throw new io.deltalite.flink.exceptions.DeltaLiteException(
                    "The sink of Delta table "
                            + table.location()
                            + " is set to write-mode 'deletion-vectors', but version "
                            + snapshot.version()
                            + " of the table does not allow deletion vectors (its"
                            + " property delta.enableDeletionVectors is not true)."
                            + " Enable them on the table (ALTER TABLE ... SET"
                            + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true'))"
                            + " or set write-mode to 'auto' or 'copy-on-write'. Nothing"
                            + " of this checkpoint was committed.");
        }
        return merger.newDeletionVectorSink(snapshot);
    }

    /**
     * Adds to {@code merged} a compaction of the committed files that no result of this writer
     * (pending, earlier in this checkpoint, or {@code merged} itself) removes or adds, if {@code
     * budget} is given; and the partition's file counts after both.
     */
    private PartitionWriteResult compactAfter(
            PartitionWriteResult merged,
            View view,
            List<DataFile> committed,
            PartitionCompactor.Budget budget) {
        Compaction compaction = Compaction.NONE;
        if (budget != null) {
            Set<String> touched = new HashSet<>(view.touchedPaths);
            touched.addAll(merged.touchedPaths());
            // Own files and shared ones are compacted apart: an output of both would hold keys
            // of other writers, and no writer could own it any more.
            List<DataFile> own = new ArrayList<>();
            List<DataFile> shared = new ArrayList<>();
            for (DataFile file : committed) {
                if (touched.contains(file.path())) {
                    continue;
                }
                WriterShare.Access access = share.accessTo(file);
                if (access == WriterShare.Access.OWN) {
                    own.add(file);
                } else if (access == WriterShare.Access.SHARED && share.compactsShared(file)) {
                    shared.add(file);
                }
            }
            try {
                for (List<DataFile> candidates : List.of(own, shared)) {
                    if (!candidates.isEmpty()) {
                        compaction =
                                compaction.plus(
                                        compactor.compact(
                                                merged.partition(),
                                                candidates,
                                                budget,
                                                PartitionCompactor.Policy.TIERED));
                    }
                }
            } catch (RuntimeException e) {
                // Interrupted (the writer is being cancelled): the merge's result never leaves
                // this task, so nothing else would ever delete the files it wrote.
                compaction.outputs().forEach(table.files()::deleteUncommitted);
                discard(List.of(merged));
                throw e;
            }
        }
        Map<String, DataFile> after = new LinkedHashMap<>();
        view.files.forEach(file -> after.put(file.path(), file));
        merged.applyTo(after);
        compaction.inputs().forEach(file -> after.remove(file.path()));
        compaction.outputs().forEach(file -> after.put(file.path(), file));
        return merged.withCompaction(
                compaction, after.size(), compactor.countSmall(after.values()));
    }

    /** The partition as this writer sees it: committed files, then its own uncommitted results. */
    private View view(PartitionValues partition, List<DataFile> committed) {
        Map<String, DataFile> files = new LinkedHashMap<>();
        committed.forEach(file -> files.put(file.path(), file));
        pending.overlay(partition, files);
        Set<String> fresh = new HashSet<>();
        // Files only this writer's uncommitted results hold: rewritten, never given a vector.
        Set<String> own = pending.survivorPaths(partition);
        Set<String> touched = pending.touchedPaths(partition);
        PartitionWriteResult earlier = current.get(partition);
        if (earlier != null) {
            earlier.applyTo(files);
            earlier.upsertFiles().forEach(file -> fresh.add(file.path()));
            earlier.survivorFiles().forEach(file -> own.add(file.path()));
            own.addAll(fresh);
            touched.addAll(earlier.touchedPaths());
        }
        return new View(new ArrayList<>(files.values()), fresh, own, touched);
    }

    private List<PartitionWriteResult> runAll(List<Callable<PartitionWriteResult>> merges) {
        return partitions.runAll(merges, result -> discard(List.of(result)));
    }

    /**
     * Deletes the files of results that will never be committed: the files they wrote, never the
     * table's data files they gave a deletion vector.
     */
    private void discard(List<PartitionWriteResult> results) {
        for (PartitionWriteResult result : results) {
            result.writtenPaths()
                    .forEach(path -> table.files().deleteUncommitted(DataFile.atPath(path)));
        }
    }

    /**
     * Deletes the files of results that no checkpoint can hold any more: merges of the checkpoint
     * in progress, and the last prepared results if no checkpoint took them ({@link
     * #prepared(long)} was not called). For a writer that stops before the end of its input: after
     * a failure, its restored state holds everything that may still be committed.
     */
    public void discardUncommittable() {
        discard(new ArrayList<>(current.values()));
        current.clear();
        discard(lastPrepared);
        lastPrepared = List.of();
        journal.forgetUnprepared();
    }

    @Override
    public void close() {
        indexAhead.close();
        bufferBudget.close();
        if (partitionPool != null) {
            partitionPool.shutdownNow();
        }
        if (merger.keyIndex() != null) {
            merger.keyIndex().close();
        }
    }

    /**
     * @param touchedPaths paths that this writer's uncommitted results remove or add
     */
    private record View(
            List<DataFile> files,
            Set<String> freshPaths,
            Set<String> ownPaths,
            Set<String> touchedPaths) {}
}
