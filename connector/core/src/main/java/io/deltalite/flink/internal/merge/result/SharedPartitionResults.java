package io.deltalite.flink.internal.merge.result;

import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.DeletionVectorSink;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.UpsertStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Supplier;

/**
 * Combines the results that several writers made for one partition in one checkpoint into the one
 * result the committer lands, when the sink is distributed by key and every writer may change every
 * partition. The writers' keys are disjoint — all changes of a key reach one writer, and within one
 * job attempt a key keeps its writer — so their merges compose as long as each is still valid on
 * the live files and they did not act on the same file in incompatible ways. The rules:
 *
 * <ol>
 *   <li><b>Only this attempt's own commits since.</b> A writer planned against the table at its
 *       base version plus its own pending results. Commits since then are harmless only if they are
 *       checkpoints of the same lineage prepared by this job attempt (whose writers own other
 *       keys): those add rows of other keys, copy rows of files they rewrote (which then are no
 *       longer live), and mark rows of other keys. Any other commit — another job, Spark, a
 *       checkpoint restored from before this attempt, when keys had other owners — makes the
 *       results stale.
 *   <li><b>What a result removes is still there.</b> A file it marked must still be live (its
 *       vector may have grown: vectors only grow); a file it rewrote or removed must be live
 *       exactly as it read it, or the rows it copied would bring back rows others deleted.
 *   <li><b>A rewrite is exclusive.</b> A file that one result rewrote or removed must not be
 *       removed or marked by another result of the checkpoint; marks of several results compose.
 *   <li><b>One file, one vector.</b> A file marked by several results, or whose live vector grew
 *       since a result read it, comes back once with the union of the live vector and theirs,
 *       written into a vector file of the committer's; a union that deletes every row removes it.
 *   <li><b>Compaction yields.</b> A result's compaction that read a file another result of the
 *       checkpoint touched, or that an earlier compaction read, is dropped (its outputs stay
 *       uncommitted; its writer deletes them), so no file is compacted away in the commit that
 *       gives it a new vector and none is compacted twice. The committer then checks the rest on
 *       the live files, as for any compaction.
 * </ol>
 *
 * If rule 1, 2 or 3 fails, the combined result has a fingerprint no live set has, and the committer
 * merges the partition again, alone, from all writers' upsert files and deleted keys ({@link
 * PartitionMerger#remerge}). A combined result that passes gets the live files' fingerprint.
 */
public final class SharedPartitionResults {
    /** The fingerprint of a combined result that must be merged again: no live set has it. */
    static final String MERGE_AGAIN = "merge-again";

    /** Starts the fingerprint of the result of a writer that shares its partitions. */
    private static final String SHARED = "shared:";

    private SharedPartitionResults() {}

    /**
     * The fingerprint a writer that shares its partitions gives a result planned on {@code base}.
     */
    public static String sharedFingerprint(String base) {
        return SHARED + base;
    }

    /** Whether {@code result} is from a writer that shares its partitions. */
    public static boolean isShared(PartitionWriteResult result) {
        return result.baseFingerprint().startsWith(SHARED);
    }

    /** The combined result, and the vector file written for it (null if none). */
    public record Combined(PartitionWriteResult result, String vectorFile) {}

