package io.deltalite.flink.internal.merge.rewrite;

import io.deltalite.flink.exceptions.DeltaLiteKeyIndexDisagreementException;
import io.deltalite.flink.internal.merge.changes.BufferBudget;
import io.deltalite.flink.internal.merge.changes.PartitionChanges;
import io.deltalite.flink.internal.merge.compaction.PartitionCompactor;
import io.deltalite.flink.internal.merge.compaction.SortedRunMerge;
import io.deltalite.flink.internal.merge.index.KeyIndex;
import io.deltalite.flink.internal.merge.index.PartitionKeyIndex;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.probe.KeyProbe;
import io.deltalite.flink.internal.merge.probe.ParallelFileWork;
import io.deltalite.flink.internal.merge.probe.StatisticsPruner;
import io.deltalite.flink.internal.merge.result.LiveSetFingerprint;
import io.deltalite.flink.internal.merge.result.MergeStats;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.SharedPartitionResults;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.DeletionVectorSink;
import io.deltalite.flink.internal.merge.table.KeyHits;
import io.deltalite.flink.internal.merge.table.KeyMatcher;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.DeletionVectorRef;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.merge.value.RowOrder;
import io.deltalite.flink.sink.PruneStrategy;
import io.deltalite.flink.sink.UpsertStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.LongAdder;

/**
 * Applies the changes of one partition to its live files:
 *
 * <ol>
 *   <li>the live files that hold a changed key are found: files whose key statistics rule out every
 *       changed key are skipped, the rest are probed by reading only their key columns (or the key
 *       index says where each key's row is);
 *   <li>copy-on-write: each file that holds one is streamed a batch at a time, the rows with a
 *       changed key are dropped, and the others are written to new <em>survivor files</em> — at
 *       most {@code max-parallel-files} files are read at once, each lane writing its own output;
 *   <li>with deletion vectors (when the caller passes a {@link DeletionVectorSink}), a committed
 *       file keeps its data and gets a deletion vector marking those rows instead ({@link
 *       DeletionVectorMarker}), small files too; files this checkpoint wrote itself are always
 *       rewritten. Given a compaction budget (the last merge of a writer's checkpoint), the size
 *       tiers of small files that compaction would merge now and that hold a changed key are
 *       <em>folded</em> instead ({@link #folds}): each bin's files are joined into one new file,
 *       their Parquet row groups copied as they are, which comes with a deletion vector for their
 *       deleted and changed rows ({@link #joinedFold}); a bin whose rows would be too dead to join,
 *       or of another layout, is rewritten into one sorted file without them;
 *   <li>files without a changed key are carried over untouched;
 *   <li>the upserted rows are sorted by key and written to new <em>upsert files</em> — last, so
 *       that in a table with row tracking each keeps the row id of the row it replaces, read from
 *       the files the steps above removed ({@link DataFileStore#tracksRowIds}).
 * </ol>
 *
 * <p>Nothing here is visible in the table: the result lists files to remove and add, and a commit
 * makes them visible.
 */
public final class PartitionMerger {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(PartitionMerger.class);

    private final TableSchema schema;
    private final MergeOptions options;
    private final DataFileStore store;
    private final ParallelFileWork parallel;
    private final KeyProbe probe;
    private final DeletionVectorMarker marker;
    private final DeletionVectorMarker sharedMarker;

    /** The order of the rows of the files it writes: clustering columns, then key. */
    private final RowOrder rowOrder;

    private final int[] keyIndexes;
    private final PartitionCompactor sizes;
    private final WriterShare share;
    private final String location;

    /**
     * Where this merger's writer finds the rows of keys, or null to probe the files each time; made
     * by the first {@link #merge} (a committer's merger, which only re-merges, has none).
     */
    private volatile KeyIndex index;

    /**
     * A merger of whole partitions (a writer that owns its partitions, or the committer).
     *
     * @param fileExecutor runs the per-file work (probes and rewrite lanes); its size bounds the
     *     files open at once across all merges sharing it; null runs everything on the caller
     */
    public PartitionMerger(MergeTable table, MergeOptions options, ExecutorService fileExecutor) {
        this(table, options, fileExecutor, WriterShare.WHOLE_PARTITIONS);
    }

    /**
     * @param share the part of each partition's changes this merger's writer handles
     */
    public PartitionMerger(
            MergeTable table,
            MergeOptions options,
            ExecutorService fileExecutor,
            WriterShare share) {
        this.share = share;
        this.location = table.location();
        this.schema = table.schema();
        this.options = options;
        this.store = table.files();
        this.parallel = new ParallelFileWork(fileExecutor);
        this.probe = new KeyProbe(store, parallel);
        this.marker =
                new DeletionVectorMarker(store, parallel, options.deletionVectorRewriteThreshold());
        this.sharedMarker = new DeletionVectorMarker(store, parallel, 1.0);
        this.rowOrder = RowOrder.of(schema, table.clusteringColumns());
        this.keyIndexes = schema.matchKeyIndexes();
        this.sizes = new PartitionCompactor(table, options);
    }

    /** A merger like this one for a writer with the share {@code other}. */
    public PartitionMerger sharing(WriterShare other) {
        return new PartitionMerger(this, other);
    }

    private PartitionMerger(PartitionMerger base, WriterShare share) {
        this.share = share;
        this.location = base.location;
        this.schema = base.schema;
        this.options = base.options;
        this.store = base.store;
        this.parallel = base.parallel;
        this.probe = base.probe;
        this.marker = base.marker;
        this.sharedMarker = base.sharedMarker;
        this.rowOrder = base.rowOrder;
        this.keyIndexes = base.keyIndexes;
        this.sizes = base.sizes;
    }

    /** This merger's key index, made on first use; null when the options or table say none. */
    private KeyIndex indexForMerges() {
        KeyIndexOptions indexing = options.keyIndex();
        // prune-strategy STATS and NONE choose how files are found: the index answers only for
        // the default, PROBE, whose exact answer it gives.
        if (!indexing.isOn()
                || schema.isAppendOnly()
                || options.pruneStrategy() != PruneStrategy.PROBE) {
            return null;
        }
        KeyIndex made = index;
        if (made == null) {
            synchronized (this) {
                if (index == null) {
                    index =
                            new KeyIndex(
                                    store,
                                    parallel,
                                    schema.matchKeyTypes(),
                                    indexing,
                                    schema.isPartitioned(),
                                    location);
                }
                made = index;
            }
        }
        return made;
    }

    /** This merger's key index, or null when it has none. */
    public KeyIndex keyIndex() {
        return index;
    }

    /** Whether the key index of {@code partition} is to be built ahead of its next merge. */
    public boolean buildsKeyIndexAhead(PartitionValues partition) {
        KeyIndex keyIndex = indexForMerges();
        return keyIndex != null && keyIndex.buildsAhead(partition);
    }

