package io.deltalite.flink.internal.merge.changes;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * Estimates the heap bytes a buffered row occupies, so the change buffer can keep to its budget.
 * The estimate follows the usual 64-bit JVM layouts with compressed references; it is meant to be
 * close, not exact.
 */
public final class RowSizeEstimator {
    private static final int REFERENCE = 4;
    private static final int OBJECT_HEADER = 16;
    private static final int ARRAY_HEADER = 16;
    private static final int BOXED = 16;
    private static final int MAP_ENTRY = 32;

    private RowSizeEstimator() {}

    public static long estimate(Object[] row) {
        long bytes = ARRAY_HEADER + (long) REFERENCE * row.length;
        for (Object value : row) {
            bytes += estimateValue(value);
        }
        return bytes;
    }

    /** The cost of one entry of the change map around a row: entry, key object, key array. */
    public static long keyOverhead(int keyColumns) {
        return MAP_ENTRY + OBJECT_HEADER + 8 + ARRAY_HEADER + (long) REFERENCE * keyColumns;
    }

    private static long estimateValue(Object value) {
        if (value == null) {
            return 0;
        }
        if (value instanceof String string) {
            // Latin-1 text takes a byte per character, other text two: assume the larger.
            return OBJECT_HEADER + 8 + ARRAY_HEADER + 2L * string.length();
        }
        if (value instanceof byte[] bytes) {
            return ARRAY_HEADER + bytes.length;
        }
        if (value instanceof BigDecimal decimal) {
            return OBJECT_HEADER + 24 + (decimal.precision() > 18 ? ARRAY_HEADER + 16 : 0);
        }
        if (value instanceof Object[] struct) {
            return estimate(struct);
        }
        if (value instanceof List<?> list) {
            long bytes = OBJECT_HEADER + ARRAY_HEADER + (long) REFERENCE * list.size();
            for (Object element : list) {
                bytes += estimateValue(element);
            }
            return bytes;
        }
        if (value instanceof Map<?, ?> map) {
            long bytes = OBJECT_HEADER + ARRAY_HEADER + (long) MAP_ENTRY * map.size();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                bytes += estimateValue(entry.getKey()) + estimateValue(entry.getValue());
            }
            return bytes;
        }
        return BOXED;
    }
}
