package io.deltalite.flink.internal.merge.index;

import io.deltalite.flink.internal.merge.probe.ParallelFileWork;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.KeyIdentity;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * Where each key's rows are in one partition's live files, as one writer sees them: key → (file,
 * row position).
 *
 * <p><b>A function of the live files, never of history.</b> The index holds the keys of exactly the
 * files it was last {@linkplain #follow brought to}: each merge hands it the partition's live files
 * as the writer sees them (the table's snapshot plus the writer's own results not committed yet),
 * and it forgets the files that left and reads the keys of the files that came. Data files are
 * immutable, so a file's keys and positions never change while its path is live; what can change is
 * its deletion vector — another writer's {@code DELETE}, or a mark of this writer's — and every
 * location found is therefore checked against the file's current vector before it is used. Whatever
 * happened to the table between two merges (another writer's {@code OPTIMIZE}, {@code MERGE} or
 * {@code DELETE}, a re-merge by the committer, a restore to an older checkpoint that brought back
 * other files) reaches the index as files that left or came: there is no log position to trust and
 * nothing to persist. A writer that starts (a restore, a rescale) begins with an empty index and
 * reads the keys of each partition's files when it first merges the partition — the same read as
 * one exact probe of the partition.
 *
 * <p>Not thread-safe: a writer merges one partition at a time in one thread.
 */
public final class PartitionKeyIndex {
    private final DataFileStore store;
    private final ParallelFileWork parallel;
    private final List<ValueType> keyTypes;
    private final boolean integral;
    private final KeyLocations locations;

    /** The files the index holds, by the id their locations carry; null once a file left. */
    private final List<IndexedFile> filesById = new ArrayList<>();

    private final Map<String, Integer> idsByPath = new HashMap<>();

    /** Locations of files that left, still in {@link #locations}. */
    private long locationsOfLeftFiles;

    /** Locations the index holds, including those of files that left. */
    private long indexedLocations;

    PartitionKeyIndex(DataFileStore store, ParallelFileWork parallel, List<ValueType> keyTypes) {
        this.store = store;
        this.parallel = parallel;
        this.keyTypes = List.copyOf(keyTypes);
        this.integral = KeyIdentity.isIntegral(keyTypes);
        this.locations = new KeyLocations(!integral);
    }

    /**
     * A file the index holds: its current listing, the deletion vector of that listing once read
     * (null until then), its rows as read (not as its statistics claim), and how many locations of
     * it the index took.
     */
    private static final class IndexedFile {
        DataFile listing;
        DeletionVector vector;
        long physicalRows;
        long locations;

        IndexedFile(DataFile listing) {
            this.listing = listing;
        }
    }

    /**
     * Rows of the files that came at the last {@link #follow} that brought any, beyond the
     * locations of the files that left it, of an index that held files before it (0 after a build):
     * what the next follow will likely reserve room for again.
     */
    private long lastAnnounced;

    /** Keys that last follow added (not the rows it replaced): how fast the index grows. */
    private long lastGrowth;

    /**
     * Every row the statistics announced for the files that came at that follow, whether or not
     * their keys were held already: what the next merge will likely charge for (it charges for
     * every row of the files the index does not hold, before it reads them).
     */
    private long lastCameRows;

    /** What bringing the index to a set of live files took. */
    record Followed(int filesRead, long rowsRead, int filesLeft) {}

    /**
     * Brings the index to {@code liveFiles}: the files that are no longer among them are forgotten,
     * and the keys of the files new to it are read (in parallel, one file per task). A file that
     * stays but whose deletion vector no longer deletes every row its old one did (another writer
     * restored an older version of it) is read again: rows the index skipped as deleted are live.
     */
    Followed follow(List<DataFile> liveFiles) {
        boolean heldFiles = !idsByPath.isEmpty();
        long leftBefore = locationsOfLeftFiles;
        Set<String> live = new HashSet<>(liveFiles.size() * 2);
        List<DataFile> came = new ArrayList<>();
        for (DataFile file : liveFiles) {
            live.add(file.path());
            Integer id = idsByPath.get(file.path());
            if (id == null) {
                came.add(file);
                continue;
            }
            IndexedFile known = filesById.get(id);
            if (known.listing.identity().equals(file.identity())) {
                known.listing = file;
            } else if ((known.vector = vectorIfOnlyDeletingMore(known, file)) != null) {
                known.listing = file;
            } else {
                forget(id);
                came.add(file);
            }
        }
        int left = 0;
        for (var entry : new ArrayList<>(idsByPath.entrySet())) {
            if (!live.contains(entry.getKey())) {
                forget(entry.getValue());
                left++;
            }
        }
        if (filesById.size() + came.size() > KeyLocations.MAX_FILES) {
            renumber();
        }
        if (filesById.size() + came.size() > KeyLocations.MAX_FILES) {
            throw new IllegalStateException(
                    "too many files for one partition's key index: " + liveFiles.size());
        }
        // Each file gets its id first; its keys go into the table a batch at a time, so reading
        // holds one batch per file being read, never a whole file's keys.
        List<Callable<Long>> reads = new ArrayList<>(came.size());
        // The table grows once to the rows the statistics announce (a hint: rows without one, or
        // more rows than announced, grow it as they come).
        long announced = 0;
        long cameRows = 0;
        for (DataFile file : came) {
            announced += Math.max(0, file.numRecords());
            cameRows += rowsCharged(file);
        }
        // The locations of the files that left stay in the table until it is renumbered, and the
        // files that came mostly hold the same keys again (a fold's or a compaction's output, a
        // file whose vector changed): room is reserved for the rows beyond those only. Adding
        // more keys than reserved grows the table as they come.
        long mayAdd = Math.max(0, announced - Math.max(0, locationsOfLeftFiles - leftBefore));
        int keysBefore = locations.size();
        locations.reserve(keysBefore + mayAdd);
        for (DataFile file : came) {
            int id = filesById.size();
            IndexedFile indexed = new IndexedFile(file);
            filesById.add(indexed);
            idsByPath.put(file.path(), id);
            reads.add(() -> readKeys(indexed, id));
        }
        long rowsRead = 0;
        for (long rows : parallel.runAll(reads, unused -> {})) {
            rowsRead += rows;
        }
        if (!came.isEmpty()) {
            // What the next follow will likely bring again; unknown after a build.
            lastAnnounced = heldFiles ? mayAdd : 0;
            lastGrowth = heldFiles ? Math.max(0, locations.size() - keysBefore) : 0;
            lastCameRows = heldFiles ? cameRows : 0;
        }
        if (locationsOfLeftFiles > 1024 && locationsOfLeftFiles * 2 > indexedLocations) {
            renumber();
        }
        return new Followed(came.size(), rowsRead, left);
    }

    /**
     * {@code now}'s deletion vector if it deletes every row that {@code known}'s did, else null
     * (also when a vector cannot be read: the file is then read again).
     */
    private DeletionVector vectorIfOnlyDeletingMore(IndexedFile known, DataFile now) {
        try {
            DeletionVector after =
                    now.hasDeletionVector() ? store.readDeletionVector(now) : DeletionVector.EMPTY;
            if (!known.listing.hasDeletionVector()) {
                return after;
            }
            DeletionVector before =
                    known.vector != null ? known.vector : store.readDeletionVector(known.listing);
            return after.union(before).cardinality() == after.cardinality() ? after : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private void forget(int id) {
        IndexedFile gone = filesById.set(id, null);
        idsByPath.remove(gone.listing.path());
        locationsOfLeftFiles += gone.locations;
    }

    /** The live rows of a file that hold one of the keys looked up. */
    public record Located(
            DataFile file,
            long[] positions,
            List<RowKey> keys,
            DeletionVector deletionVector,
            long physicalRows) {}

    /**
     * The live rows of {@code keys} in the files the index was last brought to, by file path.
     * Locations that a file's current deletion vector deletes are skipped.
     */
    public Map<String, Located> locate(Collection<RowKey> keys) {
        Map<Integer, Hits> byFile = new LinkedHashMap<>();
        for (RowKey key : keys) {
            KeyIdentity identity = KeyIdentity.of(key, integral);
            for (long location : locations.get(identity)) {
                int id = KeyLocations.fileOf(location);
                if (filesById.get(id) == null) {
                    locations.remove(identity, location);
                    continue;
                }
                byFile.computeIfAbsent(id, unused -> new Hits())
                        .add(KeyLocations.positionOf(location), key);
            }
        }
        Map<String, Located> located = new LinkedHashMap<>();
        for (Map.Entry<Integer, Hits> entry : byFile.entrySet()) {
            IndexedFile indexed = filesById.get(entry.getKey());
            DataFile file = indexed.listing;
            if (indexed.vector == null) {
                indexed.vector =
                        file.hasDeletionVector()
                                ? store.readDeletionVector(file)
                                : DeletionVector.EMPTY;
            }
            DeletionVector vector = indexed.vector;
            Hits hits = entry.getValue();
            long[] positions = new long[hits.count];
            List<RowKey> liveKeys = new ArrayList<>(hits.count);
            int live = 0;
            for (int i = 0; i < hits.count; i++) {
                // A deleted row stays indexed until a new row of its key replaces it (see isDead).
                if (!vector.contains(hits.positions[i])) {
                    positions[live++] = hits.positions[i];
                    liveKeys.add(hits.keys.get(i));
                }
            }
            if (live > 0) {
                located.put(
                        file.path(),
                        new Located(
                                file,
                                Arrays.copyOf(positions, live),
                                liveKeys,
                                vector,
                                indexed.physicalRows));
            }
        }
        return located;
    }

    /**
     * The rows the budget counts for {@code file} before its keys are read: its row count, or
     * without one a row per 8 bytes (never fewer rows than the file holds).
     */
    static long rowsCharged(DataFile file) {
        return file.numRecords() >= 0 ? file.numRecords() : file.sizeBytes() / 8 + 1;
    }

    /** Keys with at least one location. */
    int keys() {
        return locations.size();
    }

    /**
     * Whether the table of locations is near enough its next doubling that the next {@link #follow}
     * would likely rehash it: a follow reserves room for the rows of the files that came beyond the
     * locations of the files that left, so it doubles the table when the keys held and those rows
     * pass 3/4 of the slots. Judged by the last follow that brought files, with one more such
     * follow's growth in keys as margin (at most a quarter of the keys). Unknown, so never, right
     * after a build.
     */
    boolean growsSoon() {
        return lastAnnounced > 0 && locations.capacityFor(locations.size() + headroom()) > slots();
    }

    /** {@link #memoryBytes} once {@link #growAhead} has grown the table. */
    long memoryBytesAfterGrowth() {
        return memoryBytes()
                + locations.memoryBytesHolding(locations.size() + headroom())
                - locations.memoryBytes();
    }

    /**
     * Rows of files the next {@link #follow} will likely bring: as many as the last one that
     * brought any — all their rows, also those whose keys the index holds already (a fold's
     * output), as the merge is charged for them before it reads them.
     */
    long rowsLikelyNext() {
        return lastCameRows;
    }

    /**
     * Doubles the table of locations now, between merges, if {@link #growsSoon}: moving every key
     * costs a second per 15–20 million keys, which the next merge then does not spend inside a
     * checkpoint.
     */
    void growAhead() {
        locations.reserve(locations.size() + headroom());
    }

    /** Slots of the table of locations (for tests). */
    int slots() {
        return locations.capacityFor(0);
    }

    private long headroom() {
        return Math.min(lastAnnounced + lastGrowth, locations.size() / 4);
    }

    /** Times the table of locations was reallocated to grow (for tests). */
    int growths() {
        return locations.growths();
    }

    /** Bytes held: the locations, the files, and the deletion vectors read and kept. */
    long memoryBytes() {
        long vectors = 0;
        for (IndexedFile file : filesById) {
            if (file != null && file.vector != null && !file.vector.isEmpty()) {
                vectors += file.vector.memoryBytes();
            }
        }
        return locations.memoryBytes() + 128L * idsByPath.size() + vectors;
    }

    /** Whether the index has read the file at {@code path}. */
    boolean holds(String path) {
        return idsByPath.containsKey(path);
    }

    /** Gives the live files dense ids again and drops the locations of files that left. */
    private void renumber() {
        int[] newIds = new int[filesById.size()];
        List<IndexedFile> kept = new ArrayList<>(idsByPath.size());
        for (int id = 0; id < filesById.size(); id++) {
            IndexedFile file = filesById.get(id);
            if (file == null) {
                newIds[id] = -1;
            } else {
                newIds[id] = kept.size();
                kept.add(file);
                idsByPath.put(file.listing.path(), newIds[id]);
            }
        }
        locations.rewrite(
                location -> {
                    int id = newIds[KeyLocations.fileOf(location)];
                    return id < 0 ? -1 : KeyLocations.pack(id, KeyLocations.positionOf(location));
                });
        filesById.clear();
        filesById.addAll(kept);
        indexedLocations -= locationsOfLeftFiles;
        locationsOfLeftFiles = 0;
    }

    /**
     * Adds the keys and positions of every row of one file — deleted ones too — dropping a key's
     * locations that are known dead ({@link #isDead}); returns the rows read. The store hands the
     * keys over a block at a time, so reading holds one block per file being read, never a whole
     * file's keys.
     */
    private long readKeys(IndexedFile file, int id) {
        long[] added = {0};
        long rows =
                store.readKeyIdentities(
                        file.listing,
                        keyTypes,
                        (high, low, positions, count) -> {
                            synchronized (locations) {
                                locations.addAll(high, low, positions, count, id, liveness);
                                indexedLocations += count;
                            }
                            added[0] += count;
                        });
        file.physicalRows = rows;
        file.locations = added[0];
        return rows;
    }

    /**
     * Which locations hold no live row ({@link #isDead}); one replaced by a key's new location is
     * no longer counted (called under the lock of {@link #locations}).
     */
    private final KeyLocations.Liveness liveness =
            new KeyLocations.Liveness() {
                @Override
                public boolean isDead(long location) {
                    return PartitionKeyIndex.this.isDead(location);
                }

                @Override
                public void replaced(long location) {
                    int id = KeyLocations.fileOf(location);
                    IndexedFile file = id < filesById.size() ? filesById.get(id) : null;
                    if (file == null) {
                        locationsOfLeftFiles--;
                    } else {
                        file.locations--;
                    }
                    indexedLocations--;
                }
            };

    /**
     * Whether {@code location} is known to hold no live row: its file left the index, or the
     * deletion vector the index read for the file's current listing deletes it. A file whose vector
     * the index has not read counts as live.
     *
     * <p>A location given up for a dead one comes back only by reading its file again: {@link
     * #follow} reads again every file whose vector deletes less than the one the index read, or
     * cannot be read (a restore). That must stay so: keeping such a file and only taking its
     * smaller vector would leave the revived row without a location.
     */
    private boolean isDead(long location) {
        int id = KeyLocations.fileOf(location);
        IndexedFile file = id < filesById.size() ? filesById.get(id) : null;
        if (file == null) {
            return true;
        }
        if (!file.listing.hasDeletionVector()) {
            return false;
        }
        return file.vector != null && file.vector.contains(KeyLocations.positionOf(location));
    }

    private static final class Hits {
        long[] positions = new long[4];
        final List<RowKey> keys = new ArrayList<>();
        int count;

        void add(long position, RowKey key) {
            if (count == positions.length) {
                positions = Arrays.copyOf(positions, count * 2);
            }
            positions[count++] = position;
            keys.add(key);
        }
    }
}
