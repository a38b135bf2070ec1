package io.deltalite.flink.internal.merge.index;

import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.probe.ParallelFileWork;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.KeyIdentity;
import io.deltalite.flink.internal.merge.value.PartitionValues;
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
 * to 3/4 — 21 to 43 bytes per integral key, 32 to 64 per other key. Nothing is persisted (no disk
 * tier, nothing in Flink state: the heap was enough for the tables measured, and a rebuild reads
 * only what one probe reads, so persisting it would buy a faster restart at the price of keeping a
 * second copy of the table's keys consistent with it): the index of a partition is built when the
 * writer first merges it after it starts (reading the key columns of the partition's files once, as
 * one exact probe does, through {@link DataFileStore#readKeyIdentities}: the table's store decodes
 * only the key columns, column by column, and falls back to reading rows only for layouts it does
 * not decode) and then follows the partition's live files. With mode {@code auto} that is from a
 * partition's second merge (its first probes), and from the first for the one partition of an
 * unpartitioned table; with {@code on} from the first. The writer builds it ahead of that merge, as
 * soon as it buffers the partition's first change ({@link #buildAhead}, {@code KeyIndexAhead}). A
 * restart, a restore or a rescale therefore costs one read of the key columns of the partitions
 * each writer touches, spread over the writers. A partition's table of locations doubles when it
 * passes a load of 3/4, moving every key (a second per 15–20 million keys): when the next merge
 * would likely do that, the writer does it at the partition's first change after a merge instead
 * ({@link #growAhead}), so that the checkpoint of a growing table does not wait for it.
 *
 * <h2>Bounded</h2>
 *
 * Every partition's index is charged against two budgets before it is built or grows: the writer's
 * ({@code key-index.max-memory}) and the JVM's (an eighth of the heap, shared by all writers of a
 * TaskManager: the change buffers, the merges and the committer's re-merges were sized without an
 * index). A build reserves its estimated size up front, so two partitions built at once cannot each
 * take the whole budget; the charge then follows what the index really holds, cached deletion
 * vectors included. To make room the least recently merged partitions of this writer are dropped
 * (built again the next time they are merged); a partition that does not fit even then is not
 * indexed and its merge uses the exact probe, as without an index.
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

    /**
     * Partitions whose index was dropped to make room: with mode {@code on} too, their next merge
     * probes and the one after builds the index again, so partitions that together pass the budget
     * do not rebuild at every merge (which would read more than probing does).
     */
    private final java.util.Set<PartitionValues> dropped = new java.util.HashSet<>();

    /** With mode {@code auto}: partitions merged once, not indexed yet. */
    private final java.util.Set<PartitionValues> mergedOnce = new java.util.HashSet<>();

    /**
     * Partitions whose build ahead of their merge did not fit the budget: not built ahead again
     * (each try loads a snapshot) until a merge indexes them.
     */
    private final java.util.Set<PartitionValues> refusedAhead = new java.util.HashSet<>();

    /**
     * Partitions whose index is being brought to its files right now (read, its table reserved):
     * never dropped to make room for another partition meanwhile, since their arrays stay alive
     * until the read ends and dropping them would only stop counting them.
     */
    private final java.util.Set<PartitionValues> following = new java.util.HashSet<>();

    /** In order of last use, least recent first. */
    private final LinkedHashMap<PartitionValues, PartitionKeyIndex> partitions =
            new LinkedHashMap<>(16, 0.75f, true);

    private final AtomicLong filesRead = new AtomicLong();
    private final AtomicLong rowsRead = new AtomicLong();
    private final AtomicLong readNanos = new AtomicLong();

    /** Of the reads above, the builds: a partition's index read from nothing (a bootstrap). */
    private final AtomicLong builds = new AtomicLong();

    /** Tables of locations doubled between merges ({@link #growAhead}). */
    private final AtomicLong grownAhead = new AtomicLong();

    private final AtomicLong buildRows = new AtomicLong();
    private final AtomicLong buildNanos = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong fallbacks = new AtomicLong();
    private boolean warnedTooLarge;

    /** What each indexed partition is charged, against this writer's and the JVM's budget. */
    private final Map<PartitionValues, Long> charged = new java.util.HashMap<>();

    /** The sum of {@link #charged}; read and written only under {@link #JVM_LOCK}. */
    private long chargedTotal;

    /**
     * The key indexes of this JVM, to add up what they are charged. Weakly held: an index whose
     * writer was dropped without closing stops counting once it is collected.
     */
    private static final java.util.Set<KeyIndex> IN_JVM =
            java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());

    /**
     * Guards every index's {@link #chargedTotal} and {@link #IN_JVM}; taken after an index's own.
     */
    private static final Object JVM_LOCK = new Object();

    /** Differences {@code key-index.validate} found in this JVM, over every writer and restart. */
    private static final AtomicLong DISAGREEMENTS = new AtomicLong();

    /**
     * How many times, since this JVM started, a merge with {@code key-index.validate} found its
     * index disagreeing with the files. A disagreement fails the checkpoint and Flink restarts the
     * job, whose writers build their indexes afresh, so a job may recover from it unseen: this
     * count survives the restart (tests that validate assert that it stayed put).
     */
    public static long disagreementsInThisJvm() {
        return DISAGREEMENTS.get();
    }

    /**
     * Counts a disagreement {@code key-index.validate} found; see {@link #disagreementsInThisJvm}.
     */
    public static void disagreed() {
        DISAGREEMENTS.incrementAndGet();
    }

    /** The JVM's budget for key indexes: an eighth of the heap. */
    private static final long JVM_BUDGET = Runtime.getRuntime().maxMemory() / 8;

    /**
     * @param partitioned whether the table has partition columns: with mode {@code auto}, the one
     *     partition of an unpartitioned table is indexed from its first merge, since every
     *     checkpoint with a change merges it
     */
    public KeyIndex(
            DataFileStore store,
            ParallelFileWork parallel,
            List<ValueType> keyTypes,
            KeyIndexOptions options,
            boolean partitioned,
            String location) {
        this.store = store;
        this.parallel = parallel;
        this.keyTypes = List.copyOf(keyTypes);
        this.maxMemoryBytes = Math.min(options.maxMemoryBytes(), JVM_BUDGET);
        this.fromFirstMerge =
                options.mode() == io.deltalite.flink.sink.KeyIndexMode.ON || !partitioned;
        this.location = location;
        synchronized (JVM_LOCK) {
            IN_JVM.add(this);
        }
    }

    /**
     * The index of {@code partition} brought to {@code liveFiles}, or null when the partition is
     * too large for the memory budget (the merge then probes).
     */
    public PartitionKeyIndex follow(PartitionValues partition, List<DataFile> liveFiles) {
        return follow(partition, liveFiles, Use.MERGE);
    }

    /**
     * The index of {@code partition} brought to {@code liveFiles} if this writer holds one, for a
     * look-up that is not a merge of the partition (where a key-only delete's row is): null when it
     * holds none or the files it has not read yet would pass the budget. A look-up never builds an
     * index, never drops another partition's to make room, and leaves the modes' first-merge
     * bookkeeping as it was (it counts as a use in the least-recently-merged order): on a table
     * with more partitions than the budget holds, the look-ups in every other partition cannot
     * evict the indexes the writer's merges use.
     */
    public PartitionKeyIndex followIfHeld(PartitionValues partition, List<DataFile> liveFiles) {
        synchronized (this) {
            if (!partitions.containsKey(partition)) {
                return null;
            }
        }
        return follow(partition, liveFiles, Use.LOOKUP);
    }

    /** Why an index is followed: for a merge, ahead of one, or for a look-up. */
    private enum Use {
        MERGE,
        AHEAD,
        LOOKUP
    }

    /**
     * Builds the index of {@code partition} from {@code liveFiles} ahead of its merge, if that
     * merge would build it ({@link #buildsAhead}) and it fits the budgets as they are: a build
     * ahead never drops another partition's index, which a merge may be about to use. Never while a
     * merge of the partition runs.
     */
    public void buildAhead(PartitionValues partition, List<DataFile> liveFiles) {
        if (buildsAhead(partition)) {
            follow(partition, liveFiles, Use.AHEAD);
        }
    }

    /**
     * @param use {@code AHEAD}: built ahead of the merge, charged without dropping other
     *     partitions, and not built ahead again once refused; {@code LOOKUP}: only an index held
     *     already, charged without dropping others
     */
    private PartitionKeyIndex follow(PartitionValues partition, List<DataFile> liveFiles, Use use) {
        boolean ahead = use == Use.AHEAD;
        long rows = 0;
        for (DataFile file : liveFiles) {
            rows += PartitionKeyIndex.rowsCharged(file);
        }
        PartitionKeyIndex index;
        boolean building;
        synchronized (this) {
            index = partitions.get(partition);
            building = index == null;
            if (index == null && use == Use.LOOKUP) {
                return null; // dropped meanwhile: a look-up builds none
            }
            if (index == null
                    && (!fromFirstMerge || dropped.contains(partition))
                    && mergedOnce.add(partition)) {
                dropped.remove(partition);
                if (mergedOnce.size() > 100_000) {
                    mergedOnce.clear(); // a bound: cold partitions are forgotten, not indexed
                }
                return null; // auto: probe the first merge, index from the second
            }
            long needed =
                    index == null
                            ? estimatedBytes(rows)
                            : index.memoryBytes() + estimatedBytes(rowsNotHeld(index, liveFiles));
            if (!charge(partition, needed, use == Use.MERGE)) {
                if (ahead) {
                    refuseAhead(partition);
                    return null; // its merge decides, as without building ahead
                }
                if (use == Use.LOOKUP) {
                    return null; // the look-up reads the files; the next merge decides
                }
                fallbacks.incrementAndGet();
                if (index != null) {
                    forget(partition);
                }
                if (!warnedTooLarge) {
                    warnedTooLarge = true;
                    LOG.warn(
                            "Partition {} of table {} holds about {} rows: its key index would"
                                    + " pass the budget of {} bytes (key-index.max-memory, and an"
                                    + " eighth of the heap for all writers of this JVM together),"
                                    + " so its merges read the key columns of its files instead."
                                    + " Raise key-index.max-memory or the TaskManager heap to"
                                    + " index it.",
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
                if (!ahead) {
                    refusedAhead.remove(partition);
                }
            }
            following.add(partition);
        }
        long start = System.nanoTime();
        PartitionKeyIndex.Followed followed = null;
        try {
            followed = index.follow(liveFiles);
        } finally {
            synchronized (this) {
                following.remove(partition);
            }
            if (followed == null) {
                // Half followed is unknown, whatever was thrown (an Error too): forget the
                // partition; its next merge builds it anew (with auto: it was merged before).
                synchronized (this) {
                    if (partitions.get(partition) == index) {
                        forget(partition);
                    }
                    if (!fromFirstMerge) {
                        mergedOnce.add(partition);
                    }
                }
            }
        }
        long nanos = System.nanoTime() - start;
        if (followed.filesRead() > 0) {
            readNanos.addAndGet(nanos);
            filesRead.addAndGet(followed.filesRead());
            rowsRead.addAndGet(followed.rowsRead());
        }
        synchronized (this) {
            // Charge what it holds now (less than reserved, as a rule). Dropped meanwhile to make
            // room for another partition, it still serves this merge, which holds it.
            if (partitions.get(partition) == index
                    && !charge(partition, index.memoryBytes(), use == Use.MERGE)) {
                // It grew past the budget on its own: forget it, this merge reads the files.
                forget(partition);
                if (ahead) {
                    refuseAhead(partition);
                } else if (use == Use.MERGE) {
                    fallbacks.incrementAndGet();
                }
                return null;
            }
        }
        if (building && followed.filesRead() > 0) {
            // A build counts once its index is kept (one forgotten at once is built again).
            builds.incrementAndGet();
            buildRows.addAndGet(followed.rowsRead());
            buildNanos.addAndGet(nanos);
        }
        return index;
    }

    /**
     * Whether the index held for {@code partition} is near enough its next doubling that its next
     * merge would likely rehash every key of it ({@link #growAhead} would do that now instead).
     */
    public synchronized boolean growsAhead(PartitionValues partition) {
        PartitionKeyIndex index = partitions.get(partition);
        return index != null && !following.contains(partition) && index.growsSoon();
    }

    /**
     * Doubles the table of locations of {@code partition}'s index now, between merges, when its
     * next merge would likely do it: moving every key to the larger table costs about a second per
     * 15–20 million keys, which a checkpoint then does not wait for. Charged at the size it grows
     * to plus what the next merge charges for the rows it likely brings, without dropping another
     * partition's index; when that does not fit, nothing happens here and the merge grows the table
     * (or drops the index) as it would have. Never while a merge of the partition runs.
     */
    public void growAhead(PartitionValues partition) {
        PartitionKeyIndex index;
        synchronized (this) {
            index = partitions.get(partition);
            // Charged with what the next merge will charge for the rows it likely brings, so
            // that growing ahead never makes that merge drop the index for want of room.
            if (index == null
                    || following.contains(partition)
                    || !index.growsSoon()
                    || !charge(
                            partition,
                            index.memoryBytesAfterGrowth() + estimatedBytes(index.rowsLikelyNext()),
                            false)) {
                return;
            }
            following.add(partition);
        }
        boolean grown = false;
        try {
            int slots = index.slots();
            index.growAhead();
            grown = true;
            if (index.slots() > slots) {
                grownAhead.incrementAndGet();
            }
        } finally {
            synchronized (this) {
                following.remove(partition);
                if (!grown && partitions.get(partition) == index) {
                    // Half grown is unknown (out of memory between two arrays): its next merge
                    // builds it anew.
                    forget(partition);
                }
            }
        }
    }

    private void refuseAhead(PartitionValues partition) {
        if (refusedAhead.size() >= 100_000) {
            refusedAhead.clear(); // a bound, as for mergedOnce
        }
        refusedAhead.add(partition);
    }

    /**
     * Whether the next {@link #follow} of {@code partition} would build its index: it has none, and
     * the mode builds it at this merge (with {@code on} or an unpartitioned table unless it was
     * just dropped, with {@code auto} from its second merge). Such a build can run ahead of the
     * merge, as soon as the writer has a change for the partition.
     */
    public synchronized boolean buildsAhead(PartitionValues partition) {
        return !partitions.containsKey(partition)
                && !refusedAhead.contains(partition)
                && ((fromFirstMerge && !dropped.contains(partition))
                        || mergedOnce.contains(partition));
    }

    /**
     * Counts rows {@code index} located for a merge of {@code partition}, and charges what it holds
     * since (locating reads and keeps the files' deletion vectors); past the budget it is dropped,
     * still serving the merge that holds it.
     */
    public void located(PartitionValues partition, PartitionKeyIndex index, int rows) {
        hits.addAndGet(rows);
        synchronized (this) {
            if (partitions.get(partition) == index && !charge(partition, index.memoryBytes())) {
                forget(partition);
                fallbacks.incrementAndGet();
            }
        }
    }

    /**
     * Sets what {@code partition} is charged to {@code bytes} if this writer's budget and the JVM's
     * allow it, dropping this writer's least recently merged other partitions to make room.
     */
    private boolean charge(PartitionValues partition, long bytes) {
        return charge(partition, bytes, true);
    }

    /**
     * @param mayDrop whether other partitions may be dropped to make room
     */
    private boolean charge(PartitionValues partition, long bytes, boolean mayDrop) {
        long before = charged.getOrDefault(partition, 0L);
        if (bytes > maxMemoryBytes) {
            return false;
        }
        java.util.Iterator<PartitionValues> leastRecent =
                new ArrayList<>(partitions.keySet()).iterator();
        while (true) {
            long more = bytes - before;
            synchronized (JVM_LOCK) {
                if (chargedTotal + more <= maxMemoryBytes
                        && (more <= 0 || chargedInJvm() + more <= JVM_BUDGET)) {
                    charged.put(partition, bytes);
                    chargedTotal += more;
                    return true;
                }
            }
            if (!mayDrop) {
                return false;
            }
            PartitionValues victim = null;
            while (leastRecent.hasNext() && victim == null) {
                PartitionValues next = leastRecent.next();
                if (!next.equals(partition)
                        && partitions.containsKey(next)
                        && !following.contains(next)) {
                    victim = next;
                }
            }
            if (victim == null) {
                return false;
            }
            forget(victim);
            if (dropped.size() >= 100_000) {
                dropped.clear(); // a bound, as for mergedOnce
            }
            dropped.add(victim);
        }
    }

    /** Drops {@code partition}'s index and what it was charged. */
    private void forget(PartitionValues partition) {
        partitions.remove(partition);
        Long bytes = charged.remove(partition);
        if (bytes != null) {
            synchronized (JVM_LOCK) {
                chargedTotal -= bytes;
            }
        }
    }

    /** What all key indexes of this JVM are charged; under {@link #JVM_LOCK}. */
    private static long chargedInJvm() {
        long total = 0;
        for (KeyIndex index : IN_JVM) {
            total += index.chargedTotal;
        }
        return total;
    }

    /** Drops every partition's index and gives back what they were charged (the writer closes). */
    public synchronized void close() {
        for (PartitionValues partition : new ArrayList<>(partitions.keySet())) {
            forget(partition);
        }
        synchronized (JVM_LOCK) {
            IN_JVM.remove(this);
        }
    }

    /** What this index is charged against the budgets. */
    long charged() {
        synchronized (JVM_LOCK) {
            return chargedTotal;
        }
    }

    /** What all key indexes of this JVM are charged (for tests). */
    static long chargedInThisJvm() {
        synchronized (JVM_LOCK) {
            return chargedInJvm();
        }
    }

    /** Rows of {@code liveFiles} that {@code index} has not read yet, as {@link #follow} counts. */
    private static long rowsNotHeld(PartitionKeyIndex index, List<DataFile> liveFiles) {
        long rows = 0;
        for (DataFile file : liveFiles) {
            if (!index.holds(file.path())) {
                rows += PartitionKeyIndex.rowsCharged(file);
            }
        }
        return rows;
    }

    /**
     * The most bytes {@code rows} keys may take while the index grows (its old and new arrays are
     * both held for a moment), to refuse a partition up front.
     */
    private long estimatedBytes(long rows) {
        return rows * (KeyIdentity.isIntegral(keyTypes) ? 48 : 72);
    }

    /**
     * What the index holds and has done, for metrics and logs.
     *
     * @param filesRead files whose key columns the index read (builds and follows)
     * @param rowsRead their rows
     * @param readMillis wall time of those reads
     * @param builds partitions indexed from nothing (at a start, a restore, a rescale, or after
     *     their index was dropped or forgotten): the bootstraps
     * @param buildRows rows the builds read
     * @param buildMillis wall time of the builds (summed over partitions built at once)
     * @param buildRowsPerSecond rows per second of that time, 0 before any build: the bootstrap's
     *     rate
     * @param grownAhead tables of locations doubled between merges rather than inside one ({@link
     *     #growAhead})
     */
    public record Stats(
            int partitions,
            long keys,
            long memoryBytes,
            long filesRead,
            long rowsRead,
            long readMillis,
            long hits,
            long fallbacks,
            long builds,
            long buildRows,
            long buildMillis,
            long buildRowsPerSecond,
            long grownAhead) {}

    public synchronized Stats stats() {
        long keys = 0;
        long bytes = 0;
        for (Map.Entry<PartitionValues, PartitionKeyIndex> entry : partitions.entrySet()) {
            keys += entry.getValue().keys();
            // An index being read on another thread changes its files meanwhile: what it is
            // charged stands for its bytes (metrics read this from the reporter's thread).
            bytes +=
                    following.contains(entry.getKey())
                            ? charged.getOrDefault(entry.getKey(), 0L)
                            : entry.getValue().memoryBytes();
        }
        return new Stats(
                partitions.size(),
                keys,
                bytes,
                filesRead.get(),
                rowsRead.get(),
                readNanos.get() / 1_000_000,
                hits.get(),
                fallbacks.get(),
                builds.get(),
                buildRows.get(),
                buildNanos.get() / 1_000_000,
                buildNanos.get() == 0 ? 0 : (long) (buildRows.get() * 1e9 / buildNanos.get()),
                grownAhead.get());
    }

    /** Slots of the table of locations of {@code partition}'s index, 0 without one (for tests). */
    synchronized int slotsOf(PartitionValues partition) {
        PartitionKeyIndex index = partitions.get(partition);
        return index == null ? 0 : index.slots();
    }

    /** Times the table of {@code partition}'s index grew, 0 without one (for tests). */
    synchronized int growthsOf(PartitionValues partition) {
        PartitionKeyIndex index = partitions.get(partition);
        return index == null ? 0 : index.growths();
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
