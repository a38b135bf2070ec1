package io.deltalite.flink.internal.warmup;

import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rows of a table's schema made up from a key number, for the warm-up's throwaway table: the
 * primary-key columns follow the key number (so a key is the same row's key in every version), the
 * partition columns take one of {@value #PARTITIONS} values per key, and the other columns change
 * with the version. Every value is non-null and of the engine's representation of its type ({@link
 * ValueType}).
 */
final class SyntheticRows {
    static final int PARTITIONS = 4;

    private static final long MICROS_2024 = 1_704_067_200_000_000L;
    private static final int DAYS_2024 = 19_723;

    private final TableSchema schema;
    private final boolean[] keyColumns;
    private final boolean[] partitionColumns;

    SyntheticRows(TableSchema schema) {
        this.schema = schema;
        int columns = schema.columns().size();
        this.keyColumns = new boolean[columns];
        this.partitionColumns = new boolean[columns];
        for (String key : schema.primaryKey()) {
            keyColumns[schema.indexOf(key)] = true;
        }
        for (String partition : schema.partitionColumns()) {
            partitionColumns[schema.indexOf(partition)] = true;
        }
    }

    /** The row of key number {@code key} in its {@code version}. */
    Object[] row(long key, int version) {
        List<ValueType.Field> columns = schema.columns();
        Object[] row = new Object[columns.size()];
        for (int i = 0; i < row.length; i++) {
            ValueType type = columns.get(i).type();
            if (partitionColumns[i]) {
                row[i] = value(type, Math.floorMod(key, PARTITIONS));
            } else if (keyColumns[i]) {
                row[i] = value(type, key);
            } else {
                row[i] = value(type, key * 31 + version * 7L + i);
            }
        }
        return row;
    }

    /** A value of {@code type} that follows {@code seed}. */
    static Object value(ValueType type, long seed) {
        if (type instanceof ValueType.Primitive primitive) {
            return primitive(primitive.kind(), seed);
        }
        if (type instanceof ValueType.Decimal decimal) {
            long bound = pow10(Math.min(decimal.precision(), 18));
            return BigDecimal.valueOf(Math.floorMod(seed, bound), decimal.scale());
        }
        if (type instanceof ValueType.Struct struct) {
            Object[] fields = new Object[struct.fields().size()];
            for (int i = 0; i < fields.length; i++) {
                fields[i] = value(struct.fields().get(i).type(), seed + i);
            }
            return fields;
        }
        if (type instanceof ValueType.Array array) {
            List<Object> elements = new ArrayList<>(2);
            elements.add(value(array.elementType(), seed));
            elements.add(value(array.elementType(), seed + 1));
            return elements;
        }
        ValueType.Map map = (ValueType.Map) type;
        Map<Object, Object> entries = new LinkedHashMap<>();
        entries.put(value(map.keyType(), seed), value(map.valueType(), seed));
        return entries;
    }

    private static Object primitive(ValueType.Kind kind, long seed) {
        return switch (kind) {
            case BOOLEAN -> (seed & 1) == 0;
            case TINYINT -> (byte) seed;
            case SMALLINT -> (short) seed;
            case INT -> (int) seed;
            case BIGINT -> seed;
            case FLOAT -> (float) (seed * 0.25);
            case DOUBLE -> seed * 0.25;
            case STRING -> "warm-up-" + seed;
            case BINARY -> ByteBuffer.allocate(Long.BYTES).putLong(seed).array();
            case DATE -> DAYS_2024 + (int) Math.floorMod(seed, 20_000L);
            case TIMESTAMP, TIMESTAMP_NTZ -> MICROS_2024 + Math.floorMod(seed, 1L << 40) * 1_000;
        };
    }

    private static long pow10(int exponent) {
        long value = 1;
        for (int i = 0; i < exponent; i++) {
            value *= 10;
        }
        return value;
    }
}
