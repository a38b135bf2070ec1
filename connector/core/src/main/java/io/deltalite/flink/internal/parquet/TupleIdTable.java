package io.deltalite.flink.internal.parquet;

/**
 * An open-addressing hash table from tuples of component ids — one id per key column, as {@link
 * LongIdTable} and {@link BytesIdTable} hand them out — to the index of the composite key they
 * form. A row of a composite key matches when each of its columns' values is a component of some
 * changed key and the tuple of those components is one changed key.
 */
final class TupleIdTable {
    static final int ABSENT = -1;

    private final int width;

    /** Per slot: 1 + the entry's index, 0 when empty. */
    private final int[] slots;

    private final int mask;
    private final int[] components;
    private final int[] keys;
    private int size;

    /** A table for {@code expected} tuples of {@code width} components. */
    TupleIdTable(int width, int expected) {
        int capacity = Integer.highestOneBit(Math.max(2, expected) * 2 - 1) << 1;
        this.width = width;
        this.slots = new int[capacity];
        this.mask = capacity - 1;
        this.components = new int[Math.max(1, expected) * width];
        this.keys = new int[Math.max(1, expected)];
    }

    /** Adds {@code tuple} for {@code key} unless it is present; returns the key it maps to. */
    int putIfAbsent(int[] tuple, int key) {
        int slot = hash(tuple) & mask;
        while (slots[slot] != 0) {
            int entry = slots[slot] - 1;
            if (equal(entry, tuple)) {
                return keys[entry];
            }
            slot = (slot + 1) & mask;
        }
        if (size == keys.length) {
            throw new IllegalStateException("table full: sized for fewer tuples");
        }
        System.arraycopy(tuple, 0, components, size * width, width);
        keys[size] = key;
        slots[slot] = ++size;
        return key;
    }

    /** The key the tuple is, or {@link #ABSENT}. */
    int find(int[] tuple) {
        int slot = hash(tuple) & mask;
        while (true) {
            int entry = slots[slot] - 1;
            if (entry < 0) {
                return ABSENT;
            }
            if (equal(entry, tuple)) {
                return keys[entry];
            }
            slot = (slot + 1) & mask;
        }
    }

    private boolean equal(int entry, int[] tuple) {
        int base = entry * width;
        for (int i = 0; i < width; i++) {
            if (components[base + i] != tuple[i]) {
                return false;
            }
        }
        return true;
    }

    private static int hash(int[] tuple) {
        long hash = 0;
        for (int component : tuple) {
            hash = (hash + component) * 0x9E3779B97F4A7C15L;
        }
        return (int) (hash ^ (hash >>> 32));
    }
}
