package io.deltalite.flink.internal.merge.index;

import io.deltalite.flink.internal.merge.value.KeyIdentity;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongUnaryOperator;

/**
 * A primitive hash table from a key's identity ({@link KeyIdentity}) to the locations of its rows,
 * each packed into one {@code long} ({@link #pack}). Open addressing with linear probing, no object
 * per entry: an integral key costs its 8-byte value and an 8-byte location per slot (16 bytes, 21
 * to 43 bytes per key as the table fills between its growth points); any other key adds 8 bytes for
 * the second half of its 128-bit identity. A key's home slot comes from a hash keyed with a secret
 * drawn per JVM, as non-integral identities are, so ids cannot be chosen to pile up in one run.
 *
 * <p>A key normally has one row. A table may hold duplicates (written by another engine), and a key
 * may have its old row and its new one where the old one is not known deleted yet: then the slot
 * says {@link #MULTIPLE} and the locations are kept aside in a small map. A block of new rows
 * ({@link #addAll}) drops a key's locations that are known dead instead.
 *
 * <p>Not thread-safe: one partition's index is used by one merge at a time.
 */
final class KeyLocations {
    /** Bits of a location that hold the row's position in its file: up to 2^40 rows per file. */
    static final int POSITION_BITS = 40;

    /** The most files an index can number: 2^23. */
    static final int MAX_FILES = 1 << 23;

    private static final long POSITION_MASK = (1L << POSITION_BITS) - 1;

    /** A slot whose key has several locations, kept in {@link #multiple}. */
    private static final long MULTIPLE = -1;

    private static final int MIN_CAPACITY = 16;

    /**
     * The secret of this JVM's slot hash, never written anywhere. An integral key is its own
     * identity, so with a known hash whoever writes the ids could choose ones that share a home
     * slot, and every insert and lookup would walk one run of all of them.
     */
    private static final long SLOT_SALT;

    /** The secret multiplier of the slot hash: odd, so the multiplication loses no bit. */
    private static final long SLOT_MULTIPLIER;

    static {
        SecureRandom random = new SecureRandom();
        SLOT_SALT = random.nextLong();
        SLOT_MULTIPLIER = random.nextLong() | 1;
    }

    private final boolean wide;
    private long[] high;
    private long[] low;

    /** Per slot: 0 when empty, {@link #MULTIPLE}, or the packed location plus one. */
    private long[] slots;

    private final Map<KeyIdentity, LocationSet> multiple = new HashMap<>();

    /** Bytes of the location sets in {@link #multiple}, kept as they grow and shrink. */
    private long multipleBytes;

    private int size;
    private int mask;
    private int growths;

    /**
     * @param wide whether keys need both halves of their identity (any key but one integral column)
     */
    KeyLocations(boolean wide) {
        this.wide = wide;
        allocate(MIN_CAPACITY);
    }

    static long pack(int fileId, long position) {
        if (fileId < 0 || fileId >= MAX_FILES || position < 0 || position > POSITION_MASK) {
            throw new IllegalArgumentException(
                    "no location for file " + fileId + ", position " + position);
        }
        return ((long) fileId << POSITION_BITS) | position;
    }

    static int fileOf(long location) {
        return (int) (location >>> POSITION_BITS);
    }

    static long positionOf(long location) {
        return location & POSITION_MASK;
    }

    /** Keys with at least one location. */
    int size() {
        return size;
    }

    /** Bytes of the arrays and of the side map (estimated), for the memory budget. */
    long memoryBytes() {
        long perSlot = wide ? 24 : 16;
        return perSlot * slots.length + 64L * multiple.size() + multipleBytes;
    }

    /**
     * Grows the table now to the capacity it would have grown to by holding {@code keys} keys, so
     * that adding them does not rehash the table at each doubling. Never shrinks it.
     */
    void reserve(long keys) {
        int capacity = capacityFor(keys);
        if (capacity > slots.length) {
            allocate(capacity);
        }
    }

