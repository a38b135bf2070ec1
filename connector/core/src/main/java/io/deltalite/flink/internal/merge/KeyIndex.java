package io.deltalite.flink.internal.merge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A writer's key index: for each partition it merges, where each key's rows are ({@link
 * PartitionKeyIndex}), so that a checkpoint finds the rows it replaces without reading the table.
 *
 * <h2>Where it lives, what it costs</h2>
 *
 * On the writer's heap, in primitive arrays: 16 bytes per slot for a key of one integral column
 * (tinyint to bigint, date, timestamp), 24 for any other key (a 128-bit identity), at a load of 3/8
 * to 3/4 — 21 to 43 bytes per integral key, 32 to 64 per other key. Nothing is persisted: the index
 * of a partition is built when the writer first merges it after it starts (reading the key columns
 * of the partition's files once, as one exact probe does, through {@link
 * DataFileStore#readKeyIdentities}: the table's store decodes only the key columns, column by
 * column, and falls back to reading rows only for layouts it does not decode) and then follows the
 * partition's live files. A restart, a restore or a rescale therefore costs one read of the key
 * columns of the partitions each writer touches, spread over the writers.
 *
 * <h2>Bounded</h2>
 *
 * When the partitions' indexes together pass {@code maxMemoryBytes}, the least recently merged ones
 * are dropped; a dropped partition is built again the next time it is merged. A partition too large
 * for the budget alone is not indexed: its merges use the exact probe, as without an index.
 *
 * <h2>Never trusted blindly</h2>
 *
 * See {@link PartitionKeyIndex}: an index is a function of the live files it was brought to, and
 * every location is checked against its file's current deletion vector. With {@code validate}, the
 * merge also runs the exact probe and fails on any difference.
 *
 * <p>Thread-safe: the writer's merges of different partitions may run at once.
 */
public final class KeyIndex {
    private static final Logger LOG = LoggerFactory.getLogger(KeyIndex.class);

    private final DataFileStore store;
    private final ParallelFileWork parallel;
    private final List<ValueType> keyTypes;
    private final long maxMemoryBytes;
    private final boolean fromFirstMerge;
    private final String location;

    /** With mode {@code auto}: partitions merged once, not indexed yet. */
    private final java.util.Set<PartitionValues> mergedOnce = new java.util.HashSet<>();

    /** In order of last use, least recent first. */
    private final LinkedHashMap<PartitionValues, PartitionKeyIndex> partitions =
            new LinkedHashMap<>(16, 0.75f, true);

    private final AtomicLong filesRead = new AtomicLong();
    private final AtomicLong rowsRead = new AtomicLong();
    private final AtomicLong readNanos = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong fallbacks = new AtomicLong();
    private boolean warnedTooLarge;

    KeyIndex(
            DataFileStore store,
            ParallelFileWork parallel,
            List<ValueType> keyTypes,
            KeyIndexOptions options,
            String location) {
        this.store = store;
        this.parallel = parallel;
        this.keyTypes = List.copyOf(keyTypes);
        // Never more than an eighth of the heap: the change buffer, the merges and the committer's
        // re-merges (which may share the JVM) were sized without an index.
        this.maxMemoryBytes =
                Math.min(options.maxMemoryBytes(), Runtime.getRuntime().maxMemory() / 8);
        this.fromFirstMerge = options.mode() == io.deltalite.flink.sink.KeyIndexMode.ON;
        this.location = location;
    }