    /**
     * Builds the key index of {@code partition} from {@code liveFiles} ahead of its merge (see
     * {@link KeyIndex#buildAhead}); the merge then brings it to the files it sees. Never while a
     * merge of the partition runs.
     */
    public void buildKeyIndexAhead(PartitionValues partition, List<DataFile> liveFiles) {
        KeyIndex keyIndex = indexForMerges();
        if (keyIndex != null) {
            keyIndex.buildAhead(partition, accessible(liveFiles));
        }
    }

    /**
     * Whether the key index of {@code partition} is to grow its table ahead of its next merge (see
     * {@link KeyIndex#growsAhead}).
     */
    public boolean growsKeyIndexAhead(PartitionValues partition) {
        KeyIndex keyIndex = indexForMerges();
        return keyIndex != null && keyIndex.growsAhead(partition);
    }

    /**
     * Grows the table of the key index of {@code partition} ahead of its next merge (see {@link
     * KeyIndex#growAhead}). Never while a merge of the partition runs.
     */
    public void growKeyIndexAhead(PartitionValues partition) {
        KeyIndex keyIndex = indexForMerges();
        if (keyIndex != null) {
            keyIndex.growAhead(partition);
        }
    }

    /**
     * Merges {@code changes} into a partition whose live files are {@code liveFiles}.
     *
     * @param freshPaths paths among {@code liveFiles} that hold rows new in the current checkpoint
     *     (upsert files of an earlier merge of the same checkpoint); rewriting them yields upsert
     *     files again
     * @param ownPaths paths among {@code liveFiles} that may vanish before this merge commits:
     *     files the current checkpoint wrote, and survivor files of checkpoints not committed yet
     *     (a re-merge at commit drops those); they are rewritten, never given a deletion vector
     * @param baseVersion the table version {@code liveFiles} were listed from
     * @param vectors where new deletion vectors go, or {@code null} to merge copy-on-write only
     */
    public PartitionWriteResult merge(
            PartitionChanges changes,
            List<DataFile> liveFiles,
            Set<String> freshPaths,
            Set<String> ownPaths,
            long baseVersion,
            DeletionVectorSink vectors) {
        return merge(changes, liveFiles, freshPaths, ownPaths, baseVersion, vectors, null, null);
    }

    /**
     * Where else a key may be: the partitions other than {@code excluded} that hold any of {@code
     * keys}, as far as the merging writer knows (the table, its pending and buffered changes).
     */
    @FunctionalInterface
    public interface KeyHolders {
        /** A partition that holds some of {@code keys} and which of them, or empty. */
        java.util.Optional<KeyHolder> find(Set<RowKey> keys, PartitionValues excluded);
    }

    /** {@code keys} are held by {@code partition}. */
    public record KeyHolder(PartitionValues partition, List<RowKey> keys) {}

    /**
     * As {@link #merge(PartitionChanges, List, Set, Set, long, DeletionVectorSink)}; a delete that
     * carried nothing but its key ({@link PartitionChanges#keyOnlyDeletes()}) and found no row in
     * its partition is looked up with {@code holders} (null: not at all), and fails the merge when
     * another partition holds its key: that row would stay.
     *
     * @param foldBudget the compaction bytes this merge may spend folding tiers of small files that
     *     hold changed keys (see {@link #folds}), or null to fold none
     */
    public PartitionWriteResult merge(
            PartitionChanges changes,
            List<DataFile> liveFiles,
            Set<String> freshPaths,
            Set<String> ownPaths,
            long baseVersion,
            DeletionVectorSink vectors,
            KeyHolders holders,
            PartitionCompactor.Budget foldBudget) {
        List<DataFile> baseFiles = new ArrayList<>();
        for (DataFile file : liveFiles) {
            if (!freshPaths.contains(file.path())) {
                baseFiles.add(file);
            }
        }
        PartitionValues partition = changes.partition();
        // The rows an upsert replaces are found first: in a table that tracks rows, the new row
        // keeps the id of the row it replaces.
        Rewrite rewrite =
                rewrite(
                        partition,
                        liveFiles,
                        changes.changedKeys(),
                        freshPaths,
                        ownPaths,
                        vectors,
                        indexForMerges(),
                        foldBudget);
        List<DataFile> upsertFiles;
        try {
            upsertFiles = writeUpserts(partition, changes.upsertedRows(), rewrite);
        } catch (RuntimeException e) {
            rewrite.freshOutput.forEach(store::deleteUncommitted);
            rewrite.survivorOutput.forEach(store::deleteUncommitted);
            throw e;
        }
        List<RowKey> unmatched = unmatchedKeyOnlyDeletes(changes, rewrite);
        try {
            requireKeyOnlyDeletesFound(changes.partition(), unmatched, holders);
        } catch (RuntimeException e) {
            upsertFiles.forEach(store::deleteUncommitted);
            rewrite.freshOutput.forEach(store::deleteUncommitted);
            rewrite.survivorOutput.forEach(store::deleteUncommitted);
            throw e;
        }
        long updated = 0;
        long deleted = 0;
        for (RowKey key : rewrite.foundKeys) {
            if (changes.isUpserted(key)) {
                updated++;
            } else {
                deleted++;
            }
        }
        // A key found in a file an earlier merge of this checkpoint wrote was counted by that
        // merge: upserting it again changes no count; deleting it removes the row it added.
        long upsertedAgain = 0;
        for (RowKey key : rewrite.foundFreshKeys) {
            if (changes.isUpserted(key)) {
                upsertedAgain++;
            } else {
                deleted++;
            }
        }
        long upsertedKeys = changes.changedKeys().size() - changes.deletedKeys().size();
        long nullKeyInserts = changes.upsertedRows().size() - upsertedKeys;
        List<DataFile> upserts = new ArrayList<>(upsertFiles);
        upserts.addAll(rewrite.freshOutput);
        DeletedKeys deletedKeys = DeletedKeys.NONE;
        DeletedKeys unmatchedKeys;
        try {
            deletedKeys = deletedKeys(changes.deletedKeys());
            unmatchedKeys = deletedKeys(unmatched);
        } catch (RuntimeException e) {
            upserts.forEach(store::deleteUncommitted);
            rewrite.survivorOutput.forEach(store::deleteUncommitted);
            deletedKeys
                    .stagedPaths()
                    .forEach(path -> store.deleteUncommitted(DataFile.atPath(path)));
            throw e;
        }
        UpsertStats stats =
                new UpsertStats(
                        -1,
                        1,
                        upserts.size()
                                + rewrite.survivorOutput.size()
                                + rewrite.vectorOutput.size(),
                        rewrite.removed.size(),
                        liveFiles.size() - rewrite.removed.size(),
                        rewrite.probed,
                        upsertedKeys - updated - upsertedAgain + nullKeyInserts,
                        updated,
                        deleted,
                        rewrite.copiedRows,
                        changes.sourceRows(),
                        changes.nullKeyRows(),
                        bytes(upserts) + bytes(rewrite.survivorOutput) + rewrite.vectorBytes,
                        rewrite.vectorOutput.size(),
                        rewrite.vectorBytes);
        String base = LiveSetFingerprint.of(baseFiles);
        return new PartitionWriteResult(
                partition,
                baseVersion,
                share.sharesPartitions() ? SharedPartitionResults.sharedFingerprint(base) : base,
                rewrite.removed,
                upserts,
                rewrite.survivorOutput,
                rewrite.vectorOutput,
                vectorFilePaths(rewrite, vectors),
                deletedKeys,
                stats,
                io.deltalite.flink.internal.merge.result.Compaction.NONE,
                unmatchedKeys);
    }

