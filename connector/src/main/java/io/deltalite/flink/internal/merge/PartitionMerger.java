package io.deltalite.flink.internal.merge;

import io.deltalite.flink.sink.PruneStrategy;
import io.deltalite.flink.sink.UpsertStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.LongAdder;

/**
 * Applies the changes of one partition to its live files, copy-on-write:
 *
 * <ol>
 *   <li>the upserted rows are sorted by key and written to new <em>upsert files</em>;
 *   <li>the live files that hold a changed key are found: files whose key statistics rule out every
 *       changed key are skipped, the rest are probed by reading only their key columns;
 *   <li>each file that holds one is streamed a batch at a time, the rows with a changed key are
 *       dropped, and the others are written to new <em>survivor files</em> — at most {@code
 *       max-parallel-files} files are read at once, each lane writing its own output;
 *   <li>files without a changed key are carried over untouched.
 * </ol>
 *
 * <p>Nothing here is visible in the table: the result lists files to remove and add, and a commit
 * makes them visible.
 */
public final class PartitionMerger {
    private final TableSchema schema;
    private final MergeOptions options;
    private final DataFileStore store;
    private final ParallelFileWork parallel;
    private final KeyProbe probe;
    private final Comparator<RowKey> keyOrder;
    private final int[] keyIndexes;

    /**
     * @param fileExecutor runs the per-file work (probes and rewrite lanes); its size bounds the
     *     files open at once across all merges sharing it; null runs everything on the caller
     */
    public PartitionMerger(MergeTable table, MergeOptions options, ExecutorService fileExecutor) {
        this.schema = table.schema();
        this.options = options;
        this.store = table.files();
        this.parallel = new ParallelFileWork(fileExecutor);
        this.probe = new KeyProbe(store, parallel);
        this.keyOrder = KeyOrder.keys(schema.matchKeyTypes());
        this.keyIndexes = schema.matchKeyIndexes();
    }

