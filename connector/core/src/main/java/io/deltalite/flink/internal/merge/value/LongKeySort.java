package io.deltalite.flink.internal.merge.value;

/**
 * A stable sort of {@code long} keys that returns the order rather than moving the rows: a
 * least-significant-digit radix sort on bytes, the keys carried along with their positions so that
 * each pass reads and writes both arrays front to back. A pass whose byte is the same in every key
 * (the high bytes of ids below 2^32, say) is skipped. Keys order as signed numbers, as {@link
 * Long#compare}.
 */
final class LongKeySort {
    private static final int RADIX = 256;

    private LongKeySort() {}

    /**
     * The positions of the first {@code count} of {@code keys} in ascending key order, equal keys
     * in their order of position.
     */
    static int[] stableOrder(long[] keys, int count) {
        long[] from = new long[count];
        int[] fromPositions = new int[count];
        for (int i = 0; i < count; i++) {
            // Flipping the sign bit makes the unsigned order of the bytes the signed order.
            from[i] = keys[i] ^ Long.MIN_VALUE;
            fromPositions[i] = i;
        }
        long[] to = new long[count];
        int[] toPositions = new int[count];
        int[] starts = new int[RADIX];
        for (int shift = 0; shift < Long.SIZE; shift += Byte.SIZE) {
            java.util.Arrays.fill(starts, 0);
            for (int i = 0; i < count; i++) {
                starts[(int) (from[i] >>> shift) & (RADIX - 1)]++;
            }
            if (count == 0 || starts[(int) (from[0] >>> shift) & (RADIX - 1)] == count) {
                continue;
            }
            int next = 0;
            for (int digit = 0; digit < RADIX; digit++) {
                int size = starts[digit];
                starts[digit] = next;
                next += size;
            }
            for (int i = 0; i < count; i++) {
                int slot = starts[(int) (from[i] >>> shift) & (RADIX - 1)]++;
                to[slot] = from[i];
                toPositions[slot] = fromPositions[i];
            }
            long[] keysSwap = from;
            from = to;
            to = keysSwap;
            int[] positionsSwap = fromPositions;
            fromPositions = toPositions;
            toPositions = positionsSwap;
        }
        return fromPositions;
    }
}
