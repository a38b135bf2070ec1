package io.deltalite.flink.internal.merge.compaction;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.Compaction;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites committed files of one partition into fewer, larger ones, without changing a row, so
 * that a table written every few seconds for months keeps a bounded number of files.
 *
 * <p>What it picks ({@link #plan}):
 *
 * <ul>
 *   <li><b>Worn files</b>: a file whose deletion vector deletes more than {@code
 *       compaction.deleted-rows-threshold} of its rows is rewritten on its own, without them.
 *   <li><b>Small files</b> (below {@code compaction.small-file-size}) are merged by <em>size
 *       tier</em>: tier {@code t} holds the files between {@code small / 4^(t+1)} and {@code small
 *       / 4^t}; as soon as a tier holds {@value #FAN_IN} files they become one file of the next
 *       tier up. A row is so rewritten about once per tier (write amplification {@code log4(small /
 *       smallest file)}, not one rewrite per checkpoint), and a partition holds at most {@code
 *       (FAN_IN - 1)} small files per tier: with the defaults (32 MiB small, {@value #TIERS} tiers)
 *       at most 21 small files once compaction has caught up. The one-off pass ({@link
 *       Policy#PACK}) instead packs all small files into bins of up to the target file size.
 * </ul>
 *
 * <p>The files of a bin are merged in the table's row order ({@link SortedRunMerge}, {@link
 * RowOrder}: by clustering columns, then by key), so the output is sorted and the statistics of the
 * key and of the clustering columns keep pruning; a bin reads at most the target file size at once.
 * Bins are taken smallest first while the per-checkpoint byte budget lasts. Which files it may read
 * is the caller's business: only committed files that nothing else in the same commit (or in a
 * commit still to come) touches — see {@link Compaction} for the rule that makes the result safe. A
 * deletion-vector merge asks for the same plan over the small files it would mark and folds the
 * bins that hold changed keys itself, as a change of data (the <em>folds</em> of {@link
 * PartitionMerger}, which join a bin's row groups where they can): compaction would never get those
 * files, since they are touched.
 */
public final class PartitionCompactor {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionCompactor.class);

    /** Files of one tier merged at once (and the tier ratio). */
    static final int FAN_IN = 4;

    /** Size tiers below the small-file size; smaller files all belong to the last. */
    static final int TIERS = 7;

    /** At most this many files are open at once in a pack bin. */
    static final int PACK_FAN_IN = 32;

    /** How small files are grouped. */
    public enum Policy {
        /** Inline, every checkpoint: merge a size tier once it holds {@link #FAN_IN} files. */
        TIERED,
        /** A one-off pass over a fragmented table: pack all small files up to the target size. */
        PACK
    }

    private final TableSchema schema;
    private final RowOrder rowOrder;
    private final MergeOptions options;
    private final DataFileStore store;
    private final String location;
    private final long targetFileSize;
    private final long smallFileSize;

    public PartitionCompactor(MergeTable table, MergeOptions options) {
        this.schema = table.schema();
        this.rowOrder = RowOrder.of(schema, table.clusteringColumns());
        this.options = options;
        this.store = table.files();
        this.location = table.location();
        this.targetFileSize = table.targetFileSizeBytes();
        long configured = options.smallFileSize(targetFileSize);
        // Four small files must fit one output file, or outputs would be small again and be
        // rewritten forever.
        long limit = Math.max(1, targetFileSize / FAN_IN);
        if (configured > limit) {
            LOG.warn(
                    "compaction.small-file-size ({} bytes) is above a quarter of the target file"
                            + " size of table {} ({} bytes); using {} bytes.",
                    configured,
                    location,
                    targetFileSize,
                    limit);
        }
        this.smallFileSize = Math.min(configured, limit);
    }

    public long smallFileSize() {
        return smallFileSize;
    }

    public boolean isSmall(DataFile file) {
        return file.sizeBytes() < smallFileSize;
    }

    /** How many of {@code files} are small. */
    public long countSmall(Iterable<DataFile> files) {
        long small = 0;
        for (DataFile file : files) {
            if (isSmall(file)) {
                small++;
            }
        }
        return small;
    }

    /**
     * Compacts {@code candidates} (committed files of {@code partition} that nothing else touches)
     * as far as {@code budget} allows. A bin that fails to read or write is skipped with a warning:
     * compaction is upkeep, and never the reason a checkpoint fails.
     */
    public Compaction compact(
            PartitionValues partition, List<DataFile> candidates, Budget budget, Policy policy) {
        Compaction done = Compaction.NONE;
        for (List<DataFile> bin : plan(candidates, policy, budget.total())) {
            if (Thread.currentThread().isInterrupted()) {
                // Cancelled: what is done so far is still a valid compaction.
                break;
            }
            long bytes = bytes(bin);
            if (!budget.claim(bytes)) {
                continue;
            }
            try {
                List<DataFile> outputs =
                        store.write(
                                partition,
                                new SortedRunMerge(store, bin, rowOrder, options.readBatchSize()),
                                KeyGroups.covering(bin));
                done = done.plus(new Compaction(bin, outputs, bytes));
            } catch (RuntimeException e) {
                if (isInterruption(e)) {
                    done.outputs().forEach(store::deleteUncommitted);
                    throw e;
                }
                LOG.warn(
                        "Compacting {} file(s) of partition {} of table {} failed; they stay as"
                                + " they are: {}",
                        bin.size(),
                        partition.describe(schema.partitionColumns()),
                        location,
                        e.toString());
            }
        }
        return done;
    }

    private static boolean isInterruption(Throwable error) {
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof InterruptedException
                    || cause instanceof java.io.InterruptedIOException
                    || cause instanceof java.nio.channels.ClosedByInterruptException) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    /**
     * The bins to rewrite, cheapest first: each becomes new files holding its live rows. Pack bins
     * hold at most {@code maxBinBytes} (and the target file size).
     */
    public List<List<DataFile>> plan(List<DataFile> candidates, Policy policy, long maxBinBytes) {
        List<List<DataFile>> bins = new ArrayList<>();
        List<DataFile> small = new ArrayList<>();
        for (DataFile file : candidates) {
            if (isWorn(file)) {
                bins.add(List.of(file));
            } else if (isSmall(file)) {
                small.add(file);
            }
        }
        bins.sort(Comparator.comparingLong(PartitionCompactor::bytes));
        small.sort(
                Comparator.comparingLong(DataFile::modificationTime).thenComparing(DataFile::path));
        List<List<DataFile>> packed =
                policy == Policy.TIERED
                        ? byTier(small)
                        : pack(small, Math.min(targetFileSize, maxBinBytes));
        packed.addAll(bins);
        return packed;
    }

    /** Whether the file's deletion vector deletes more than the threshold of its rows. */
    private boolean isWorn(DataFile file) {
        return file.hasDeletionVector()
                && file.numRecords() > 0
                && file.deletionVector().cardinality()
                        > options.compaction().deletedRowsThreshold() * file.numRecords();
    }

    /** Full tiers, smallest files first, in bins of {@link #FAN_IN} files. */
    private List<List<DataFile>> byTier(List<DataFile> small) {
        Map<Integer, List<DataFile>> tiers = new TreeMap<>(Comparator.reverseOrder());
        for (DataFile file : small) {
            tiers.computeIfAbsent(tier(file.sizeBytes()), t -> new ArrayList<>()).add(file);
        }
        List<List<DataFile>> bins = new ArrayList<>();
        for (List<DataFile> tier : tiers.values()) {
            for (int start = 0; start + FAN_IN <= tier.size(); start += FAN_IN) {
                bins.add(List.copyOf(tier.subList(start, start + FAN_IN)));
            }
        }
        return bins;
    }

    /** 0 for files just below the small-file size, up to {@code TIERS - 1} for the tiniest. */
    int tier(long size) {
        int tier = 0;
        long bound = smallFileSize / FAN_IN;
        while (tier < TIERS - 1 && size < bound) {
            tier++;
            bound /= FAN_IN;
        }
        return tier;
    }

    /** Consecutive files in bins of at most {@code limit} bytes; bins of one file are left. */
    private static List<List<DataFile>> pack(List<DataFile> small, long limit) {
        List<List<DataFile>> bins = new ArrayList<>();
        List<DataFile> bin = new ArrayList<>();
        long size = 0;
        for (DataFile file : small) {
            if (!bin.isEmpty() && (size + file.sizeBytes() > limit || bin.size() == PACK_FAN_IN)) {
                if (bin.size() > 1) {
                    bins.add(bin);
                }
                bin = new ArrayList<>();
                size = 0;
            }
            bin.add(file);
            size += file.sizeBytes();
        }
        if (bin.size() > 1) {
            bins.add(bin);
        }
        return bins;
    }

    private static long bytes(List<DataFile> files) {
        long total = 0;
        for (DataFile file : files) {
            total += file.sizeBytes();
        }
        return total;
    }

    /** The bytes one writer may still read for compaction in the current checkpoint. */
    public static final class Budget {
        private final long total;
        private final AtomicLong remaining;

        public Budget(long bytes) {
            this.total = bytes;
            this.remaining = new AtomicLong(bytes);
        }

        public long total() {
            return total;
        }

        public static Budget unlimited() {
            return new Budget(Long.MAX_VALUE);
        }

        /**
         * Takes {@code bytes} from the budget if that many are left — or, for a bin larger than the
         * whole budget, if nothing was taken yet: such a bin runs alone in its checkpoint rather
         * than never.
         */
        public boolean claim(long bytes) {
            long left;
            do {
                left = remaining.get();
                boolean alone = left == total && bytes > total;
                if (left < bytes && !alone) {
                    return false;
                }
            } while (!remaining.compareAndSet(left, Math.max(0, left - bytes)));
            return true;
        }
    }
}