    /**
     * Merges {@code changes} into a partition whose live files are {@code liveFiles}.
     *
     * @param freshPaths paths among {@code liveFiles} that hold rows new in the current checkpoint
     *     (upsert files of an earlier merge of the same checkpoint); rewriting them yields upsert
     *     files again
     */
    public PartitionWriteResult merge(
            PartitionChanges changes, List<DataFile> liveFiles, Set<String> freshPaths) {
        List<DataFile> baseFiles = new ArrayList<>();
        for (DataFile file : liveFiles) {
            if (!freshPaths.contains(file.path())) {
                baseFiles.add(file);
            }
        }
        PartitionValues partition = changes.partition();
        List<DataFile> upsertFiles = writeUpserts(partition, changes.upsertedRows());
        Rewrite rewrite;
        try {
            rewrite = rewrite(partition, liveFiles, changes.changedKeys(), freshPaths);
        } catch (RuntimeException e) {
            upsertFiles.forEach(store::deleteUncommitted);
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
        UpsertStats stats =
                new UpsertStats(
                        -1,
                        1,
                        upserts.size() + rewrite.survivorOutput.size(),
                        rewrite.removed.size(),
                        liveFiles.size() - rewrite.removed.size(),
                        rewrite.probed,
                        upsertedKeys - updated - upsertedAgain + nullKeyInserts,
                        updated,
                        deleted,
                        rewrite.copiedRows,
                        changes.sourceRows(),
                        changes.nullKeyRows(),
                        bytes(upserts) + bytes(rewrite.survivorOutput));
        return new PartitionWriteResult(
                partition,
                LiveSetFingerprint.of(baseFiles),
                rewrite.removed,
                upserts,
                rewrite.survivorOutput,
                changes.deletedKeys(),
                stats);
    }

    /**
     * Redoes {@code stale} against the partition's current live files, keeping its upsert files:
     * the current files holding a key of an upsert file or a deleted key are rewritten without
     * those rows. The stale result's survivor files are not used and not deleted here.
     */
    public PartitionWriteResult remerge(PartitionWriteResult stale, List<DataFile> liveFiles) {
        Set<RowKey> upsertedKeys = new HashSet<>();
        for (DataFile file : stale.upsertFiles()) {
            try (BatchStream batches = store.readKeys(file)) {
                while (batches.hasNext()) {
                    RowBatch batch = batches.next();
                    for (int row = 0; row < batch.size(); row++) {
                        RowKey key = batch.keyAt(row);
                        if (key != null && batch.isLive(row)) {
                            upsertedKeys.add(key);
                        }
                    }
                }
            }
        }
        Set<RowKey> changedKeys = new HashSet<>(upsertedKeys);
        changedKeys.addAll(stale.deletedKeys());
        Rewrite rewrite = rewrite(stale.partition(), liveFiles, changedKeys, Set.of());
        long updated = 0;
        for (RowKey key : rewrite.foundKeys) {
            if (upsertedKeys.contains(key)) {
                updated++;
            }
        }
        long deleted = rewrite.foundKeys.size() - updated;
        UpsertStats before = stale.stats();
        UpsertStats stats =
                new UpsertStats(
                        -1,
                        1,
                        stale.upsertFiles().size() + rewrite.survivorOutput.size(),
                        rewrite.removed.size(),
                        liveFiles.size() - rewrite.removed.size(),
                        rewrite.probed,
                        before.rowsInserted() + before.rowsUpdated() - updated,
                        updated,
                        deleted,
                        rewrite.copiedRows,
                        before.sourceRows(),
                        before.nullKeyRows(),
                        bytes(stale.upsertFiles()) + bytes(rewrite.survivorOutput));
        return new PartitionWriteResult(
                stale.partition(),
                LiveSetFingerprint.of(liveFiles),
                rewrite.removed,
                stale.upsertFiles(),
                rewrite.survivorOutput,
                stale.deletedKeys(),
                stats);
    }

    private List<DataFile> writeUpserts(PartitionValues partition, List<Object[]> rows) {
        if (rows.isEmpty()) {
            return List.of();
        }
        // Sorted files have narrow key ranges, so later merges can skip them by statistics.
        // Rows without a key (null keys, append-only tables) keep their order, after the others.
        List<Object[]> sorted = new ArrayList<>(rows.size());
        if (!schema.isAppendOnly()) {
            List<Map.Entry<RowKey, Object[]>> keyed = new ArrayList<>(rows.size());
            List<Object[]> keyless = new ArrayList<>();
            for (Object[] row : rows) {
                RowKey key = RowKey.of(row, keyIndexes);
                if (key == null) {
                    keyless.add(row);
                } else {
                    keyed.add(Map.entry(key, row));
                }
            }
            keyed.sort((left, right) -> keyOrder.compare(left.getKey(), right.getKey()));
            keyed.forEach(entry -> sorted.add(entry.getValue()));
            sorted.addAll(keyless);
        } else {
            sorted.addAll(rows);
        }
        return store.write(partition, new NewRowStream(store, sorted, options.readBatchSize()));
    }

    private Rewrite rewrite(
            PartitionValues partition,
            List<DataFile> liveFiles,
            Collection<RowKey> changedKeys,
            Set<String> freshPaths) {
        Rewrite rewrite = new Rewrite();
        if (changedKeys.isEmpty() || liveFiles.isEmpty()) {
            return rewrite;
        }
        Set<RowKey> keys =
                changedKeys instanceof Set<RowKey> set ? set : new HashSet<>(changedKeys);
        List<DataFile> matched = findFilesHoldingChangedKeys(liveFiles, keys, rewrite);
        if (matched.isEmpty()) {
            return rewrite;
        }
        List<DataFile> baseMatched = new ArrayList<>();
        List<DataFile> freshMatched = new ArrayList<>();
        for (DataFile file : matched) {
            (freshPaths.contains(file.path()) ? freshMatched : baseMatched).add(file);
        }
        Set<RowKey> found = ConcurrentHashMap.newKeySet();
        LongAdder copied = new LongAdder();
        List<Callable<LaneOutput>> lanes = new ArrayList<>();
        for (List<DataFile> lane : balance(baseMatched, options.maxParallelFiles())) {
            lanes.add(
                    () -> new LaneOutput(false, rewriteLane(partition, lane, keys, found, copied)));
        }
        Set<RowKey> foundFresh = ConcurrentHashMap.newKeySet();
        if (!freshMatched.isEmpty()) {
            LongAdder ignored = new LongAdder();
            lanes.add(
                    () ->
                            new LaneOutput(
                                    true,
                                    rewriteLane(
                                            partition, freshMatched, keys, foundFresh, ignored)));
        }
        List<LaneOutput> outputs =
                parallel.runAll(lanes, output -> output.files.forEach(store::deleteUncommitted));
        for (LaneOutput output : outputs) {
            (output.fresh ? rewrite.freshOutput : rewrite.survivorOutput).addAll(output.files);
        }
        rewrite.removed.addAll(matched);
        rewrite.foundKeys.addAll(found);
        rewrite.foundFreshKeys.addAll(foundFresh);
        rewrite.copiedRows = copied.sum();
        return rewrite;
    }

    private List<DataFile> findFilesHoldingChangedKeys(
            List<DataFile> liveFiles, Set<RowKey> keys, Rewrite rewrite) {
        PruneStrategy strategy = options.pruneStrategy();
        if (strategy == PruneStrategy.NONE) {
            return liveFiles;
        }
        StatisticsPruner pruner = new StatisticsPruner(schema.matchKeyTypes(), keys);
        List<DataFile> candidates = new ArrayList<>();
        for (DataFile file : liveFiles) {
            if (pruner.mayContainAny(file)) {
                candidates.add(file);
            }
        }
        if (strategy == PruneStrategy.STATS || candidates.isEmpty()) {
            return candidates;
        }
        // Probe only where it can pay off: a file that statistics show to be densely filled
        // with keys around several changed ones is rewritten without reading its keys twice.
        List<DataFile> matched = new ArrayList<>();
        List<DataFile> uncertain = new ArrayList<>();
        for (DataFile file : candidates) {
            (pruner.almostCertainlyContainsAny(file) && !file.hasDeletionVector()
                            ? matched
                            : uncertain)
                    .add(file);
        }
        rewrite.probed = uncertain.size();
        if (!uncertain.isEmpty()) {
            matched.addAll(probe.filesHoldingAny(uncertain, keys));
        }
        return matched;
    }

    private List<DataFile> rewriteLane(
            PartitionValues partition,
            List<DataFile> files,
            Set<RowKey> keys,
            Set<RowKey> found,
            LongAdder copied) {
        return store.write(partition, new SurvivorStream(store, files, keys, found, copied));
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
        final Set<RowKey> foundKeys = new HashSet<>();

        /** Changed keys found in files written earlier in the same checkpoint. */
        final Set<RowKey> foundFreshKeys = new HashSet<>();

        long probed;
        long copiedRows;
    }
}