    /** The slots the table would have once it holds {@code keys} keys: never fewer than now. */
    int capacityFor(long keys) {
        long capacity = slots.length;
        while (keys * 4 > capacity * 3 && capacity < (1 << 30)) {
            capacity *= 2;
        }
        return (int) capacity;
    }

    /** Bytes {@link #memoryBytes} would say once the table held {@code keys} keys. */
    long memoryBytesHolding(long keys) {
        return memoryBytes() + (wide ? 24L : 16L) * (capacityFor(keys) - slots.length);
    }

    /** Records that a row of {@code key} is at {@code location}; nothing if it is known. */
    void add(KeyIdentity key, long location) {
        add(key.high(), key.low(), location);
    }

    /**
     * Which locations hold no live row any more ({@link #addAll} drops a key's such locations when
     * it adds a new one), told of each location dropped.
     */
    interface Liveness {
        /** Every location live: nothing is replaced. */
        Liveness ALL_LIVE =
                new Liveness() {
                    @Override
                    public boolean isDead(long location) {
                        return false;
                    }

                    @Override
                    public void replaced(long location) {}
                };

        boolean isDead(long location);

        /**
         * {@code location}, dead, was replaced by a key's new location: the table holds it no more.
         */
        void replaced(long location);
    }

    /**
     * Keys added at once by {@link #addAll}: their home slots are read first, so that the cache
     * misses of a group overlap instead of following one another.
     */
    private static final int GROUP = 16;

    private final int[] groupHomes = new int[GROUP];

    /** Where the reads of home slots ahead of a group go, so that they are not left out. */
    private long touched;

    /**
     * As {@link #add(long, long, long)} for the first {@code count} rows of a block of one file:
     * row {@code i}'s identity {@code (high[i], low[i])} (low 0 for an integral key), its location
     * {@code pack(fileId, positions[i])}; a key's known locations that {@code dead} says hold no
     * live row any more (their file left, or its vector deletes them) are dropped instead of kept
     * beside the new one. A table of millions of keys is far larger than the CPU's caches, and
     * nearly every add misses; reading the home slots of a group of keys before inserting them lets
     * the misses overlap.
     */
    void addAll(long[] high, long[] low, long[] positions, int count, int fileId, Liveness dead) {
        for (int start = 0; start < count; start += GROUP) {
            int n = Math.min(GROUP, count - start);
            while ((size + n) * 4L > slots.length * 3L) {
                allocate(slots.length * 2);
            }
            long read = 0;
            for (int i = 0; i < n; i++) {
                int home = home(high[start + i], low[start + i]);
                groupHomes[i] = home;
                read += slots[home] ^ this.high[home];
            }
            touched += read;
            for (int i = 0; i < n; i++) {
                addAt(
                        find(groupHomes[i], high[start + i], low[start + i]),
                        high[start + i],
                        low[start + i],
                        pack(fileId, positions[start + i]),
                        dead);
            }
        }
    }

    /** As {@link #add(KeyIdentity, long)}, for the identity {@code (keyHigh, keyLow)}. */
    void add(long keyHigh, long keyLow, long location) {
        if ((size + 1) * 4L > slots.length * 3L) {
            allocate(slots.length * 2);
        }
        addAt(find(keyHigh, keyLow), keyHigh, keyLow, location, Liveness.ALL_LIVE);
    }

    /**
     * Adds {@code location} for the key at {@code slot}, the key's slot or the empty one it takes.
     * The key's known locations that {@code dead} says no longer hold a live row are dropped rather
     * than kept beside the new one.
     */
    private void addAt(int slot, long keyHigh, long keyLow, long location, Liveness dead) {
        long present = slots[slot];
        if (present == 0) {
            high[slot] = keyHigh;
            if (wide) {
                low[slot] = keyLow;
            }
            slots[slot] = location + 1;
            size++;
        } else if (present == MULTIPLE) {
            KeyIdentity identity = new KeyIdentity(keyHigh, wide ? keyLow : 0);
            LocationSet all = multiple.get(identity);
            multipleBytes -= all.bytes();
            if (dead != Liveness.ALL_LIVE) {
                for (long known : all.toArray()) {
                    if (known != location && dead.isDead(known)) {
                        all.remove(known);
                        dead.replaced(known);
                    }
                }
            }
            all.add(location);
            if (all.size() == 1) {
                multiple.remove(identity);
                slots[slot] = all.toArray()[0] + 1;
            } else {
                multipleBytes += all.bytes();
            }
        } else if (present - 1 != location && dead.isDead(present - 1)) {
            slots[slot] = location + 1;
            dead.replaced(present - 1);
        } else if (present - 1 != location) {
            LocationSet both = new LocationSet();
            both.add(present - 1);
            both.add(location);
            multiple.put(new KeyIdentity(keyHigh, wide ? keyLow : 0), both);
            multipleBytes += both.bytes();
            slots[slot] = MULTIPLE;
        }
    }