    /**
     * @param results results of one partition and checkpoint, one per writer that changed it
     * @param liveFiles the partition's live files now
     * @param trustedSince whether every commit after a version is harmless by rule 1
     * @param vectors opens the vector file for unions; called at most once
     */
    public static Combined combine(
            List<PartitionWriteResult> results,
            List<DataFile> liveFiles,
            LongPredicate trustedSince,
            DataFileStore store,
            Supplier<DeletionVectorSink> vectors) {
        if (results.size() == 1 && !isShared(results.get(0))) {
            return new Combined(results.get(0), null);
        }
        Map<String, DataFile> live = new HashMap<>();
        liveFiles.forEach(file -> live.put(file.path(), file));
        List<PartitionWriteResult> yielding = withoutConflictingCompactions(results);
        Map<String, List<DataFile>> removedBy = new LinkedHashMap<>();
        Map<String, List<DataFile>> markedBy = new LinkedHashMap<>();
        Map<String, String> readAs = new HashMap<>();
        boolean composable = true;
        for (PartitionWriteResult result : yielding) {
            composable &=
                    isShared(result)
                            && trustedSince.test(result.baseVersion())
                            && isValidOn(result, live);
            for (DataFile file : result.removedFiles()) {
                removedBy.computeIfAbsent(file.path(), path -> new ArrayList<>()).add(file);
            }
            for (DataFile file : result.vectorFiles()) {
                markedBy.computeIfAbsent(file.path(), path -> new ArrayList<>()).add(file);
            }
            result.removedFiles().forEach(file -> readAs.put(file.path(), file.identity()));
        }
        for (Map.Entry<String, List<DataFile>> removal : removedBy.entrySet()) {
            int marks = markedBy.getOrDefault(removal.getKey(), List.of()).size();
            composable &= removal.getValue().size() == 1 || marks == removal.getValue().size();
        }
        List<DataFile> upserts = new ArrayList<>();
        List<DataFile> survivors = new ArrayList<>();
        List<String> vectorFilePaths = new ArrayList<>();
        DeletedKeys deletedKeys = DeletedKeys.NONE;
        DeletedKeys unmatchedKeyOnlyDeletes = DeletedKeys.NONE;
        Compaction compaction = Compaction.NONE;
        UpsertStats sum = UpsertStats.EMPTY;
        long baseVersion = Long.MAX_VALUE;
        long liveChange = 0;
        long small = 0;
        for (PartitionWriteResult result : yielding) {
            upserts.addAll(result.upsertFiles());
            survivors.addAll(result.survivorFiles());
            vectorFilePaths.addAll(result.vectorFilePaths());
            deletedKeys = deletedKeys.plus(result.deletedKeys());
            unmatchedKeyOnlyDeletes =
                    unmatchedKeyOnlyDeletes.plus(result.unmatchedKeyOnlyDeletes());
            compaction = compaction.plus(result.compaction());
            sum = sum.plus(result.stats());
            baseVersion = Math.min(baseVersion, result.baseVersion());
            UpsertStats stats = result.stats();
            liveChange += stats.liveFiles() - (stats.filesCarriedOver() + stats.filesRemoved());
            small = Math.max(small, stats.smallFiles());
        }
        // File counts: each writer counted its own view; the sum of their changes approximates it.
        UpsertStats stats =
                MergeStats.asOnePartition(sum, Math.max(0, liveFiles.size() + liveChange), small);
        PartitionValues partition = yielding.get(0).partition();
        if (!composable) {
            return new Combined(
                    new PartitionWriteResult(
                            partition,
                            baseVersion,
                            MERGE_AGAIN,
                            new ArrayList<>(firstOfEach(removedBy)),
                            upserts,
                            survivors,
                            List.of(),
                            vectorFilePaths,
                            deletedKeys,
                            stats,
                            compaction,
                            unmatchedKeyOnlyDeletes),
                    null);
        }
        // Removes name each file as it is live now: that is the entry the log replaces.
        List<DataFile> removed = new ArrayList<>();
        removedBy.keySet().forEach(path -> removed.add(live.get(path)));
        List<DataFile> marked = new ArrayList<>();
        DeletionVectorSink sink = null;
        try {
            for (Map.Entry<String, List<DataFile>> entry : markedBy.entrySet()) {
                List<DataFile> marks = entry.getValue();
                DataFile now = live.get(entry.getKey());
                if (marks.size() == 1 && now.identity().equals(readAs.get(entry.getKey()))) {
                    marked.add(marks.get(0));
                    continue;
                }
                DeletionVector union = store.readDeletionVector(now);
                for (DataFile mark : marks) {
                    union = union.union(store.readDeletionVector(mark));
                }
                if (now.hasStatistics() && union.cardinality() >= now.numRecords()) {
                    continue; // every row deleted: the file is only removed
                }
                if (sink == null) {
                    sink = vectors.get();
                }
                marked.add(now.withDeletionVector(sink.add(union), now.logStatistics()));
            }
        } catch (RuntimeException e) {
            if (sink != null) {
                sink.discard(); // nothing is written before close
            }
            throw e;
        }
        String vectorFile = null;
        if (sink != null) {
            try {
                sink.close();
            } catch (RuntimeException e) {
                sink.discard();
                throw e;
            }
            vectorFile = sink.path();
            vectorFilePaths.add(vectorFile);
        }
        return new Combined(
                new PartitionWriteResult(
                        partition,
                        baseVersion,
                        LiveSetFingerprint.of(liveFiles),
                        removed,
                        upserts,
                        survivors,
                        marked,
                        vectorFilePaths,
                        deletedKeys,
                        stats,
                        compaction,
                        unmatchedKeyOnlyDeletes),
                vectorFile);
    }

    /** Rule 2: what {@code result} removes is live — as it read it, unless it only marked it. */
    private static boolean isValidOn(PartitionWriteResult result, Map<String, DataFile> live) {
        Set<String> marked = new HashSet<>();
        result.vectorFiles().forEach(file -> marked.add(file.path()));
        for (DataFile file : result.removedFiles()) {
            DataFile now = live.get(file.path());
            if (now == null
                    || (!marked.contains(file.path()) && !now.identity().equals(file.identity()))) {
                return false;
            }
        }
        return true;
    }

    private static List<DataFile> firstOfEach(Map<String, List<DataFile>> files) {
        List<DataFile> first = new ArrayList<>();
        files.values().forEach(these -> first.add(these.get(0)));
        return first;
    }

    /** The results, each without its compaction if that read a file another result touched. */
    private static List<PartitionWriteResult> withoutConflictingCompactions(
            List<PartitionWriteResult> results) {
        List<Set<String>> mergeTouched = new ArrayList<>();
        for (PartitionWriteResult result : results) {
            Set<String> paths = new HashSet<>();
            result.removedFiles().forEach(file -> paths.add(file.path()));
            result.addedFiles().forEach(file -> paths.add(file.path()));
            mergeTouched.add(paths);
        }
        Set<String> compacted = new HashSet<>();
        List<PartitionWriteResult> kept = new ArrayList<>(results.size());
        for (int i = 0; i < results.size(); i++) {
            PartitionWriteResult result = results.get(i);
            boolean conflicts = false;
            for (DataFile input : result.compaction().inputs()) {
                conflicts |= compacted.contains(input.path());
                for (int other = 0; other < results.size(); other++) {
                    conflicts |= other != i && mergeTouched.get(other).contains(input.path());
                }
            }
            if (conflicts) {
                kept.add(result.withoutCompaction());
            } else {
                result.compaction().inputs().forEach(file -> compacted.add(file.path()));
                kept.add(result);
            }
        }
        return kept;
    }
}