    /**
     * The index of {@code partition} brought to {@code liveFiles}, or null when the partition is
     * too large for the memory budget (the merge then probes).
     */
    PartitionKeyIndex follow(PartitionValues partition, List<DataFile> liveFiles) {
        long rows = 0;
        for (DataFile file : liveFiles) {
            // Without a count, assume a row per 8 bytes: never fewer rows than the file holds.
            rows += file.numRecords() >= 0 ? file.numRecords() : file.sizeBytes() / 8 + 1;
        }
        PartitionKeyIndex index;
        synchronized (this) {
            index = partitions.get(partition);
            if (index == null && !fromFirstMerge && mergedOnce.add(partition)) {
                if (mergedOnce.size() > 100_000) {
                    mergedOnce.clear(); // a bound: cold partitions are forgotten, not indexed
                }
                return null; // auto: probe the first merge, index from the second
            }
            if (index == null && estimatedBytes(rows) > maxMemoryBytes) {
                fallbacks.incrementAndGet();
                if (!warnedTooLarge) {
                    warnedTooLarge = true;
                    LOG.warn(
                            "Partition {} of table {} holds about {} rows: its key index would"
                                    + " pass the budget of {} bytes (key-index.max-memory), so"
                                    + " its merges read the key columns of its files instead."
                                    + " Raise key-index.max-memory to index it.",
                            partition,
                            location,
                            rows,
                            maxMemoryBytes);
                }
                return null;
            }
            if (index == null) {
                index = new PartitionKeyIndex(store, parallel, keyTypes);
                partitions.put(partition, index);
                mergedOnce.remove(partition);
            }
        }
        long start = System.nanoTime();
        PartitionKeyIndex.Followed followed;
        try {
            followed = index.follow(liveFiles);
        } catch (RuntimeException e) {
            // Half followed is unknown: forget the partition, the next merge builds it anew.
            synchronized (this) {
                partitions.remove(partition);
            }
            throw e;
        }
        if (followed.filesRead() > 0) {
            readNanos.addAndGet(System.nanoTime() - start);
            filesRead.addAndGet(followed.filesRead());
            rowsRead.addAndGet(followed.rowsRead());
        }
        if (index.memoryBytes() > maxMemoryBytes) {
            // It grew past the budget on its own: forget it, this merge reads the files instead.
            synchronized (this) {
                partitions.remove(partition);
                fallbacks.incrementAndGet();
            }
            return null;
        }
        evictBeyondBudget(partition);
        return index;
    }

    /** Counts rows the index located, for the metrics. */
    void counted(int located) {
        hits.addAndGet(located);
    }

    /** Drops the least recently used indexes, never {@code current}, until within the budget. */
    private synchronized void evictBeyondBudget(PartitionValues current) {
        long total = 0;
        for (PartitionKeyIndex index : partitions.values()) {
            total += index.memoryBytes();
        }
        if (total <= maxMemoryBytes) {
            return;
        }
        List<PartitionValues> order = new ArrayList<>(partitions.keySet());
        for (PartitionValues partition : order) {
            if (total <= maxMemoryBytes) {
                break;
            }
            if (partition.equals(current)) {
                continue;
            }
            total -= partitions.remove(partition).memoryBytes();
        }
    }

    /**
     * The most bytes {@code rows} keys may take while the index grows (its old and new arrays are
     * both held for a moment), to refuse a partition up front.
     */
    private long estimatedBytes(long rows) {
        return rows * (KeyIdentity.isIntegral(keyTypes) ? 48 : 72);
    }

    /** What the index holds and has done, for metrics and logs. */
    public record Stats(
            int partitions,
            long keys,
            long memoryBytes,
            long filesRead,
            long rowsRead,
            long readMillis,
            long hits,
            long fallbacks) {}

    public synchronized Stats stats() {
        long keys = 0;
        long bytes = 0;
        for (PartitionKeyIndex index : partitions.values()) {
            keys += index.keys();
            bytes += index.memoryBytes();
        }
        return new Stats(
                partitions.size(),
                keys,
                bytes,
                filesRead.get(),
                rowsRead.get(),
                readNanos.get() / 1_000_000,
                hits.get(),
                fallbacks.get());
    }

    /** The partitions indexed, largest first (for tests and logs). */
    synchronized Map<PartitionValues, Integer> keysByPartition() {
        Map<PartitionValues, Integer> keys = new LinkedHashMap<>();
        partitions.entrySet().stream()
                .sorted(Comparator.comparingInt(entry -> -entry.getValue().keys()))
                .forEach(entry -> keys.put(entry.getKey(), entry.getValue().keys()));
        return keys;
    }
}