    /**
     * The key-only deletes of {@code changes} ({@link PartitionChanges#keyOnlyDeletes()}) that
     * found no row in their partition. One that found its row there is a whole delete (a row that
     * really is empty but for its key).
     */
    private static List<RowKey> unmatchedKeyOnlyDeletes(PartitionChanges changes, Rewrite rewrite) {
        List<RowKey> unmatched = new ArrayList<>();
        for (RowKey key : changes.keyOnlyDeletes()) {
            if (!rewrite.foundKeys.contains(key) && !rewrite.foundFreshKeys.contains(key)) {
                unmatched.add(key);
            }
        }
        return unmatched;
    }

    /**
     * Fails when another partition holds the key of a key-only delete that found no row in its
     * partition: that row would stay. One whose key no partition holds deleted nothing, as any
     * delete of an absent key.
     */
    private void requireKeyOnlyDeletesFound(
            PartitionValues partition, List<RowKey> unmatched, KeyHolders holders) {
        if (holders == null || unmatched.isEmpty()) {
            return;
        }
        java.util.Optional<KeyHolder> holder =
                holders.find(new java.util.LinkedHashSet<>(unmatched), partition);
        if (holder.isEmpty()) {
            return;
        }
        throw KeyOnlyDeleteFailure.rowElsewhere(
                schema,
                location,
                partition,
                holder.get(),
                "Nothing of this checkpoint was committed.");
    }

    /**
     * Whether partition {@code other} can hold a row whose key a delete naming partition {@code
     * named} carried ({@link PartitionValues#mayHoldKeysOf}).
     */
    public boolean mayHoldKeysOf(PartitionValues named, PartitionValues other) {
        return other.mayHoldKeysOf(named, schema);
    }

    /**
     * The files among {@code files} (of one partition) that hold one of {@code keys}: statistics
     * first, then the exact probe of the key columns, as a merge finds them.
     */
    public List<DataFile> filesHoldingAny(List<DataFile> files, Set<RowKey> keys) {
        List<DataFile> candidates = candidates(files, keys);
        if (candidates.isEmpty()) {
            return candidates;
        }
        return probe.filesHoldingAny(candidates, KeyMatcher.of(keys));
    }

    /**
     * Which of {@code keys} the files {@code files} of {@code partition} hold, every deletion
     * vector honoured: from the partition's key index where this merger holds one (brought to
     * {@code files}; a look-up builds none, see {@link KeyIndex#followIfHeld}); else by statistics,
     * then the key columns of the files they leave. With {@code key-index.validate} an answer of
     * the index is checked against the files.
     */
    public Set<RowKey> keysHeldBy(
            PartitionValues partition, List<DataFile> files, Set<RowKey> keys) {
        KeyIndex keyIndex = indexForMerges();
        PartitionKeyIndex partitionIndex =
                keyIndex == null ? null : keyIndex.followIfHeld(partition, accessible(files));
        if (partitionIndex == null) {
            return probedKeysHeldBy(files, keys);
        }
        Map<String, PartitionKeyIndex.Located> located = partitionIndex.locate(keys);
        Set<RowKey> held = new HashSet<>();
        for (PartitionKeyIndex.Located hit : located.values()) {
            held.addAll(hit.keys());
        }
        if (options.keyIndex().validate()) {
            Set<RowKey> probed = probedKeysHeldBy(files, keys);
            if (!probed.equals(held)) {
                throw indexDisagreement(
                        partition,
                        "keys of key-only deletes the files hold: "
                                + probed.stream().limit(5).toList()
                                + "; keys the index located: "
                                + held.stream().limit(5).toList());
            }
        }
        return held;
    }

    private Set<RowKey> probedKeysHeldBy(List<DataFile> files, Set<RowKey> keys) {
        List<DataFile> candidates = candidates(files, keys);
        if (candidates.isEmpty()) {
            return Set.of();
        }
        return probe.keysHeldBy(candidates, KeyMatcher.of(keys));
    }

    /**
     * Where merges against {@code snapshot} put new deletion vectors, or {@code null} when they
     * merge copy-on-write: in write mode {@code copy-on-write}, and whenever the table does not
     * allow deletion vectors (then even in mode {@code deletion-vectors}, whose writers refuse to
     * merge; a commit already under way lands copy-on-write).
     */
    public DeletionVectorSink newDeletionVectorSink(TableSnapshot snapshot) {
        if (options.writeMode() == io.deltalite.flink.sink.WriteMode.COPY_ON_WRITE
                || schema.isAppendOnly()
                || !snapshot.allowsDeletionVectors()) {
            return null;
        }
        return store.newDeletionVectorSink();
    }

    /** A merge's deleted keys: inline when few, else staged in a file of their own. */
    private DeletedKeys deletedKeys(List<RowKey> keys) {
        if (keys.isEmpty()) {
            return DeletedKeys.NONE;
        }
        if (keys.size() <= DeletedKeys.INLINE_LIMIT) {
            return DeletedKeys.inline(keys);
        }
        return DeletedKeys.staged(store.stageKeys(keys));
    }

