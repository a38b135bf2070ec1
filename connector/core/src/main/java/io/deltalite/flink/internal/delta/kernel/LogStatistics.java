package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The statistics of a written file as the Delta log can hold them.
 *
 * <p>Kernel's JSON form of statistics is lossy for some values: decimals are read back through a
 * {@code double} (wrong digits past the 16th, and an error when rounding overflows the precision),
 * binary values are written as UTF-8 text (other bytes become U+FFFD), timestamps before year 1 are
 * written with the wrong year. A bound that does not read back as the value written — up to the
 * millisecond truncation of timestamps, which readers allow for — would let readers (and the next
 * merge) skip a file that holds the value, or fail the commit. Such bounds are left out: a column
 * without bounds is never skipped.
 */
public final class LogStatistics {
    private static final long MICROS_PER_MILLI = 1000;

    private LogStatistics() {}

    /** {@code statistics} without the min/max bounds the log's JSON would not give back. */
    public static DataFileStatistics withFaithfulBounds(
            DataFileStatistics statistics, StructType dataSchema) {
        Map<Column, Literal> minValues = new HashMap<>(statistics.getMinValues());
        Map<Column, Literal> maxValues = new HashMap<>(statistics.getMaxValues());
        Set<Column> columns = new HashSet<>(minValues.keySet());
        columns.addAll(maxValues.keySet());
        boolean changed = false;
        for (Column column : columns) {
            if (!readsBack(column, minValues.get(column), dataSchema)
                    || !readsBack(column, maxValues.get(column), dataSchema)) {
                minValues.remove(column);
                maxValues.remove(column);
                changed = true;
            }
        }
        if (!changed) {
            return statistics;
        }
        return new DataFileStatistics(
                statistics.getNumRecords(),
                minValues,
                maxValues,
                statistics.getNullCount(),
                statistics.getTightBounds());
    }

    private static boolean readsBack(Column column, Literal bound, StructType dataSchema) {
        if (bound == null || bound.getValue() == null) {
            return true;
        }
        Literal read;
        try {
            String json =
                    new DataFileStatistics(
                                    1, Map.of(column, bound), Map.of(), Map.of(), Optional.empty())
                            .serializeAsJson(dataSchema);
            read =
                    DataFileStatistics.deserializeFromJson(json, dataSchema)
                            .map(parsed -> parsed.getMinValues().get(column))
                            .orElse(null);
        } catch (RuntimeException e) {
            return false;
        }
        if (read == null || read.getValue() == null) {
            return false;
        }
        Object written = bound.getValue();
        Object back = read.getValue();
        if (written instanceof BigDecimal number) {
            return back instanceof BigDecimal parsed && number.compareTo(parsed) == 0;
        }
        if (written instanceof byte[] bytes) {
            return back instanceof byte[] parsed && Arrays.equals(bytes, parsed);
        }
        if (bound.getDataType() instanceof TimestampType
                || bound.getDataType() instanceof TimestampNTZType) {
            long truncated = (Long) written - (Long) back;
            return truncated >= 0 && truncated < MICROS_PER_MILLI;
        }
        return written.equals(back);
    }
}
