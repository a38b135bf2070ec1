package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.MapValue;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads values out of Kernel column vectors into the engine's Java representation. */
public final class ColumnValues {
    private ColumnValues() {}

    /** The value at {@code row}, or null. */
    public static Object read(ColumnVector vector, int row, ValueType type) {
        if (vector.isNullAt(row)) {
            return null;
        }
        if (type instanceof ValueType.Decimal decimal) {
            BigDecimal value = vector.getDecimal(row);
            return value.scale() == decimal.scale()
                    ? value
                    : value.setScale(decimal.scale(), RoundingMode.UNNECESSARY);
        }
        if (type instanceof ValueType.Struct struct) {
            List<ValueType.Field> fields = struct.fields();
            Object[] values = new Object[fields.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = read(vector.getChild(i), row, fields.get(i).type());
            }
            return values;
        }
        if (type instanceof ValueType.Array array) {
            ArrayValue value = vector.getArray(row);
            ColumnVector elements = value.getElements();
            List<Object> list = new ArrayList<>(value.getSize());
            for (int i = 0; i < value.getSize(); i++) {
                list.add(read(elements, i, array.elementType()));
            }
            return list;
        }
        if (type instanceof ValueType.Map map) {
            MapValue value = vector.getMap(row);
            ColumnVector keys = value.getKeys();
            ColumnVector values = value.getValues();
            Map<Object, Object> entries = new LinkedHashMap<>();
            for (int i = 0; i < value.getSize(); i++) {
                entries.put(read(keys, i, map.keyType()), read(values, i, map.valueType()));
            }
            return entries;
        }
        return switch (((ValueType.Primitive) type).kind()) {
            case BOOLEAN -> vector.getBoolean(row);
            case TINYINT -> vector.getByte(row);
            case SMALLINT -> vector.getShort(row);
            case INT, DATE -> vector.getInt(row);
            case BIGINT, TIMESTAMP, TIMESTAMP_NTZ -> vector.getLong(row);
            case FLOAT -> vector.getFloat(row);
            case DOUBLE -> vector.getDouble(row);
            case STRING -> vector.getString(row);
            case BINARY -> vector.getBinary(row);
        };
    }
}
