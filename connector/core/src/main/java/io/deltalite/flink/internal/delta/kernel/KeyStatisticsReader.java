package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.ColumnStatistics;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the match-key bounds out of a file's statistics, widened where writers are known to round:
 * timestamps are stored with millisecond precision, a long string maximum may be a truncated prefix
 * with a tie-breaker character, Kernel reads decimal bounds of the log through a {@code double},
 * and binary bounds written as text may have lost their non-UTF-8 bytes.
 */
public final class KeyStatisticsReader {
    private static final long MICROS_PER_MILLI = 1000;
    private static final int STRING_PREFIX_LENGTH = 32;

    private final StructType physicalSchema;
    private final List<String> keyColumns;
    private final List<ValueType> keyTypes;

    public KeyStatisticsReader(
            StructType physicalSchema, List<String> keyColumns, List<ValueType> keyTypes) {
        this.physicalSchema = physicalSchema;
        this.keyColumns = List.copyOf(keyColumns);
        this.keyTypes = List.copyOf(keyTypes);
    }

    /** Parses the JSON statistics of the log; empty when there are none or they are unreadable. */
    public Optional<DataFileStatistics> parse(String json) {
        if (json == null || json.isEmpty()) {
            return Optional.empty();
        }
        try {
            return DataFileStatistics.deserializeFromJson(json, physicalSchema);
        } catch (RuntimeException e) {
            // Statistics are an optimization; a file with unreadable ones is simply probed.
            return Optional.empty();
        }
    }

    /** The bounds of each key column, in key order. */
    public List<ColumnStatistics> keyStatistics(DataFileStatistics statistics) {
        List<ColumnStatistics> columns = new ArrayList<>(keyColumns.size());
        for (int i = 0; i < keyColumns.size(); i++) {
            Column column = new Column(keyColumns.get(i));
            Long nulls = statistics.getNullCount().get(column);
            columns.add(
                    new ColumnStatistics(
                            lowerBound(keyTypes.get(i), statistics.getMinValues().get(column)),
                            upperBound(keyTypes.get(i), statistics.getMaxValues().get(column)),
                            nulls == null ? -1 : nulls));
        }
        return columns;
    }

    private static Object lowerBound(ValueType type, Literal literal) {
        Object value = normalize(type, literal);
        if (value instanceof Long micros && isTimestamp(type)) {
            return micros - MICROS_PER_MILLI;
        }
        if (value instanceof BigDecimal number) {
            return number.subtract(doublePrecision(number));
        }
        return value;
    }

    private static Object upperBound(ValueType type, Literal literal) {
        Object value = normalize(type, literal);
        if (value instanceof Long micros && isTimestamp(type)) {
            return micros + MICROS_PER_MILLI;
        }
        if (value instanceof BigDecimal number) {
            return number.add(doublePrecision(number));
        }
        if (value instanceof String text
                && text.length() > STRING_PREFIX_LENGTH
                && text.charAt(text.length() - 1) == '\ufffd') {
            // Older writers cut long maxima and appended U+FFFD, which is not an upper bound
            // in code-point order for supplementary characters.
            return null;
        }
        return value;
    }

    /**
     * How far a decimal read through a {@code double} can be from the value written: less than one
     * unit in the last place of that double.
     */
    private static BigDecimal doublePrecision(BigDecimal number) {
        return new BigDecimal(Math.ulp(number.doubleValue()));
    }

    /**
     * Whether a binary bound may have been written as text and read back with U+FFFD (bytes EF BF
     * BD) in place of bytes that are not UTF-8; such a bound says nothing about the original.
     */
    private static boolean mayBeMangledText(byte[] bytes) {
        for (int i = 0; i + 2 < bytes.length; i++) {
            if (bytes[i] == (byte) 0xEF
                    && bytes[i + 1] == (byte) 0xBF
                    && bytes[i + 2] == (byte) 0xBD) {
                return true;
            }
        }
        return false;
    }

    private static boolean isTimestamp(ValueType type) {
        return type instanceof ValueType.Primitive primitive
                && (primitive.kind() == ValueType.Kind.TIMESTAMP
                        || primitive.kind() == ValueType.Kind.TIMESTAMP_NTZ);
    }

    private static Object normalize(ValueType type, Literal literal) {
        if (literal == null || literal.getValue() == null) {
            return null;
        }
        Object value = literal.getValue();
        if (type instanceof ValueType.Decimal decimal && value instanceof BigDecimal number) {
            return number;
        }
        if (!(type instanceof ValueType.Primitive primitive)) {
            return null;
        }
        return switch (primitive.kind()) {
            case TINYINT -> value instanceof Number n ? (Object) n.byteValue() : null;
            case SMALLINT -> value instanceof Number n ? (Object) n.shortValue() : null;
            case INT, DATE -> value instanceof Number n ? (Object) n.intValue() : null;
            case BIGINT, TIMESTAMP, TIMESTAMP_NTZ ->
                    value instanceof Number n ? (Object) n.longValue() : null;
            case FLOAT -> value instanceof Number n ? (Object) n.floatValue() : null;
            case DOUBLE -> value instanceof Number n ? (Object) n.doubleValue() : null;
            case STRING -> value instanceof String ? value : null;
            case BINARY -> value instanceof byte[] bytes && !mayBeMangledText(bytes) ? value : null;
            case BOOLEAN -> value instanceof Boolean ? value : null;
        };
    }
}