    /**
     * Redoes {@code stale} against the partition's current live files, keeping its upsert files:
     * the current files holding a key of an upsert file or a deleted key are rewritten without
     * those rows. The stale result's survivor files are not used and not deleted here.
     *
     * <p>The changed keys are streamed from the upsert files and the staged deleted keys in chunks
     * of at most {@code max-buffered-bytes}: each chunk rewrites the files (current or written by
     * an earlier chunk) that hold one of its keys, so memory stays bounded however many keys the
     * checkpoint changed. Files an earlier chunk wrote and a later chunk replaced are deleted.
     *
     * <p>With a {@link DeletionVectorSink}, committed files get deletion vectors as in {@link
     * #merge}: a file another writer gave a deletion vector meanwhile is read with it, and the new
     * vector is the union of both. Files written here are rewritten.
     *
     * @param baseVersion the table version {@code liveFiles} were listed from
     * @param vectors where new deletion vectors go, or {@code null} to merge copy-on-write only
     */
    public PartitionWriteResult remerge(
            PartitionWriteResult stale,
            List<DataFile> liveFiles,
            long baseVersion,
            DeletionVectorSink vectors) {
        Map<String, DataFile> current = new java.util.LinkedHashMap<>();
        liveFiles.forEach(file -> current.put(file.path(), file));
        Map<String, String> original = new HashMap<>();
        liveFiles.forEach(file -> original.put(file.path(), file.identity()));
        Set<String> writtenHere = new HashSet<>();
        // In a table that tracks rows: the upserted rows whose ids must change, by upsert file.
        Map<String, Map<RowKey, Long>> corrections = new HashMap<>();
        long updated = 0;
        long deleted = 0;
        long probed = 0;
        long copied = 0;
        long vectorBytes = 0;
        try (ChangedKeyChunks chunks =
                new ChangedKeyChunks(
                        store,
                        schema.matchKeyTypes(),
                        stale.upsertFiles(),
                        stale.deletedKeys(),
                        BufferBudget.current(options.maxBufferedBytes()))) {
            while (chunks.hasNext()) {
                ChangedKeyChunks.Chunk chunk = chunks.next();
                Rewrite rewrite =
                        rewrite(
                                stale.partition(),
                                new ArrayList<>(current.values()),
                                chunk.keys(),
                                Set.of(),
                                Set.copyOf(writtenHere),
                                vectors,
                                null,
                                null);
                for (DataFile added : rewrite.survivorOutput) {
                    current.put(added.path(), added);
                    writtenHere.add(added.path());
                }
                if (store.tracksRowIds()) {
                    // before the files an earlier chunk wrote are deleted below
                    rowIdCorrections(stale, chunk, rewrite, corrections);
                }
                for (DataFile removed : rewrite.removed) {
                    current.remove(removed.path());
                    if (writtenHere.remove(removed.path())) {
                        store.deleteUncommitted(removed);
                    }
                }
                for (DataFile marked : rewrite.vectorOutput) {
                    current.put(marked.path(), marked);
                }
                vectorBytes += rewrite.vectorBytes;
                for (RowKey key : rewrite.foundKeys) {
                    if (chunk.isUpserted(key)) {
                        updated++;
                    } else {
                        deleted++;
                    }
                }
                probed += rewrite.probed;
                copied += rewrite.copiedRows;
            }
        } catch (RuntimeException e) {
            for (String path : writtenHere) {
                store.deleteUncommitted(current.get(path));
            }
            throw e;
        }
        List<DataFile> upsertFiles;
        try {
            upsertFiles =
                    corrections.isEmpty()
                            ? stale.upsertFiles()
                            : withCorrectedRowIds(stale, corrections);
        } catch (RuntimeException e) {
            for (String path : writtenHere) {
                store.deleteUncommitted(current.get(path));
            }
            throw e;
        }
        // A file is removed when it is gone or came back with another deletion vector.
        List<DataFile> removed = new ArrayList<>();
        for (DataFile file : liveFiles) {
            DataFile now = current.get(file.path());
            if (now == null || !now.identity().equals(file.identity())) {
                removed.add(file);
            }
        }
        List<DataFile> survivors = new ArrayList<>();
        List<DataFile> marked = new ArrayList<>();
        for (DataFile file : current.values()) {
            String before = original.get(file.path());
            if (before == null) {
                survivors.add(file);
            } else if (!before.equals(file.identity())) {
                marked.add(file);
            }
        }
        UpsertStats before = stale.stats();
        UpsertStats stats =
                new UpsertStats(
                        -1,
                        1,
                        upsertFiles.size() + survivors.size() + marked.size(),
                        removed.size(),
                        liveFiles.size() - removed.size(),
                        probed,
                        Math.max(0, before.rowsInserted() + before.rowsUpdated() - updated),
                        updated,
                        deleted,
                        copied,
                        before.sourceRows(),
                        before.nullKeyRows(),
                        bytes(upsertFiles) + bytes(survivors) + vectorBytes,
                        marked.size(),
                        vectorBytes);
        stats =
                MergeStats.withFileCounts(
                        stats, current.size(), sizes.countSmall(current.values()));
        return new PartitionWriteResult(
                stale.partition(),
                baseVersion,
                LiveSetFingerprint.of(liveFiles),
                removed,
                upsertFiles,
                survivors,
                marked,
                vectorFilePaths(marked, vectors),
                stale.deletedKeys(),
                stats,
                io.deltalite.flink.internal.merge.result.Compaction.NONE,
                stale.unmatchedKeyOnlyDeletes());
    }

    /**
     * Writes the upserted rows of a merge whose rows to replace {@code rewrite} found; in a table
     * that tracks rows, each keeps the id of the row it replaces ({@link #replacedRowIds}).
     */
    private List<DataFile> writeUpserts(
            PartitionValues partition, List<Object[]> rows, Rewrite rewrite) {
        if (rows.isEmpty()) {
            return List.of();
        }
        // Sorted files have narrow key ranges, so later merges can skip them by statistics (and
        // narrow ranges of the clustering columns, for readers, in a clustered table). Rows
        // without a key (null keys, append-only tables) follow the others of their clustering
        // values, in their order.
        List<Object[]> sorted = rowOrder.sort(rows, keyIndexes);
        long[] rowIds = store.tracksRowIds() ? replacedRowIds(sorted, rewrite) : null;
        return store.writeNew(partition, sorted, rowIds, options.readBatchSize(), share.keys());
    }

    /**
     * In a table that tracks rows, the upserted rows of one chunk of a re-merge of {@code stale}
     * whose ids must change, added to {@code corrections} by upsert file: each upserted row must
     * keep the id of the row the re-merge replaced under its key, or none when it replaced none —
     * its writer took the id from the table as it was then, and another writer may since have
     * deleted that row, or moved it to another key or partition keeping its id (two live rows with
     * one id would break the table). Memory grows with the chunk and the corrections, not with the
     * checkpoint.
     */
    private void rowIdCorrections(
            PartitionWriteResult stale,
            ChangedKeyChunks.Chunk chunk,
            Rewrite rewrite,
            Map<String, Map<RowKey, Long>> corrections) {
        Set<RowKey> upserted = new HashSet<>();
        Set<RowKey> replaced = new HashSet<>();
        for (RowKey key : chunk.keys()) {
            if (chunk.isUpserted(key)) {
                upserted.add(key);
                if (rewrite.foundKeys.contains(key)) {
                    replaced.add(key);
                }
            }
        }
        if (upserted.isEmpty()) {
            return;
        }
        Map<RowKey, Long> replacedIds = rowIdsOf(rewrite.removed, replaced);
        KeyMatcher matcher = KeyMatcher.of(upserted);
        for (DataFile file : candidates(stale.upsertFiles(), upserted)) {
            store.rowIdsOf(file, matcher)
                    .forEach(
                            (key, kept) -> {
                                long id = replacedIds.getOrDefault(key, -1L);
                                if (kept != id) {
                                    corrections
                                            .computeIfAbsent(file.path(), path -> new HashMap<>())
                                            .put(key, id);
                                }
                            });
        }
    }

