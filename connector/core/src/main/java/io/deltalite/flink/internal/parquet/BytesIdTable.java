package io.deltalite.flink.internal.parquet;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * An open-addressing hash table from byte sequences to small non-negative ids: the changed keys of
 * one string, binary or fixed-length decimal key column, in the bytes Parquet stores them as. The
 * sequences are copied into one array; a lookup compares a decoded value in place, without building
 * a {@code String} or copying it.
 */
final class BytesIdTable {
    static final int ABSENT = -1;

    /** Per slot: 1 + the entry's index, 0 when empty. */
    private final int[] slots;

    private final int mask;
    private final int[] hashes;
    private final int[] offsets;
    private final int[] lengths;
    private final int[] ids;
    private byte[] arena;
    private int arenaUsed;
    private int size;

    /** A table with room for {@code expected} sequences. */
    BytesIdTable(int expected) {
        int capacity = Integer.highestOneBit(Math.max(2, expected) * 2 - 1) << 1;
        this.slots = new int[capacity];
        this.mask = capacity - 1;
        int entries = Math.max(1, expected);
        this.hashes = new int[entries];
        this.offsets = new int[entries];
        this.lengths = new int[entries];
        this.ids = new int[entries];
        this.arena = new byte[Math.max(16, entries * 8)];
    }

    /** The id of {@code bytes}, adding it with {@code id} when absent. */
    int putIfAbsent(byte[] bytes, int id) {
        ByteBuffer value = ByteBuffer.wrap(bytes);
        int hash = hash(value);
        int slot = hash & mask;
        while (slots[slot] != 0) {
            int entry = slots[slot] - 1;
            if (hashes[entry] == hash && equal(entry, value)) {
                return ids[entry];
            }
            slot = (slot + 1) & mask;
        }
        if (size == hashes.length) {
            throw new IllegalStateException("table full: sized for fewer values");
        }
        if (arenaUsed + bytes.length > arena.length) {
            arena = Arrays.copyOf(arena, Math.max(arena.length * 2, arenaUsed + bytes.length));
        }
        System.arraycopy(bytes, 0, arena, arenaUsed, bytes.length);
        hashes[size] = hash;
        offsets[size] = arenaUsed;
        lengths[size] = bytes.length;
        ids[size] = id;
        arenaUsed += bytes.length;
        slots[slot] = ++size;
        return id;
    }

    /**
     * The id of the bytes between {@code value}'s position and limit, or {@link #ABSENT}; the
     * buffer's position is not changed.
     */
    int find(ByteBuffer value) {
        int hash = hash(value);
        int slot = hash & mask;
        while (true) {
            int entry = slots[slot] - 1;
            if (entry < 0) {
                return ABSENT;
            }
            if (hashes[entry] == hash && equal(entry, value)) {
                return ids[entry];
            }
            slot = (slot + 1) & mask;
        }
    }

    int size() {
        return size;
    }

    private boolean equal(int entry, ByteBuffer value) {
        int length = lengths[entry];
        if (value.remaining() != length) {
            return false;
        }
        int offset = offsets[entry];
        int start = value.position();
        for (int i = 0; i < length; i++) {
            if (arena[offset + i] != value.get(start + i)) {
                return false;
            }
        }
        return true;
    }

    private static int hash(ByteBuffer value) {
        int hash = 0x811C9DC5;
        int end = value.limit();
        for (int i = value.position(); i < end; i++) {
            hash = (hash ^ value.get(i)) * 0x01000193;
        }
        hash ^= value.remaining();
        return hash ^ (hash >>> 16);
    }

    @Override
    public String toString() {
        return "BytesIdTable[" + size + " of " + slots.length + " slots]";
    }
}