    /** The locations of {@code key}'s rows; empty when it has none. */
    long[] get(KeyIdentity key) {
        long present = slots[find(key.high(), key.low())];
        key = wide ? key : new KeyIdentity(key.high(), 0);
        if (present == 0) {
            return EMPTY;
        }
        if (present == MULTIPLE) {
            return multiple.get(key).toArray();
        }
        return new long[] {present - 1};
    }

    /** Forgets that a row of {@code key} is at {@code location}. */
    void remove(KeyIdentity key, long location) {
        int slot = find(key.high(), key.low());
        key = wide ? key : new KeyIdentity(key.high(), 0);
        long present = slots[slot];
        if (present == 0) {
            return;
        }
        if (present == MULTIPLE) {
            LocationSet all = multiple.get(key);
            multipleBytes -= all.bytes();
            all.remove(location);
            if (all.size() == 1) {
                multiple.remove(key);
                slots[slot] = all.toArray()[0] + 1;
            } else {
                multipleBytes += all.bytes();
            }
        } else if (present - 1 == location) {
            delete(slot);
        }
    }

    /**
     * Replaces every location by {@code remap} of it, in one pass; a location mapped to a negative
     * value is forgotten.
     */
    void rewrite(LongUnaryOperator remap) {
        long[] oldHigh = high;
        long[] oldLow = low;
        long[] oldSlots = slots;
        Map<KeyIdentity, LocationSet> oldMultiple = new HashMap<>(multiple);
        multiple.clear();
        multipleBytes = 0;
        size = 0;
        high = null;
        low = null;
        slots = null;
        allocate(oldSlots.length);
        for (int slot = 0; slot < oldSlots.length; slot++) {
            long present = oldSlots[slot];
            if (present == 0) {
                continue;
            }
            long keyLow = wide ? oldLow[slot] : 0;
            if (present == MULTIPLE) {
                for (long location :
                        oldMultiple.get(new KeyIdentity(oldHigh[slot], keyLow)).toArray()) {
                    long mapped = remap.applyAsLong(location);
                    if (mapped >= 0) {
                        add(oldHigh[slot], keyLow, mapped);
                    }
                }
            } else {
                long mapped = remap.applyAsLong(present - 1);
                if (mapped >= 0) {
                    add(oldHigh[slot], keyLow, mapped);
                }
            }
        }
    }

