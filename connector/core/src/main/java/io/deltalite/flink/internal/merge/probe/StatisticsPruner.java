package io.deltalite.flink.internal.merge.probe;

import io.deltalite.flink.internal.merge.result.WidenedValues;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.ColumnStatistics;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.KeyOrder;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Decides from a file's statistics alone whether it can hold one of a set of keys. It errs only
 * towards "maybe": a file it rules out certainly holds none of the keys.
 *
 * <p>The keys are sorted by their first component once; each file then costs a binary search on its
 * first-column bounds and a scan of the keys inside them. Bounds a job's state holds for its own
 * files may be of a key column's type before another writer widened it: they are compared in the
 * column's current type ({@link WidenedValues}).
 */
public final class StatisticsPruner {
    private final List<ValueType> keyTypes;
    private final RowKey[] sortedKeys;

    public StatisticsPruner(List<ValueType> keyTypes, Collection<RowKey> keys) {
        this.keyTypes = List.copyOf(keyTypes);
        List<RowKey> sorted = new ArrayList<>(keys);
        ValueType first = keyTypes.get(0);
        sorted.sort((left, right) -> KeyOrder.compare(first, left.get(0), right.get(0)));
        this.sortedKeys = sorted.toArray(new RowKey[0]);
    }

    /** Changed keys a file must be expected to hold before probing it is not worth it. */
    private static final double CERTAIN_HITS = 4.0;

    /**
     * Whether {@code file} almost certainly holds a changed key, so that reading its keys first
     * would only cost time: true for a single integer-like key column whose statistics show a
     * densely filled range (say ids 1..500,000 in 500,000 rows) with several changed keys in it. A
     * wrong guess only rewrites a file unchanged.
     */
    public boolean almostCertainlyContainsAny(DataFile file) {
        if (keyTypes.size() != 1 || !file.hasStatistics() || file.keyStatistics().size() != 1) {
            return false;
        }
        if (!(keyTypes.get(0) instanceof ValueType.Primitive primitive)) {
            return false;
        }
        switch (primitive.kind()) {
            case TINYINT, SMALLINT, INT, BIGINT, DATE -> {}
            default -> {
                return false;
            }
        }
        ColumnStatistics column = file.keyStatistics().get(0);
        if (!(column.min() instanceof Number min) || !(column.max() instanceof Number max)) {
            return false;
        }
        double span = (double) max.longValue() - min.longValue() + 1;
        long rowsWithKey = file.numRecords() - Math.max(0, column.nullCount());
        if (span <= 0 || rowsWithKey <= 0) {
            return false;
        }
        double density = Math.min(1.0, rowsWithKey / span);
        long keysInRange = upperBound(column.max()) - lowerBound(column.min());
        return keysInRange * density >= CERTAIN_HITS;
    }

    /** Whether {@code file} may hold at least one of the keys. */
    public boolean mayContainAny(DataFile file) {
        if (sortedKeys.length == 0) {
            return false;
        }
        if (!file.hasStatistics()) {
            return true;
        }
        if (file.numRecords() == 0) {
            return false;
        }
        List<ColumnStatistics> statistics = file.keyStatistics();
        if (statistics.size() != keyTypes.size()) {
            return true;
        }
        for (ColumnStatistics column : statistics) {
            if (column.nullCount() >= 0 && column.nullCount() >= file.numRecords()) {
                // Every row has a null in this key column, and null keys never match.
                return false;
            }
        }
        int from = 0;
        int to = sortedKeys.length;
        ColumnStatistics first = statistics.get(0);
        if (isOrderedByStatistics(keyTypes.get(0)) && first.min() != null && first.max() != null) {
            from = lowerBound(first.min());
            to = upperBound(first.max());
        }
        for (int k = from; k < to; k++) {
            if (withinBounds(sortedKeys[k], statistics)) {
                return true;
            }
        }
        return false;
    }

    private boolean withinBounds(RowKey key, List<ColumnStatistics> statistics) {
        for (int i = 0; i < keyTypes.size(); i++) {
            if (!mayHold(keyTypes.get(i), statistics.get(i), key.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean mayHold(ValueType type, ColumnStatistics column, Object value) {
        if (type instanceof ValueType.Primitive primitive) {
            switch (primitive.kind()) {
                case FLOAT, DOUBLE -> {
                    return mayHoldFloatingPoint(column, ((Number) value).doubleValue());
                }
                case BOOLEAN -> {
                    // Boolean statistics are rarely written; compare only when both bounds exist.
                    if (column.min() == null || column.max() == null) {
                        return true;
                    }
                }
                default -> {}
            }
        }
        Object min = WidenedValues.conform(column.min(), type);
        if (min != null && KeyOrder.compare(type, value, min) < 0) {
            return false;
        }
        Object max = WidenedValues.conform(column.max(), type);
        return max == null || KeyOrder.compare(type, value, max) <= 0;
    }

    /**
     * Floating-point bounds say nothing about NaN, and writers disagree on the sign of zero, so
     * compare numerically ({@code -0.0 == 0.0}) and keep the file whenever NaN is involved.
     */
    private static boolean mayHoldFloatingPoint(ColumnStatistics column, double value) {
        if (Double.isNaN(value)) {
            return true;
        }
        if (column.min() instanceof Number min) {
            double bound = min.doubleValue();
            if (!Double.isNaN(bound) && value < bound) {
                return false;
            }
        }
        if (column.max() instanceof Number max) {
            double bound = max.doubleValue();
            return Double.isNaN(bound) || value <= bound;
        }
        return true;
    }

    private static boolean isOrderedByStatistics(ValueType type) {
        return !(type instanceof ValueType.Primitive primitive)
                || switch (primitive.kind()) {
                    case FLOAT, DOUBLE, BOOLEAN -> false;
                    default -> true;
                };
    }

    /** The first index whose first component is {@code >= bound}. */
    private int lowerBound(Object statistic) {
        ValueType type = keyTypes.get(0);
        Object bound = WidenedValues.conform(statistic, type);
        int low = 0;
        int high = sortedKeys.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (KeyOrder.compare(type, sortedKeys[middle].get(0), bound) < 0) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /** The first index whose first component is {@code > bound}. */
    private int upperBound(Object statistic) {
        ValueType type = keyTypes.get(0);
        Object bound = WidenedValues.conform(statistic, type);
        int low = 0;
        int high = sortedKeys.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (KeyOrder.compare(type, sortedKeys[middle].get(0), bound) <= 0) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }
}