    /**
     * The upsert files of {@code stale} with the row ids of {@code corrections} (by file path): a
     * file with a correction is written again, the others stay as they are.
     */
    private List<DataFile> withCorrectedRowIds(
            PartitionWriteResult stale, Map<String, Map<RowKey, Long>> corrections) {
        List<DataFile> files = new ArrayList<>();
        List<DataFile> written = new ArrayList<>();
        try {
            for (DataFile file : stale.upsertFiles()) {
                Map<RowKey, Long> corrected = corrections.get(file.path());
                if (corrected == null) {
                    files.add(file);
                    continue;
                }
                LOG.info(
                        "Writing upsert file {} of partition {} of Delta table {} again: {} of its"
                                + " rows replace rows whose ids changed since the checkpoint was"
                                + " merged (another writer changed the partition).",
                        file.name(),
                        stale.partition().describe(schema.partitionColumns()),
                        location,
                        corrected.size());
                List<DataFile> rewritten =
                        store.rewriteRowIds(
                                stale.partition(),
                                file,
                                corrected,
                                KeyGroups.covering(List.of(file)));
                written.addAll(rewritten);
                files.addAll(rewritten);
            }
        } catch (RuntimeException e) {
            written.forEach(store::deleteUncommitted);
            throw e;
        }
        return files;
    }

    /** The ids of the rows with one of {@code keys} in {@code files}, by key. */
    private Map<RowKey, Long> rowIdsOf(List<DataFile> files, Set<RowKey> keys) {
        Map<RowKey, Long> found = new HashMap<>();
        if (keys.isEmpty()) {
            return found;
        }
        KeyMatcher matcher = KeyMatcher.of(keys);
        for (DataFile file : candidates(files, keys)) {
            found.putAll(store.rowIdsOf(file, matcher));
        }
        return found;
    }

    /**
     * The row id each of {@code rows} keeps in a table that tracks rows: that of the row with its
     * key in the files {@code rewrite} removed (marked or rewritten), read from them — as Spark's
     * {@code MERGE} keeps the id of a row it updates; -1 where the key is new to the partition (the
     * commit gives the row a fresh id). A row that moved here from another partition gets a fresh
     * id too: its old row is found and removed by the merge of that partition.
     */
    private long[] replacedRowIds(List<Object[]> rows, Rewrite rewrite) {
        long[] ids = new long[rows.size()];
        java.util.Arrays.fill(ids, -1);
        Set<RowKey> replaced = new HashSet<>();
        for (Object[] row : rows) {
            RowKey key = RowKey.of(row, keyIndexes);
            if (key != null
                    && (rewrite.foundKeys.contains(key) || rewrite.foundFreshKeys.contains(key))) {
                replaced.add(key);
            }
        }
        Map<RowKey, Long> found = new HashMap<>();
        if (rewrite.located != null) {
            // The index knows each replaced row's position: only the row-id column is read.
            Set<String> removed = new HashSet<>();
            rewrite.removed.forEach(file -> removed.add(file.path()));
            for (PartitionKeyIndex.Located hit : rewrite.located.values()) {
                if (!removed.contains(hit.file().path())) {
                    continue;
                }
                List<RowKey> keys = new ArrayList<>();
                long[] positions = new long[hit.keys().size()];
                for (int i = 0; i < hit.keys().size(); i++) {
                    if (replaced.contains(hit.keys().get(i))) {
                        positions[keys.size()] = hit.positions()[i];
                        keys.add(hit.keys().get(i));
                    }
                }
                if (keys.isEmpty()) {
                    continue;
                }
                long[] rowIds =
                        store.rowIdsAt(hit.file(), java.util.Arrays.copyOf(positions, keys.size()));
                if (rowIds != null) {
                    for (int i = 0; i < rowIds.length; i++) {
                        found.put(keys.get(i), rowIds[i]);
                    }
                }
            }
        }
        Set<RowKey> unread = new HashSet<>(replaced);
        unread.removeAll(found.keySet());
        found.putAll(rowIdsOf(rewrite.removed, unread));
        for (int i = 0; i < ids.length; i++) {
            Long id = found.get(RowKey.of(rows.get(i), keyIndexes));
            if (id != null) {
                ids[i] = id;
            }
        }
        return ids;
    }

