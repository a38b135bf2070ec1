package io.deltalite.flink.internal.merge.rewrite;

import io.deltalite.flink.internal.merge.index.KeyIndex;
import io.deltalite.flink.internal.merge.index.PartitionKeyIndex;
import io.deltalite.flink.internal.merge.probe.ParallelFileWork;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.DeletionVectorSink;
import io.deltalite.flink.internal.merge.table.KeyHits;
import io.deltalite.flink.internal.merge.table.KeyMatcher;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.DeletionVectorRef;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Deletion-vector mode of a merge: instead of rewriting a committed file that holds changed keys,
 * it finds the positions of those rows and marks them in the file's deletion vector. Reading the
 * key columns to find the positions is also the exact probe: a file with no live row of a changed
 * key is left alone.
 *
 * <p>Each file that holds changed keys ends one of four ways:
 *
 * <ul>
 *   <li>every row of it is deleted: it is removed;
 *   <li>the log has no row count for it (readers need one to count rows without reading): it is
 *       handed back to be rewritten copy-on-write;
 *   <li>more than {@code rewriteThreshold} of its rows would be deleted: it is <em>worn</em>, and
 *       its live rows are rewritten so that readers do not drag mostly-dead files — paced, a few
 *       row groups per merge, see below;
 *   <li>otherwise it comes back as a <em>vector file</em>: the same data file with the union of its
 *       old deletion vector and the new positions, added to the round's {@link DeletionVectorSink}.
 * </ul>
 *
 * <p><b>Worn files are rewritten a few row groups at a time.</b> Under updates spread evenly over a
 * table, its large files pass the threshold at about the same checkpoint; rewriting all of them
 * there made that one checkpoint read a good part of the table (a 4.9 s checkpoint among 0.4 s
 * ones, BENCHMARKS.md §11l), and even one 18 MB file took 2 s. A merge reads at most twice {@code 1
 * / rewriteThreshold} rows of worn files per row it deletes (a file is rewritten once {@code
 * rewriteThreshold} of its rows are deleted, so over its life each deleted row costs {@code 1 /
 * rewriteThreshold} rows read: twice that keeps up with the files that wear out). Within that
 * allowance, the most deleted worn file first, a worn file gives up its row groups in file order:
 * the live rows of the next row groups are written to a new file ({@link RowGroupMove}) and those
 * row groups are marked deleted in the file's vector, so the rows a checkpoint reads stay in
 * proportion to the rows it changes; the merge that moves the last live row group removes the file.
 * The first worn file moves at least one row group. A file whose row groups are all due at once, or
 * that the store cannot read by row groups, is handed back to be rewritten whole, within the
 * allowance or as the first. Worn files the allowance does not reach are marked like any other and
 * wait for a later merge; marking a file past the threshold is as correct as rewriting it, readers
 * skip a few more dead rows meanwhile (a worn file no merge touches again is left to compaction's
 * {@code compaction.deleted-rows-threshold}).
 */
final class DeletionVectorMarker {
    private final DataFileStore store;
    private final ParallelFileWork parallel;
    private final double rewriteThreshold;

    DeletionVectorMarker(DataFileStore store, ParallelFileWork parallel, double rewriteThreshold) {
        this.store = store;
        this.parallel = parallel;
        this.rewriteThreshold = rewriteThreshold;
    }

    /**
     * What marking a set of files decided.
     *
     * @param foundKeys the changed keys found in the removed and marked files (a list: the caller
     *     gathers them into its own set, so they are not hashed twice)
     */
    record Marking(
            List<DataFile> removed,
            List<DataFile> vectorFiles,
            List<DataFile> toRewrite,
            List<RowGroupMove> moves,
            List<RowKey> foundKeys,
            long vectorBytes) {}

    /**
     * The live rows of row groups {@code fromGroup} (inclusive) to {@code toGroup} of a worn file,
     * to be written into new files: the marking already counts those row groups deleted in the
     * file's new vector (or removed the file, when nothing else of it was live).
     */
    record RowGroupMove(DataFile file, int fromGroup, int toGroup) {}

    /** Finds the rows of {@code keys} in {@code files} and marks them in {@code sink}. */
    Marking mark(List<DataFile> files, KeyMatcher keys, DeletionVectorSink sink) {
        List<Callable<Located>> locates = new ArrayList<>(files.size());
        for (DataFile file : files) {
            locates.add(() -> locate(file, keys));
        }
        return decide(parallel.runAll(locates, unused -> {}), sink);
    }

    /**
     * Marks rows a {@link KeyIndex} located, without reading the files: the positions are live rows
     * of each file's current deletion vector, and the file's row count is the one in the log.
     */
    Marking markLocated(List<PartitionKeyIndex.Located> rows, DeletionVectorSink sink) {
        List<Located> located = new ArrayList<>(rows.size());
        for (PartitionKeyIndex.Located hit : rows) {
            located.add(
                    new Located(
                            hit.file(),
                            hit.positions(),
                            hit.keys(),
                            // The rows the index read, not the statistics' claim: a file whose
                            // statistics disagree (or lack a count) is rewritten, see decide.
                            hit.physicalRows(),
                            hit.deletionVector()));
        }
        return decide(located, sink);
    }

