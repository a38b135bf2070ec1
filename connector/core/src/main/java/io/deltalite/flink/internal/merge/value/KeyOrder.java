package io.deltalite.flink.internal.merge.value;

import io.deltalite.flink.internal.merge.schema.ValueType;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The order of key values that Parquet and Delta statistics use: numbers numerically, strings by
 * code point (the order of their UTF-8 bytes), binary by unsigned bytes.
 */
public final class KeyOrder {
    private KeyOrder() {}

    /** Compares two non-null values of {@code type}. */
    public static int compare(ValueType type, Object left, Object right) {
        if (type instanceof ValueType.Decimal) {
            return ((BigDecimal) left).compareTo((BigDecimal) right);
        }
        ValueType.Kind kind = ((ValueType.Primitive) type).kind();
        return switch (kind) {
            case BOOLEAN -> Boolean.compare((Boolean) left, (Boolean) right);
            case TINYINT, SMALLINT, INT, DATE ->
                    Integer.compare(((Number) left).intValue(), ((Number) right).intValue());
            case BIGINT, TIMESTAMP, TIMESTAMP_NTZ -> Long.compare((Long) left, (Long) right);
            case FLOAT -> Float.compare((Float) left, (Float) right);
            case DOUBLE -> Double.compare((Double) left, (Double) right);
            case STRING -> compareCodePoints((String) left, (String) right);
            case BINARY -> Arrays.compareUnsigned((byte[]) left, (byte[]) right);
        };
    }

    /** Orders keys by their components, left to right. */
    public static Comparator<RowKey> keys(List<ValueType> keyTypes) {
        ValueType[] types = keyTypes.toArray(new ValueType[0]);
        return (left, right) -> {
            for (int i = 0; i < types.length; i++) {
                int order = compare(types[i], left.get(i), right.get(i));
                if (order != 0) {
                    return order;
                }
            }
            return 0;
        };
    }

    /** Code-point order, which equals the order of the UTF-8 encodings. */
    static int compareCodePoints(String left, String right) {
        int length = Math.min(left.length(), right.length());
        for (int i = 0; i < length; i++) {
            char a = left.charAt(i);
            char b = right.charAt(i);
            if (a != b) {
                boolean aSurrogate = Character.isSurrogate(a);
                boolean bSurrogate = Character.isSurrogate(b);
                if (aSurrogate == bSurrogate) {
                    return Character.compare(a, b);
                }
                // A surrogate (a supplementary code point) sorts after every BMP character.
                return aSurrogate ? 1 : -1;
            }
        }
        return Integer.compare(left.length(), right.length());
    }
}