    private Rewrite rewrite(
            PartitionValues partition,
            List<DataFile> liveFiles,
            Collection<RowKey> changedKeys,
            Set<String> freshPaths,
            Set<String> ownPaths,
            DeletionVectorSink vectors,
            KeyIndex keyIndex,
            PartitionCompactor.Budget foldBudget) {
        Rewrite rewrite = new Rewrite();
        if (changedKeys.isEmpty() || liveFiles.isEmpty()) {
            return rewrite;
        }
        Set<RowKey> keys =
                changedKeys instanceof Set<RowKey> set ? set : new HashSet<>(changedKeys);
        KeyMatcher matcher = KeyMatcher.of(keys);
        // With an index, the files holding a changed key and the rows are known without reading.
        Map<String, PartitionKeyIndex.Located> located = null;
        List<DataFile> candidates;
        PartitionKeyIndex partitionIndex =
                keyIndex == null ? null : keyIndex.follow(partition, accessible(liveFiles));
        if (partitionIndex != null) {
            located = partitionIndex.locate(keys);
            rewrite.located = located;
            if (options.keyIndex().validate()) {
                validate(partition, liveFiles, keys, matcher, located);
            }
            keyIndex.located(
                    partition,
                    partitionIndex,
                    located.values().stream().mapToInt(hit -> hit.positions().length).sum());
            candidates = new ArrayList<>(located.size());
            for (DataFile file : liveFiles) {
                if (located.containsKey(file.path())) {
                    candidates.add(file);
                }
            }
        } else {
            candidates = candidates(liveFiles, keys);
        }
        List<DataFile> toRewrite = new ArrayList<>();
        List<DeletionVectorMarker.RowGroupMove> moves = new ArrayList<>();
        List<List<DataFile>> folds = List.of();
        if (vectors != null) {
            // Committed files are marked, small ones too: rewriting a small file costs all its
            // rows, a mark only the changed ones. Reading their keys for the positions is their
            // probe. Tiers of small files compaction would merge now are folded instead (a file
            // marked in a commit cannot be compacted in the same one, and under scattered
            // updates nearly every file is marked in every commit).
            folds = folds(liveFiles, candidates, freshPaths, ownPaths, foldBudget);
            Set<String> folded = new HashSet<>();
            folds.forEach(bin -> bin.forEach(file -> folded.add(file.path())));
            List<DataFile> committed = new ArrayList<>();
            List<DataFile> shared = new ArrayList<>();
            List<DataFile> own = new ArrayList<>();
            for (DataFile file : candidates) {
                if (folded.contains(file.path())) {
                    continue;
                }
                boolean mine = share.accessTo(file) == WriterShare.Access.OWN;
                (ownPaths.contains(file.path()) || freshPaths.contains(file.path())
                                ? own
                                : mine ? committed : shared)
                        .add(file);
            }
            // Files other writers may change too are marked even when mostly deleted: only
            // marks compose with theirs.
            List<DeletionVectorMarker.Marking> markings =
                    located == null
                            ? List.of(
                                    marker.mark(committed, matcher, vectors),
                                    sharedMarker.mark(shared, matcher, vectors))
                            : List.of(
                                    marker.markLocated(hits(committed, located), vectors),
                                    sharedMarker.markLocated(hits(shared, located), vectors));
            for (DeletionVectorMarker.Marking marking : markings) {
                rewrite.removed.addAll(marking.removed());
                rewrite.vectorOutput.addAll(marking.vectorFiles());
                rewrite.foundKeys.addAll(marking.foundKeys());
                rewrite.vectorBytes += marking.vectorBytes();
                toRewrite.addAll(marking.toRewrite());
                moves.addAll(marking.moves());
            }
            if (located == null) {
                rewrite.probed += committed.size() + shared.size();
                toRewrite.addAll(probe(own, keys, matcher, rewrite));
            } else {
                toRewrite.addAll(own);
            }
        } else {
            toRewrite.addAll(
                    located == null ? probe(candidates, keys, matcher, rewrite) : candidates);
        }
        if (toRewrite.isEmpty() && folds.isEmpty() && moves.isEmpty()) {
            return rewrite;
        }
        List<DataFile> baseMatched = new ArrayList<>();
        List<DataFile> freshMatched = new ArrayList<>();
        for (DataFile file : toRewrite) {
            (freshPaths.contains(file.path()) ? freshMatched : baseMatched).add(file);
        }
        Set<RowKey> found = ConcurrentHashMap.newKeySet();
        LongAdder copied = new LongAdder();
        List<Callable<LaneOutput>> lanes = new ArrayList<>();
        for (List<DataFile> lane : balance(baseMatched, options.maxParallelFiles())) {
            lanes.add(
                    () ->
                            new LaneOutput(
                                    false, rewriteLane(partition, lane, matcher, found, copied)));
        }
        // The survivors of row groups of worn files: their marking counts them deleted already.
        for (DeletionVectorMarker.RowGroupMove move : moves) {
            lanes.add(
                    () -> new LaneOutput(false, moveLane(partition, move, matcher, found, copied)));
        }
        // Each fold becomes files of its own: its inputs are one size tier, its output the next.
        Map<String, PartitionKeyIndex.Located> hits = located;
        LongAdder splicedVectorBytes = new LongAdder();
        for (List<DataFile> bin : folds) {
            lanes.add(
                    () -> {
                        DataFile joined =
                                joinedFold(
                                        partition,
                                        bin,
                                        matcher,
                                        hits,
                                        vectors,
                                        found,
                                        copied,
                                        splicedVectorBytes);
                        return new LaneOutput(
                                false,
                                joined != null
                                        ? List.of(joined)
                                        : foldLane(partition, bin, matcher, found, copied));
                    });
        }
        Set<RowKey> foundFresh = ConcurrentHashMap.newKeySet();
        if (!freshMatched.isEmpty()) {
            LongAdder ignored = new LongAdder();
            lanes.add(
                    () ->
                            new LaneOutput(
                                    true,
                                    rewriteLane(
                                            partition,
                                            freshMatched,
                                            matcher,
                                            foundFresh,
                                            ignored)));
        }
        List<LaneOutput> outputs =
                parallel.runAll(lanes, output -> output.files.forEach(store::deleteUncommitted));
        for (LaneOutput output : outputs) {
            (output.fresh ? rewrite.freshOutput : rewrite.survivorOutput).addAll(output.files);
        }
        rewrite.removed.addAll(toRewrite);
        folds.forEach(rewrite.removed::addAll);
        rewrite.foundKeys.addAll(found);
        rewrite.foundFreshKeys.addAll(foundFresh);
        rewrite.copiedRows = copied.sum();
        rewrite.vectorBytes += splicedVectorBytes.sum();
        return rewrite;
    }

    /**
     * The bins of small files this merge rewrites instead of marking: the bins inline compaction
     * plans for the partition's small committed files of this writer ({@link
     * PartitionCompactor#plan}, a full size tier, or a file whose deletion vector deletes more than
     * {@code compaction.deleted-rows-threshold}) that hold a file which may hold a changed key,
     * while {@code budget} lasts. Compaction cannot take such a bin in this commit (it reads only
     * files nothing else touches), and under scattered updates nearly every file holds a changed
     * key in every checkpoint: without folding, small files would be marked forever and never
     * merged. A fold is a merge's rewrite (a data change), so a bin of untouched files is left to
     * compaction. None without a budget, and none of files another writer may mark too.
     */
    private List<List<DataFile>> folds(
            List<DataFile> liveFiles,
            List<DataFile> candidates,
            Set<String> freshPaths,
            Set<String> ownPaths,
            PartitionCompactor.Budget budget) {
        if (budget == null) {
            return List.of();
        }
        List<DataFile> small = new ArrayList<>();
        for (DataFile file : liveFiles) {
            if (!freshPaths.contains(file.path())
                    && !ownPaths.contains(file.path())
                    && share.accessTo(file) == WriterShare.Access.OWN
                    && sizes.isSmall(file)) {
                small.add(file);
            }
        }
        if (small.isEmpty()) {
            return List.of();
        }
        Set<String> touched = new HashSet<>();
        candidates.forEach(file -> touched.add(file.path()));
        List<List<DataFile>> folds = new ArrayList<>();
        for (List<DataFile> bin :
                sizes.plan(small, PartitionCompactor.Policy.TIERED, budget.total())) {
            if (bin.stream().anyMatch(file -> touched.contains(file.path()))
                    && budget.claim(bytes(bin))) {
                folds.add(bin);
            }
        }
        return folds;
    }

    /** The files among {@code liveFiles} that may hold this merger's keys. */
    private List<DataFile> accessible(List<DataFile> liveFiles) {
        List<DataFile> accessible = new ArrayList<>(liveFiles.size());
        for (DataFile file : liveFiles) {
            if (share.accessTo(file) != WriterShare.Access.FOREIGN) {
                accessible.add(file);
            }
        }
        return accessible;
    }

