package io.deltalite.flink.internal.merge.value;

import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.Arrays;
import java.util.List;

/**
 * The match-key values of one row: binary compared by content, floating point by value bits ({@link
 * Double#equals} semantics: {@code -0.0} differs from {@code 0.0}, {@code NaN} equals {@code NaN} —
 * unlike Spark's {@code MERGE}, which treats the two zeros as one key). A key with a null component
 * never exists as a {@code RowKey}: such rows never match.
 */
public final class RowKey {
    private final Object[] values;
    private final int hash;

    private RowKey(Object[] values) {
        this.values = values;
        this.hash = Arrays.deepHashCode(values);
    }

    /**
     * The key of {@code row} at {@code keyIndexes}, or {@code null} when a key column is null. The
     * values must already be normalized (see {@link ValueType}).
     */
    public static RowKey of(Object[] row, int[] keyIndexes) {
        Object[] values = new Object[keyIndexes.length];
        for (int i = 0; i < keyIndexes.length; i++) {
            Object value = row[keyIndexes[i]];
            if (value == null) {
                return null;
            }
            values[i] = value;
        }
        return new RowKey(values);
    }

    /** A key from its component values; returns {@code null} when one is null. */
    public static RowKey ofValues(Object... values) {
        for (Object value : values) {
            if (value == null) {
                return null;
            }
        }
        return new RowKey(values.clone());
    }

    /**
     * A key over {@code values}, which it takes over without copying: the caller must not change
     * the array afterwards, and no value may be null. For readers building a key per row.
     */
    public static RowKey adopt(Object[] values) {
        return new RowKey(values);
    }

    public int size() {
        return values.length;
    }

    public Object get(int index) {
        return values[index];
    }

    public List<Object> values() {
        return List.of(values);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RowKey key
                && hash == key.hash
                && Arrays.deepEquals(values, key.values);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("(");
        for (int i = 0; i < values.length; i++) {
            text.append(i == 0 ? "" : ", ");
            text.append(
                    values[i] instanceof byte[] bytes
                            ? "0x" + java.util.HexFormat.of().formatHex(bytes)
                            : values[i]);
        }
        return text.append(')').toString();
    }

    /** The key as {@code (name=value, ...)}, with the names of its columns. */
    public String describe(java.util.List<String> columns) {
        StringBuilder text = new StringBuilder("(");
        for (int i = 0; i < values.length; i++) {
            text.append(i == 0 ? "" : ", ")
                    .append(i < columns.size() ? columns.get(i) : "?")
                    .append('=')
                    .append(
                            values[i] instanceof byte[] bytes
                                    ? "0x" + java.util.HexFormat.of().formatHex(bytes)
                                    : values[i]);
        }
        return text.append(')').toString();
    }
}