    /** The length of the longest run of occupied slots: how far a lookup may have to probe. */
    int longestRun() {
        int longest = 0;
        int run = 0;
        // Twice round, so that a run wrapping from the last slot to the first is counted whole.
        for (int i = 0; i < 2 * slots.length && run < slots.length; i++) {
            run = slots[i & mask] != 0 ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        return longest;
    }

    private static final long[] EMPTY = new long[0];

    private int find(long keyHigh, long keyLow) {
        return find(home(keyHigh, keyLow), keyHigh, keyLow);
    }

    /** As {@link #find(long, long)}, from the key's home slot {@code slot}. */
    private int find(int slot, long keyHigh, long keyLow) {
        while (slots[slot] != 0 && (high[slot] != keyHigh || (wide && low[slot] != keyLow))) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private int home(long keyHigh, long keyLow) {
        long mixed = (keyHigh ^ Long.rotateLeft(keyLow, 29) ^ SLOT_SALT) * SLOT_MULTIPLIER;
        mixed = (mixed ^ (mixed >>> 32)) * 0x9E3779B97F4A7C15L;
        return (int) (mixed ^ (mixed >>> 29)) & mask;
    }

    /** Empties {@code slot}, moving later entries of its probe run back so lookups find them. */
    private void delete(int slot) {
        int hole = slot;
        int next = slot;
        while (true) {
            next = (next + 1) & mask;
            if (slots[next] == 0) {
                break;
            }
            int wanted = home(high[next], wide ? low[next] : 0);
            // The entry at next may fill the hole unless its home lies cyclically in (hole, next].
            boolean homeBetween =
                    hole <= next
                            ? wanted > hole && wanted <= next
                            : wanted > hole || wanted <= next;
            if (!homeBetween) {
                high[hole] = high[next];
                if (wide) {
                    low[hole] = low[next];
                }
                slots[hole] = slots[next];
                hole = next;
            }
        }
        slots[hole] = 0;
        size--;
    }

    /** Times the table grew (was reallocated with keys in it). */
    int growths() {
        return growths;
    }

    private void allocate(int capacity) {
        long[] oldHigh = high;
        long[] oldLow = low;
        long[] oldSlots = slots;
        if (oldSlots != null) {
            growths++;
        }
        high = new long[capacity];
        low = wide ? new long[capacity] : null;
        slots = new long[capacity];
        mask = capacity - 1;
        if (oldSlots == null) {
            return;
        }
        for (int slot = 0; slot < oldSlots.length; slot++) {
            if (oldSlots[slot] == 0) {
                continue;
            }
            long keyLow = wide ? oldLow[slot] : 0;
            int target = find(oldHigh[slot], keyLow);
            high[target] = oldHigh[slot];
            if (wide) {
                low[target] = keyLow;
            }
            slots[target] = oldSlots[slot];
        }
    }

    /**
     * The locations of one key with several rows: an open-addressing set of longs, so that a key a
     * table holds in many rows (duplicates another engine wrote) costs each add and remove a
     * constant time, not a copy of all its locations.
     */
    private static final class LocationSet {
        /** Per slot: 0 when empty, else the location plus one. */
        private long[] slots = new long[4];

        private int size;

        int size() {
            return size;
        }

        long bytes() {
            return 16L + 8L * slots.length;
        }

        void add(long location) {
            if ((size + 1) * 4L > slots.length * 3L) {
                grow();
            }
            int slot = find(location);
            if (slots[slot] == 0) {
                slots[slot] = location + 1;
                size++;
            }
        }

        void remove(long location) {
            int slot = find(location);
            if (slots[slot] == 0) {
                return;
            }
            // Backward-shift deletion, as in the enclosing table.
            int hole = slot;
            int next = slot;
            int mask = slots.length - 1;
            while (true) {
                next = (next + 1) & mask;
                if (slots[next] == 0) {
                    break;
                }
                int wanted = home(slots[next] - 1, mask);
                boolean homeBetween =
                        hole <= next
                                ? wanted > hole && wanted <= next
                                : wanted > hole || wanted <= next;
                if (!homeBetween) {
                    slots[hole] = slots[next];
                    hole = next;
                }
            }
            slots[hole] = 0;
            size--;
        }

        long[] toArray() {
            long[] all = new long[size];
            int n = 0;
            for (long present : slots) {
                if (present != 0) {
                    all[n++] = present - 1;
                }
            }
            Arrays.sort(all);
            return all;
        }

        private int find(long location) {
            int mask = slots.length - 1;
            int slot = home(location, mask);
            while (slots[slot] != 0 && slots[slot] != location + 1) {
                slot = (slot + 1) & mask;
            }
            return slot;
        }

        private static int home(long location, int mask) {
            long mixed = location * 0x9E3779B97F4A7C15L;
            return (int) (mixed ^ (mixed >>> 31)) & mask;
        }

        private void grow() {
            long[] old = slots;
            slots = new long[old.length * 2];
            for (long present : old) {
                if (present != 0) {
                    slots[find(present - 1)] = present;
                }
            }
        }
    }
}
