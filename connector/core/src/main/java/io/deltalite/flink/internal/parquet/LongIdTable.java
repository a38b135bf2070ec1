package io.deltalite.flink.internal.parquet;

/**
 * An open-addressing hash table from {@code long} values to small non-negative ids, without boxing:
 * the changed keys of one key column, as the probe looks each decoded value up.
 *
 * <p>Linear probing over a power-of-two table at most half full; {@code 0} marks an empty slot, so
 * the value {@code 0} is kept beside the table. In front of the table sits a bit set of 16 bits per
 * value (one bit set per value, chosen by other bits of the same hash): most values of a file are
 * not changed keys, and for them a lookup reads one word of a bit set small enough to stay in the
 * processor's cache (about 1/16 of the misses go on to the table).
 */
final class LongIdTable {
    static final int ABSENT = -1;

    private final long[] values;
    private final int[] ids;
    private final int mask;
    private final long[] filter;
    private final int filterShift;
    private int zeroId = ABSENT;
    private int size;

    /** A table with room for {@code expected} values. */
    LongIdTable(int expected) {
        int capacity = Integer.highestOneBit(Math.max(2, expected) * 2 - 1) << 1;
        this.values = new long[capacity];
        this.ids = new int[capacity];
        this.mask = capacity - 1;
        // 16 bits per expected value, at least one word: 2^filterBits bits.
        int filterBits =
                Math.max(6, 64 - Long.numberOfLeadingZeros(Math.max(1, expected) * 16L - 1));
        this.filter = new long[1 << (filterBits - 6)];
        this.filterShift = 64 - filterBits;
    }

    /** The id of {@code value}, adding it with {@code id} when absent. */
    int putIfAbsent(long value, int id) {
        if (value == 0) {
            if (zeroId == ABSENT) {
                zeroId = id;
                size++;
            }
            return zeroId;
        }
        int slot = slot(value);
        while (values[slot] != 0) {
            if (values[slot] == value) {
                return ids[slot];
            }
            slot = (slot + 1) & mask;
        }
        if (size + 1 > values.length / 2) {
            throw new IllegalStateException("table full: sized for fewer values");
        }
        values[slot] = value;
        ids[slot] = id;
        long bit = mix(value) >>> filterShift;
        filter[(int) (bit >>> 6)] |= 1L << bit;
        size++;
        return id;
    }

    /** The id of {@code value}, or {@link #ABSENT}. */
    int find(long value) {
        if (value == 0) {
            return zeroId;
        }
        long mixed = mix(value);
        long bit = mixed >>> filterShift;
        if ((filter[(int) (bit >>> 6)] & (1L << bit)) == 0) {
            return ABSENT;
        }
        int slot = (int) (mixed ^ (mixed >>> 32)) & mask;
        while (true) {
            long present = values[slot];
            if (present == value) {
                return ids[slot];
            }
            if (present == 0) {
                return ABSENT;
            }
            slot = (slot + 1) & mask;
        }
    }

    int size() {
        return size;
    }

    /** Bytes held by the table's arrays. */
    long footprintBytes() {
        return values.length * 8L + ids.length * 4L + filter.length * 8L;
    }

    private int slot(long value) {
        long mixed = mix(value);
        return (int) (mixed ^ (mixed >>> 32)) & mask;
    }

    private static long mix(long value) {
        long mixed = value * 0x9E3779B97F4A7C15L;
        return mixed ^ (mixed >>> 29);
    }

    @Override
    public String toString() {
        return "LongIdTable[" + size + " of " + values.length + " slots]";
    }
}