    private static List<PartitionKeyIndex.Located> hits(
            List<DataFile> files, Map<String, PartitionKeyIndex.Located> located) {
        List<PartitionKeyIndex.Located> hits = new ArrayList<>(files.size());
        for (DataFile file : files) {
            hits.add(located.get(file.path()));
        }
        return hits;
    }

    /**
     * The key index's validation: the exact probe reads the key columns of every file that may hold
     * a changed key, and its rows must be the ones the index located — else the merge fails before
     * anything is written from the index's answer.
     */
    private void validate(
            PartitionValues partition,
            List<DataFile> liveFiles,
            Set<RowKey> keys,
            KeyMatcher matcher,
            Map<String, PartitionKeyIndex.Located> located) {
        Set<String> fromIndex = new HashSet<>();
        located.values()
                .forEach(
                        hit -> {
                            for (long position : hit.positions()) {
                                fromIndex.add(hit.file().path() + "@" + position);
                            }
                        });
        Set<String> fromFiles = new HashSet<>();
        Set<RowKey> foundInFiles = new HashSet<>();
        for (DataFile file : candidates(liveFiles, keys)) {
            KeyHits hits = store.locateKeys(file, matcher.changed(), false);
            for (long position : hits.positions()) {
                fromFiles.add(file.path() + "@" + position);
            }
            foundInFiles.addAll(hits.foundKeys());
        }
        if (fromIndex.equals(fromFiles)) {
            return;
        }
        Set<String> missed = new java.util.TreeSet<>(fromFiles);
        missed.removeAll(fromIndex);
        Set<String> wrong = new java.util.TreeSet<>(fromIndex);
        wrong.removeAll(fromFiles);
        throw indexDisagreement(
                partition,
                "rows the files hold but the index missed: "
                        + missed.stream().limit(5).toList()
                        + "; rows the index located that hold no changed key: "
                        + wrong.stream().limit(5).toList()
                        + " (changed keys the files hold: "
                        + foundInFiles.stream()
                                .limit(5)
                                .map(key -> key.describe(schema.matchKey()))
                                .toList()
                        + ")");
    }

    /**
     * The error of {@code key-index.validate}: the index of {@code partition} disagrees with the
     * files, as {@code difference} says. Counted ({@link KeyIndex#disagreed}), since the restart
     * that follows builds fresh indexes and the job goes on.
     */
    private DeltaLiteKeyIndexDisagreementException indexDisagreement(
            PartitionValues partition, String difference) {
        KeyIndex.disagreed();
        return new DeltaLiteKeyIndexDisagreementException(
                "The key index of partition "
                        + partition.describe(schema.partitionColumns())
                        + " of the Delta table at "
                        + location
                        + " disagrees with the exact probe of the table's files"
                        + " (key-index.validate): "
                        + difference
                        + ". Nothing of this checkpoint is committed; the job restarts from its"
                        + " last checkpoint with indexes built afresh. Either a data file was"
                        + " changed behind the Delta log (rewritten in place under its own name),"
                        + " or one of the two is wrong: a bug in deltalite. Report it with this"
                        + " message; key-index = off writes with the probe alone.");
    }

    /**
     * The files that may hold a changed key: not of another writer's keys, and their key statistics
     * do not rule out every changed key.
     */
    private List<DataFile> candidates(List<DataFile> liveFiles, Set<RowKey> keys) {
        List<DataFile> mayHoldOurKeys = new ArrayList<>(liveFiles.size());
        for (DataFile file : liveFiles) {
            if (share.accessTo(file) != WriterShare.Access.FOREIGN) {
                mayHoldOurKeys.add(file);
            }
        }
        if (options.pruneStrategy() == PruneStrategy.NONE) {
            return mayHoldOurKeys;
        }
        StatisticsPruner pruner = new StatisticsPruner(schema.matchKeyTypes(), keys);
        List<DataFile> candidates = new ArrayList<>();
        for (DataFile file : mayHoldOurKeys) {
            if (pruner.mayContainAny(file)) {
                candidates.add(file);
            }
        }
        return candidates;
    }

    /** The candidates that hold a changed key, as far as the prune strategy asks to find out. */
    private List<DataFile> probe(
            List<DataFile> candidates, Set<RowKey> keys, KeyMatcher matcher, Rewrite rewrite) {
        if (options.pruneStrategy() != PruneStrategy.PROBE || candidates.isEmpty()) {
            return candidates;
        }
        // Probe only where it can pay off: a file that statistics show to be densely filled
        // with keys around several changed ones is rewritten without reading its keys twice.
        StatisticsPruner pruner = new StatisticsPruner(schema.matchKeyTypes(), keys);
        List<DataFile> matched = new ArrayList<>();
        List<DataFile> uncertain = new ArrayList<>();
        for (DataFile file : candidates) {
            (pruner.almostCertainlyContainsAny(file) && !file.hasDeletionVector()
                            ? matched
                            : uncertain)
                    .add(file);
        }
        rewrite.probed += uncertain.size();
        if (!uncertain.isEmpty()) {
            matched.addAll(probe.filesHoldingAny(uncertain, matcher));
        }
        return matched;
    }

    /** The deletion vector file that {@code marked} files refer to, if any. */
    private static List<String> vectorFilePaths(List<DataFile> marked, DeletionVectorSink vectors) {
        return marked.isEmpty() ? List.of() : List.of(vectors.path());
    }

    /**
     * The deletion vector file the files of {@code rewrite} refer to, if any: its marked files and
     * the files its folds joined.
     */
    private static List<String> vectorFilePaths(Rewrite rewrite, DeletionVectorSink vectors) {
        if (!rewrite.vectorOutput.isEmpty()) {
            return List.of(vectors.path());
        }
        for (DataFile file : rewrite.survivorOutput) {
            if (file.hasDeletionVector()) {
                return List.of(vectors.path());
            }
        }
        return List.of();
    }

    private List<DataFile> rewriteLane(
            PartitionValues partition,
            List<DataFile> files,
            KeyMatcher keys,
            Set<RowKey> found,
            LongAdder copied) {
        // The survivors' keys are those of the files they come from.
        return store.write(
                partition,
                new SurvivorStream(store, files, keys, found, copied),
                KeyGroups.covering(files));
    }

    private List<DataFile> moveLane(
            PartitionValues partition,
            DeletionVectorMarker.RowGroupMove move,
            KeyMatcher keys,
            Set<RowKey> found,
            LongAdder copied) {
        return store.write(
                partition,
                SurvivorStream.of(
                        store,
                        store.readRows(move.file(), move.fromGroup(), move.toGroup()),
                        keys,
                        found,
                        copied),
                KeyGroups.covering(List.of(move.file())));
    }

