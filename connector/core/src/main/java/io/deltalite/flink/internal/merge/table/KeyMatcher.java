package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.Set;

/**
 * Which rows of a batch hold one of a set of changed keys — the inner loop of every probe, rewrite
 * and deletion-vector merge, run once per row of each file read.
 *
 * <p>When every changed key is a single {@code Long} and the batch can hand its key column out as
 * longs ({@link RowBatch#longKeyAt}), rows are matched against a primitive hash set without
 * building a key object per row; a key is built only for the rows that match. Otherwise each row's
 * {@link RowKey} is looked up. Both ways match exactly the rows whose key equals a changed key
 * ({@code Long.equals} is {@code ==} on the value).
 */
public final class KeyMatcher {
    /** Above this many keys the table would be large beside the key set: keys are looked up. */
    private static final int MAX_PRIMITIVE_KEYS = 1 << 26;

    private final Set<RowKey> keys;

    /**
     * The keys' values in an open-addressing table, built on the first row-wise match (a merge
     * whose store locates keys its own way never needs it); {@link LongKeys#NONE} when not every
     * key is one Long.
     */
    private volatile LongKeys longKeys;

    private volatile ChangedKeys changed;

    private KeyMatcher(Set<RowKey> keys) {
        this.keys = keys;
    }

    public static KeyMatcher of(Set<RowKey> keys) {
        return new KeyMatcher(keys);
    }

    /** Open-addressing table of single-Long keys; a null table when they are not all such. */
    private record LongKeys(long[] table, boolean hasZero, int mask) {
        static final LongKeys NONE = new LongKeys(null, false, 0);

        static LongKeys of(Set<RowKey> keys) {
            if (keys.size() > MAX_PRIMITIVE_KEYS) {
                return NONE;
            }
            for (RowKey key : keys) {
                if (key.size() != 1 || !(key.get(0) instanceof Long)) {
                    return NONE;
                }
            }
            // Load factor at most 1/2; 0 marks an empty slot, so the key 0 is kept aside.
            int capacity = Integer.highestOneBit(Math.max(2, keys.size()) * 2 - 1) << 1;
            long[] table = new long[capacity];
            boolean hasZero = false;
            for (RowKey key : keys) {
                long value = (Long) key.get(0);
                if (value == 0) {
                    hasZero = true;
                    continue;
                }
                int slot = slot(value, capacity - 1);
                while (table[slot] != 0 && table[slot] != value) {
                    slot = (slot + 1) & (capacity - 1);
                }
                table[slot] = value;
            }
            return new LongKeys(table, hasZero, capacity - 1);
        }

        boolean contains(long value) {
            if (value == 0) {
                return hasZero;
            }
            int slot = slot(value, mask);
            while (true) {
                long present = table[slot];
                if (present == value) {
                    return true;
                }
                if (present == 0) {
                    return false;
                }
                slot = (slot + 1) & mask;
            }
        }
    }

    private LongKeys longKeys() {
        LongKeys built = longKeys;
        if (built == null) {
            synchronized (this) {
                built = longKeys;
                if (built == null) {
                    built = LongKeys.of(keys);
                    longKeys = built;
                }
            }
        }
        return built;
    }

    /** The same keys, numbered, as a storage layer probes files for them. */
    public ChangedKeys changed() {
        ChangedKeys numbered = changed;
        if (numbered == null) {
            synchronized (this) {
                numbered = changed;
                if (numbered == null) {
                    numbered = new ChangedKeys(this, keys);
                    changed = numbered;
                }
            }
        }
        return numbered;
    }

    /** The key of {@code row} if it is one of the changed keys (and not null), else null. */
    public RowKey match(RowBatch batch, int row) {
        LongKeys longs = longKeys();
        if (longs.table() != null && batch.hasLongKey()) {
            if (batch.isKeyNullAt(row)) {
                return null;
            }
            long value = batch.longKeyAt(row);
            return longs.contains(value) ? RowKey.adopt(new Object[] {value}) : null;
        }
        RowKey key = batch.keyAt(row);
        return key != null && keys.contains(key) ? key : null;
    }

    private static int slot(long value, int mask) {
        long mixed = value * 0x9E3779B97F4A7C15L;
        return (int) (mixed ^ (mixed >>> 32)) & mask;
    }

    @Override
    public String toString() {
        return "KeyMatcher["
                + keys.size()
                + " keys"
                + (longKeys != null && longKeys.table() != null ? ", as longs" : "")
                + "]";
    }

    /** For tests: whether rows are matched as primitive longs. */
    boolean matchesLongs() {
        return longKeys().table() != null;
    }
}
