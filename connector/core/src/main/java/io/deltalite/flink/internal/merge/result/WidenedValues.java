package io.deltalite.flink.internal.merge.result;

import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.math.BigDecimal;
import java.util.List;

/**
 * Values of key and partition columns brought to the Java type of the table's columns as they are
 * now. Keys and partition values decoded from a job's state or staged files keep the type they were
 * written with, and another writer may since have widened the column (Delta's type widening, such
 * as Spark's {@code ALTER TABLE … ALTER COLUMN id TYPE BIGINT}): a {@code Short} 1 does not equal
 * an {@code Integer} 1, nor can it be ordered against a {@code Long}. Each widening Delta allows
 * maps a value to the one readers see for it in the wider type; a value already of the column's
 * type is returned as it is.
 */
public final class WidenedValues {
    private static final long MICROS_PER_DAY = 86_400_000_000L;

    private WidenedValues() {}

    /**
     * {@code result} (decoded from a job's state) with its partition values in the types of the
     * table's partition columns now; its deleted keys and file statistics are conformed where they
     * are read ({@link io.deltalite.flink.internal.merge.rewrite.ChangedKeyChunks}, {@link
     * io.deltalite.flink.internal.merge.probe.StatisticsPruner}).
     */
    public static PartitionWriteResult conformPartition(
            PartitionWriteResult result, TableSchema schema) {
        PartitionValues partition = conform(result.partition(), schema.partitionTypes());
        return partition == result.partition() ? result : result.withPartition(partition);
    }

    /** {@code partition} with each value in the Java type of its column, {@code types}. */
    public static PartitionValues conform(PartitionValues partition, List<ValueType> types) {
        List<Object> values = partition.values();
        List<Object> conformed = null;
        for (int i = 0; i < values.size() && i < types.size(); i++) {
            Object value = conform(values.get(i), types.get(i));
            if (value != values.get(i)) {
                if (conformed == null) {
                    conformed = new java.util.ArrayList<>(values);
                }
                conformed.set(i, value);
            }
        }
        return conformed == null ? partition : new PartitionValues(conformed);
    }

    /** {@code key} with each component in the Java type of its column, {@code types}. */
    public static RowKey conform(RowKey key, List<ValueType> types) {
        Object[] values = null;
        for (int i = 0; i < key.size(); i++) {
            Object value = key.get(i);
            Object conformed = conform(value, types.get(i));
            if (conformed != value) {
                if (values == null) {
                    values = key.values().toArray();
                }
                values[i] = conformed;
            }
        }
        return values == null ? key : RowKey.adopt(values);
    }

    /**
     * {@code value} (non-null, of a type that {@code type} may have been widened from) in the Java
     * type of {@code type}.
     */
    public static Object conform(Object value, ValueType type) {
        if (value == null) {
            return null;
        }
        if (type instanceof ValueType.Decimal decimal) {
            if (value instanceof BigDecimal number) {
                // Widening only adds scale; a statistics bound of another scale compares as it is.
                return number.scale() < decimal.scale() ? number.setScale(decimal.scale()) : number;
            }
            return isIntegral(value)
                    ? BigDecimal.valueOf(((Number) value).longValue()).setScale(decimal.scale())
                    : value;
        }
        if (!(type instanceof ValueType.Primitive primitive)) {
            return value;
        }
        return switch (primitive.kind()) {
            case SMALLINT -> value instanceof Byte b ? (Object) (short) b : value;
            case INT ->
                    value instanceof Byte || value instanceof Short
                            ? (Object) ((Number) value).intValue()
                            : value;
            case BIGINT ->
                    isIntegral(value) && !(value instanceof Long)
                            ? (Object) ((Number) value).longValue()
                            : value;
            case DOUBLE ->
                    value instanceof Float || isIntegral(value)
                            ? (Object) ((Number) value).doubleValue()
                            : value;
            // A date widened to a timestamp without time zone: its midnight.
            case TIMESTAMP_NTZ ->
                    value instanceof Integer days ? (Object) (days * MICROS_PER_DAY) : value;
            default -> value;
        };
    }

    private static boolean isIntegral(Object value) {
        return value instanceof Byte
                || value instanceof Short
                || value instanceof Integer
                || value instanceof Long;
    }
}
