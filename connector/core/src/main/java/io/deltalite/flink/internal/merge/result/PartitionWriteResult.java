package io.deltalite.flink.internal.merge.result;

import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.UpsertStats;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a merge of one partition produced, and everything needed to redo it against a newer
 * snapshot.
 *
 * <p>Added files come in two kinds. <em>Upsert files</em> hold rows that are new in this
 * checkpoint; they stay valid whatever else happens to the partition. <em>Survivor files</em> are
 * copies of unchanged rows of the removed files; they are only valid while the partition still has
 * exactly the files the merge planned against ({@link #baseFingerprint}). If it does not, the
 * committer discards the survivors and rewrites the current files, removing the keys of the upsert
 * files and the {@link #deletedKeys}. In deletion-vector mode a third kind replaces survivors:
 * <em>vector files</em>, removed files that come back with a new deletion vector marking the rows
 * of changed keys (same path, another identity); they too are valid only on the base they were
 * planned against.
 *
 * <p>The result of the last merge of a checkpoint may also carry a {@link Compaction} of other,
 * committed files of the partition; it is committed with the merge, as its own {@code dataChange =
 * false} actions, and dropped instead when its inputs changed (see {@link Compaction}).
 *
 * @param partition the partition
 * @param baseVersion the table version the merge planned against (its view added this writer's
 *     uncommitted results to it); the checkpoint was not committed at that version
 * @param baseFingerprint fingerprint of the live files the merge planned against
 * @param removedFiles files of that set that the merge replaced
 * @param upsertFiles new files with the rows that are new in this checkpoint
 * @param survivorFiles new files with the unchanged rows of the removed files
 * @param vectorFiles removed files given a new deletion vector
 * @param vectorFilePaths the deletion vector files the vectors of {@code vectorFiles} are in
 * @param deletedKeys keys whose last change in this checkpoint is a delete, inline or staged
 * @param stats what the merge did
 * @param compaction files of the partition that no change touched, rewritten into fewer
 * @param unmatchedKeyOnlyDeletes the deleted keys whose delete carried nothing but the key (see
 *     {@code PartitionChanges#keyOnlyDeletes()}) and that the merge found no row of: not in this
 *     partition, nor in another as far as its writer could see. Another writer's rows not committed
 *     yet it could not see: the committer checks that no other partition holds these keys after the
 *     commit (inline or staged, as the deleted keys, of which they are a part)
 */
public record PartitionWriteResult(
        PartitionValues partition,
        long baseVersion,
        String baseFingerprint,
        List<DataFile> removedFiles,
        List<DataFile> upsertFiles,
        List<DataFile> survivorFiles,
        List<DataFile> vectorFiles,
        List<String> vectorFilePaths,
        DeletedKeys deletedKeys,
        UpsertStats stats,
        Compaction compaction,
        DeletedKeys unmatchedKeyOnlyDeletes) {

    /** A result without unmatched key-only deletes. */
    public PartitionWriteResult(
            PartitionValues partition,
            long baseVersion,
            String baseFingerprint,
            List<DataFile> removedFiles,
            List<DataFile> upsertFiles,
            List<DataFile> survivorFiles,
            List<DataFile> vectorFiles,
            List<String> vectorFilePaths,
            DeletedKeys deletedKeys,
            UpsertStats stats,
            Compaction compaction) {
        this(
                partition,
                baseVersion,
                baseFingerprint,
                removedFiles,
                upsertFiles,
                survivorFiles,
                vectorFiles,
                vectorFilePaths,
                deletedKeys,
                stats,
                compaction,
                DeletedKeys.NONE);
    }

    /** A result without a compaction. */
    public PartitionWriteResult(
            PartitionValues partition,
            long baseVersion,
            String baseFingerprint,
            List<DataFile> removedFiles,
            List<DataFile> upsertFiles,
            List<DataFile> survivorFiles,
            List<DataFile> vectorFiles,
            List<String> vectorFilePaths,
            DeletedKeys deletedKeys,
            UpsertStats stats) {
        this(
                partition,
                baseVersion,
                baseFingerprint,
                removedFiles,
                upsertFiles,
                survivorFiles,
                vectorFiles,
                vectorFilePaths,
                deletedKeys,
                stats,
                Compaction.NONE);
    }

    /** A result without deletion vectors. */
    public PartitionWriteResult(
            PartitionValues partition,
            long baseVersion,
            String baseFingerprint,
            List<DataFile> removedFiles,
            List<DataFile> upsertFiles,
            List<DataFile> survivorFiles,
            DeletedKeys deletedKeys,
            UpsertStats stats) {
        this(
                partition,
                baseVersion,
                baseFingerprint,
                removedFiles,
                upsertFiles,
                survivorFiles,
                List.of(),
                List.of(),
                deletedKeys,
                stats);
    }

    public PartitionWriteResult {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(baseFingerprint, "baseFingerprint");
        removedFiles = List.copyOf(removedFiles);
        upsertFiles = List.copyOf(upsertFiles);
        survivorFiles = List.copyOf(survivorFiles);
        vectorFiles = List.copyOf(vectorFiles);
        vectorFilePaths = List.copyOf(new java.util.LinkedHashSet<>(vectorFilePaths));
        Objects.requireNonNull(deletedKeys, "deletedKeys");
        Objects.requireNonNull(stats, "stats");
        Objects.requireNonNull(compaction, "compaction");
        Objects.requireNonNull(unmatchedKeyOnlyDeletes, "unmatchedKeyOnlyDeletes");
    }

    /** Every file this result adds. */
    public List<DataFile> addedFiles() {
        List<DataFile> added =
                new ArrayList<>(upsertFiles.size() + survivorFiles.size() + vectorFiles.size());
        added.addAll(upsertFiles);
        added.addAll(survivorFiles);
        added.addAll(vectorFiles);
        return added;
    }

    /**
     * Applies this result to the files of its partition, by path: what it removes (and its
     * compaction's inputs) goes, what it adds (and its compaction's outputs) comes.
     */
    public void applyTo(java.util.Map<String, DataFile> files) {
        removedFiles.forEach(file -> files.remove(file.path()));
        addedFiles().forEach(file -> files.put(file.path(), file));
        compaction.inputs().forEach(file -> files.remove(file.path()));
        compaction.outputs().forEach(file -> files.put(file.path(), file));
    }

    /** The paths of every file this result removes or adds, by its merge or its compaction. */
    public Set<String> touchedPaths() {
        Set<String> paths = paths(removedFiles);
        paths.addAll(paths(addedFiles()));
        paths.addAll(paths(compaction.inputs()));
        paths.addAll(paths(compaction.outputs()));
        return paths;
    }

    /**
     * Every file this result's state refers to: the files it adds (merge and compaction) and its
     * staged keys.
     */
    public List<String> writtenPaths() {
        List<String> paths = new ArrayList<>();
        upsertFiles.forEach(file -> paths.add(file.path()));
        survivorFiles.forEach(file -> paths.add(file.path()));
        compaction.outputs().forEach(file -> paths.add(file.path()));
        // Not the data files of vector files: those belong to the table already.
        paths.addAll(vectorFilePaths);
        paths.addAll(deletedKeys.stagedPaths());
        paths.addAll(unmatchedKeyOnlyDeletes.stagedPaths());
        return paths;
    }

    /** This result as the result of {@code other}, the same partition in other Java types. */
    public PartitionWriteResult withPartition(PartitionValues other) {
        return new PartitionWriteResult(
                other,
                baseVersion,
                baseFingerprint,
                removedFiles,
                upsertFiles,
                survivorFiles,
                vectorFiles,
                vectorFilePaths,
                deletedKeys,
                stats,
                compaction,
                unmatchedKeyOnlyDeletes);
    }

    /** This result, whose vectors are all in {@code paths} (a subset of its vector files). */
    public PartitionWriteResult withVectorFilePaths(List<String> paths) {
        return with(paths, stats, compaction);
    }

    /**
     * This result with {@code added}, planned against the same files, and the file counts of the
     * partition after both.
     */
    public PartitionWriteResult withCompaction(Compaction added, long liveFiles, long smallFiles) {
        return with(
                vectorFilePaths,
                MergeStats.withFileCounts(
                        MergeStats.plusCompaction(stats, added), liveFiles, smallFiles),
                compaction.plus(added));
    }

    /**
     * This result without its compaction, whose inputs changed: its outputs stay in {@link
     * #writtenPaths()} of the checkpoint's state, so the writer deletes them once it sees the
     * checkpoint committed without them.
     */
    public PartitionWriteResult withoutCompaction() {
        return with(
                vectorFilePaths, MergeStats.minusCompaction(stats, compaction), Compaction.NONE);
    }

    private PartitionWriteResult with(
            List<String> newVectorFilePaths, UpsertStats newStats, Compaction newCompaction) {
        return new PartitionWriteResult(
                partition,
                baseVersion,
                baseFingerprint,
                removedFiles,
                upsertFiles,
                survivorFiles,
                vectorFiles,
                newVectorFilePaths,
                deletedKeys,
                newStats,
                newCompaction,
                unmatchedKeyOnlyDeletes);
    }

    /**
     * The files it adds that carry a deletion vector: the vector files, and the files a fold joined
     * from small files with theirs (survivor files, see {@code PartitionMerger}).
     */
    public List<DataFile> filesWithDeletionVectors() {
        List<DataFile> files = new ArrayList<>(vectorFiles);
        for (DataFile file : survivorFiles) {
            if (file.hasDeletionVector()) {
                files.add(file);
            }
        }
        for (DataFile file : upsertFiles) {
            if (file.hasDeletionVector()) {
                files.add(file);
            }
        }
        return files;
    }

    /** Whether this result only compacts: it removes, adds and deletes nothing else. */
    public boolean changesNoData() {
        return removedFiles.isEmpty()
                && upsertFiles.isEmpty()
                && survivorFiles.isEmpty()
                && vectorFiles.isEmpty()
                && deletedKeys.inline().isEmpty()
                && deletedKeys.staged().isEmpty();
    }

    /** Whether committing this result would change nothing. */
    public boolean isNoop() {
        return removedFiles.isEmpty()
                && upsertFiles.isEmpty()
                && survivorFiles.isEmpty()
                && vectorFiles.isEmpty()
                && compaction.isEmpty();
    }

    /**
     * The combined effect of this result followed by {@code later}, a merge of the same partition
     * in the same checkpoint that planned against this result's files. Files this result added and
     * {@code later} removed never reach the table: they are returned by {@link
     * #filesReplacedBy(PartitionWriteResult)} for deletion.
     */
    public PartitionWriteResult then(PartitionWriteResult later) {
        if (!partition.equals(later.partition)) {
            throw new IllegalArgumentException("results of different partitions");
        }
        if (!compaction.isEmpty()) {
            throw new IllegalStateException(
                    "a result with a compaction is the last merge of its checkpoint");
        }
        Set<String> removedLater = paths(later.removedFiles);
        Set<String> addedHere = paths(addedFiles());
        List<DataFile> removed = new ArrayList<>(removedFiles);
        for (DataFile file : later.removedFiles) {
            if (!addedHere.contains(file.path())) {
                removed.add(file);
            }
        }
        List<DataFile> upserts = new ArrayList<>();
        for (DataFile file : upsertFiles) {
            if (!removedLater.contains(file.path())) {
                upserts.add(file);
            }
        }
        upserts.addAll(later.upsertFiles);
        List<DataFile> survivors = new ArrayList<>();
        for (DataFile file : survivorFiles) {
            if (!removedLater.contains(file.path())) {
                survivors.add(file);
            }
        }
        survivors.addAll(later.survivorFiles);
        List<DataFile> vectors = new ArrayList<>();
        for (DataFile file : vectorFiles) {
            if (!removedLater.contains(file.path())) {
                vectors.add(file);
            }
        }
        vectors.addAll(later.vectorFiles);
        List<String> vectorPaths = new ArrayList<>(vectorFilePaths);
        vectorPaths.addAll(later.vectorFilePaths);
        // Row counts and work add up; the files are those of the combined result, and the files
        // carried over are the base files (kept or removed by the first merge) it does not remove.
        UpsertStats sum = stats.plus(MergeStats.minusCompaction(later.stats, later.compaction));
        long baseFiles = stats.filesCarriedOver() + stats.filesRemoved();
        UpsertStats combined =
                new UpsertStats(
                        -1,
                        stats.partitionsTouched(),
                        upserts.size() + survivors.size() + vectors.size(),
                        removed.size(),
                        Math.max(0, baseFiles - removed.size()),
                        sum.filesProbed(),
                        sum.rowsInserted(),
                        sum.rowsUpdated(),
                        sum.rowsDeleted(),
                        sum.rowsCopied(),
                        sum.sourceRows(),
                        sum.nullKeyRows(),
                        bytes(upserts) + bytes(survivors) + sum.deletionVectorBytes(),
                        vectors.size(),
                        sum.deletionVectorBytes());
        combined =
                MergeStats.withFileCounts(
                        MergeStats.plusCompaction(combined, later.compaction),
                        later.stats.liveFiles(),
                        later.stats.smallFiles());
        // The earlier merge planned against the older version and fingerprint: if the partition
        // changed in between, the combined result is stale and gets merged again at commit.
        return new PartitionWriteResult(
                partition,
                Math.min(baseVersion, later.baseVersion),
                baseFingerprint,
                removed,
                upserts,
                survivors,
                vectors,
                vectorPaths,
                deletedKeys.plus(later.deletedKeys),
                combined,
                later.compaction,
                unmatchedKeyOnlyDeletes.plus(later.unmatchedKeyOnlyDeletes));
    }

    private static long bytes(List<DataFile> files) {
        long total = 0;
        for (DataFile file : files) {
            total += file.sizeBytes();
        }
        return total;
    }

    /**
     * Files this result wrote that {@code later} removes again. Not its vector files: their data
     * file is part of the table (only their deletion vector was new).
     */
    public List<DataFile> filesReplacedBy(PartitionWriteResult later) {
        Set<String> removedLater = paths(later.removedFiles);
        List<DataFile> replaced = new ArrayList<>();
        List<DataFile> written = new ArrayList<>(upsertFiles);
        written.addAll(survivorFiles);
        for (DataFile file : written) {
            if (removedLater.contains(file.path())) {
                replaced.add(file);
            }
        }
        return replaced;
    }

    private static Set<String> paths(List<DataFile> files) {
        Set<String> paths = new HashSet<>();
        files.forEach(file -> paths.add(file.path()));
        return paths;
    }
}