    private Marking decide(List<Located> located, DeletionVectorSink sink) {
        List<DataFile> removed = new ArrayList<>();
        List<DataFile> vectorFiles = new ArrayList<>();
        List<DataFile> toRewrite = new ArrayList<>();
        List<RowKey> found = new ArrayList<>();
        List<Worn> worn = new ArrayList<>();
        long deletedRows = 0;
        long bytes = 0;
        for (Located hit : located) {
            if (hit.positions.length == 0) {
                continue;
            }
            DataFile file = hit.file;
            DeletionVector existing =
                    hit.existing != null ? hit.existing : store.readDeletionVector(file);
            DeletionVector union = existing.union(hit.positions);
            if (union.cardinality() == existing.cardinality()) {
                continue; // cannot happen for live rows, but a no-op must stay one
            }
            deletedRows += union.cardinality() - existing.cardinality();
            if (union.cardinality() >= hit.physicalRows) {
                removed.add(file);
                found.addAll(hit.keys);
            } else if (!file.hasStatistics() || file.numRecords() != hit.physicalRows) {
                toRewrite.add(file);
            } else if (union.cardinality() > rewriteThreshold * hit.physicalRows) {
                worn.add(new Worn(hit, union));
            } else {
                bytes += markOne(hit, union, sink, removed, vectorFiles, found);
            }
        }
        // The most deleted first; the rest within the allowance, or marked to wait.
        worn.sort(
                Comparator.comparingDouble(Worn::deadShare)
                        .reversed()
                        .thenComparing(candidate -> candidate.hit.file.path()));
        // Rows read to rewrite worn files beyond the first, per row deleted: see the class comment.
        double allowance = 2 / rewriteThreshold * deletedRows;
        long rowsToRead = 0;
        List<RowGroupMove> moves = new ArrayList<>();
        for (Worn candidate : worn) {
            Located hit = candidate.hit;
            long[] bounds =
                    rowsToRead == 0 || rowsToRead < allowance
                            ? store.rowGroupBounds(hit.file)
                            : null;
            int[] span =
                    bounds == null
                            ? null
                            : span(
                                    bounds,
                                    candidate.union,
                                    allowance - rowsToRead,
                                    rowsToRead == 0);
            if (bounds == null
                    || bounds[bounds.length - 1] != hit.physicalRows
                    || (span != null && span[0] == 0 && span[1] == bounds.length - 1)) {
                // The whole file: it cannot be read by row groups, or all of it is due.
                long rows = hit.physicalRows;
                if (rowsToRead == 0 || rowsToRead + rows <= allowance) {
                    toRewrite.add(hit.file);
                    rowsToRead += rows;
                } else {
                    bytes += markOne(hit, candidate.union, sink, removed, vectorFiles, found);
                }
            } else if (span == null) {
                bytes += markOne(hit, candidate.union, sink, removed, vectorFiles, found);
            } else {
                DeletionVector moved = candidate.union.withRange(bounds[span[0]], bounds[span[1]]);
                moves.add(new RowGroupMove(hit.file, span[0], span[1]));
                rowsToRead += bounds[span[1]] - bounds[span[0]];
                if (moved.cardinality() >= hit.physicalRows) {
                    removed.add(hit.file);
                    found.addAll(hit.keys);
                } else {
                    bytes += markOne(hit, moved, sink, removed, vectorFiles, found);
                }
            }
        }
        return new Marking(removed, vectorFiles, toRewrite, moves, found, bytes);
    }

    /**
     * The row groups of a worn file to move now, as {@code {from, to}}: from its first row group
     * with a live row, as many as {@code allowance} rows read pays for (at least one if {@code
     * first}); null when not even one fits.
     */
    private static int[] span(
            long[] bounds, DeletionVector deleted, double allowance, boolean first) {
        int groups = bounds.length - 1;
        int from = 0;
        while (from < groups
                && deleted.cardinality(bounds[from], bounds[from + 1])
                        == bounds[from + 1] - bounds[from]) {
            from++;
        }
        if (from == groups) {
            return null; // cannot happen: a worn file still has a live row
        }
        int to = from;
        while (to < groups
                && ((to == from && first) || bounds[to + 1] - bounds[from] <= allowance)) {
            to++;
        }
        return to == from ? null : new int[] {from, to};
    }

    /** Marks {@code hit}'s rows with {@code union}; the bytes the vector takes. */
    private static long markOne(
            Located hit,
            DeletionVector union,
            DeletionVectorSink sink,
            List<DataFile> removed,
            List<DataFile> vectorFiles,
            List<RowKey> found) {
        DeletionVectorRef ref = sink.add(union);
        removed.add(hit.file);
        vectorFiles.add(hit.file.withDeletionVector(ref, hit.file.logStatistics()));
        found.addAll(hit.keys);
        return ref.sizeInBytes() + 8L;
    }

    /** A file whose vector would pass the rewrite threshold, with that vector. */
    private record Worn(Located hit, DeletionVector union) {
        double deadShare() {
            return (double) union.cardinality() / hit.physicalRows;
        }
    }

    /** The positions of the live rows of {@code file} whose key is one of {@code keys}. */
    private Located locate(DataFile file, KeyMatcher keys) {
        KeyHits hits = store.locateKeys(file, keys.changed(), false);
        return new Located(file, hits.positions(), hits.foundKeys(), hits.physicalRows(), null);
    }

    /**
     * @param existing the file's current deletion vector when already read, else null
     */
    private record Located(
            DataFile file,
            long[] positions,
            Collection<RowKey> keys,
            long physicalRows,
            DeletionVector existing) {}
}