    /**
     * A fold that joins its files instead of merging their rows: one new file holding the bin's
     * Parquet row groups as they are ({@link DataFileStore#splice}), whose deletion vector is the
     * union of the files' vectors and the rows of the changed keys, each moved to where its file's
     * rows land. It costs a copy of the bin's bytes, where a merge decodes, sorts and encodes every
     * row, so a fold no longer makes its checkpoint slow. The new file comes with its vector in the
     * same commit, a survivor file like any fold's output: valid only on the files the merge
     * planned against.
     *
     * <p>Not when the bin's rows would be too dead: if the vector would delete more than {@code
     * compaction.deleted-rows-threshold} of them, the fold merges rows, so that no joined file is
     * born worn (and dead rows do not pile up tier after tier). Nor in a clustered table, whose
     * every file is in the order of its clustering columns; nor when the store cannot splice the
     * files as they are (another layout, a table that keeps row ids, too many row groups). A joined
     * file is not sorted by key as a merged fold's is: each row group is, the file is the row
     * groups of its inputs in turn.
     *
     * @return the new file, or null to merge the bin's rows instead
     */
    private DataFile joinedFold(
            PartitionValues partition,
            List<DataFile> bin,
            KeyMatcher keys,
            Map<String, PartitionKeyIndex.Located> located,
            DeletionVectorSink vectors,
            Set<RowKey> found,
            LongAdder copied,
            LongAdder vectorBytes) {
        if (vectors == null || rowOrder.clusteringIndexes().length > 0 || store.tracksRowIds()) {
            // A clustered table's files are each in the order of its clustering columns (Delta's
            // clustering relies on it): joined files would only be so per row group. The store
            // cannot join the files of a table that keeps row ids; asked here, before the bin's
            // keys are read for nothing.
            return null;
        }
        List<DeletionVector> deleted = new ArrayList<>(bin.size());
        List<RowKey> foundHere = new ArrayList<>();
        long[] offsets = new long[bin.size()];
        long rows = 0;
        long dead = 0;
        for (int i = 0; i < bin.size(); i++) {
            DataFile file = bin.get(i);
            if (!file.hasStatistics()) {
                return null;
            }
            long[] positions;
            DeletionVector existing;
            if (located != null) {
                PartitionKeyIndex.Located hit = located.get(file.path());
                positions = hit == null ? new long[0] : hit.positions();
                existing =
                        hit != null && hit.deletionVector() != null
                                ? hit.deletionVector()
                                : store.readDeletionVector(file);
                if (hit != null) {
                    if (hit.physicalRows() != file.numRecords()) {
                        return null; // statistics that disagree with the rows: merge them
                    }
                    foundHere.addAll(hit.keys());
                }
            } else {
                KeyHits hits = store.locateKeys(file, keys.changed(), false);
                if (hits.physicalRows() != file.numRecords()) {
                    return null;
                }
                positions = hits.positions();
                existing = store.readDeletionVector(file);
                foundHere.addAll(hits.foundKeys());
            }
            DeletionVector union = existing.union(positions);
            deleted.add(union);
            offsets[i] = rows;
            rows += file.numRecords();
            dead += union.cardinality();
        }
        if (dead > options.compaction().deletedRowsThreshold() * rows) {
            return null;
        }
        DataFile joined = store.splice(partition, bin, KeyGroups.covering(bin));
        if (joined == null) {
            return null;
        }
        DataFile result;
        try {
            if (joined.numRecords() != rows) {
                throw new IllegalStateException(
                        "Joining "
                                + bin.size()
                                + " files of "
                                + rows
                                + " rows into one gave "
                                + joined.numRecords()
                                + " rows ("
                                + joined.path()
                                + ")");
            }
            DeletionVector vector = DeletionVector.concatenated(deleted, offsets);
            if (vector.isEmpty()) {
                result = joined;
            } else {
                DeletionVectorRef ref = vectors.add(vector);
                vectorBytes.add(ref.sizeInBytes() + 8L);
                result = joined.withDeletionVector(ref, joined.logStatistics());
            }
        } catch (RuntimeException e) {
            store.deleteUncommitted(joined);
            throw e;
        }
        found.addAll(foundHere);
        copied.add(rows - dead);
        return result;
    }

    /**
     * Rewrites one fold's files into new files without the changed rows, merged by key as
     * compaction merges them, so that the output is sorted and key statistics keep pruning.
     */
    private List<DataFile> foldLane(
            PartitionValues partition,
            List<DataFile> bin,
            KeyMatcher keys,
            Set<RowKey> found,
            LongAdder copied) {
        return store.write(
                partition,
                SurvivorStream.of(
                        store,
                        new SortedRunMerge(store, bin, rowOrder, options.readBatchSize()),
                        keys,
                        found,
                        copied),
                KeyGroups.covering(bin));
    }

    /** Splits files into at most {@code lanes} groups of similar total size. */
    static List<List<DataFile>> balance(List<DataFile> files, int lanes) {
        List<DataFile> bySize = new ArrayList<>(files);
        bySize.sort(Comparator.comparingLong(DataFile::sizeBytes).reversed());
        int count = Math.min(lanes, bySize.size());
        List<List<DataFile>> groups = new ArrayList<>(count);
        long[] totals = new long[count];
        for (int i = 0; i < count; i++) {
            groups.add(new ArrayList<>());
        }
        for (DataFile file : bySize) {
            int lightest = 0;
            for (int i = 1; i < count; i++) {
                if (totals[i] < totals[lightest]) {
                    lightest = i;
                }
            }
            groups.get(lightest).add(file);
            totals[lightest] += file.sizeBytes();
        }
        return groups;
    }

    private static long bytes(List<DataFile> files) {
        long total = 0;
        for (DataFile file : files) {
            total += file.sizeBytes();
        }
        return total;
    }

    private record LaneOutput(boolean fresh, List<DataFile> files) {}

    /** The outcome of finding and rewriting the files that hold changed keys. */
    private static final class Rewrite {
        final List<DataFile> removed = new ArrayList<>();
        final List<DataFile> survivorOutput = new ArrayList<>();
        final List<DataFile> freshOutput = new ArrayList<>();

        /** Removed files that come back with a new deletion vector. */
        final List<DataFile> vectorOutput = new ArrayList<>();

        final Set<RowKey> foundKeys = new HashSet<>();

        /** Changed keys found in files written earlier in the same checkpoint. */
        final Set<RowKey> foundFreshKeys = new HashSet<>();

        /** Where the key index located the changed keys, by file path; null without the index. */
        Map<String, PartitionKeyIndex.Located> located;

        long probed;
        long copiedRows;
        long vectorBytes;
    }
}
