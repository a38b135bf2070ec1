package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.types.DataType;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * A Kernel column vector over values in the engine's Java representation (see {@link ValueType}),
 * so that rows held in memory can be written by Kernel's Parquet writer.
 */
final class ObjectColumnVector implements ColumnVector {
    private final ValueType type;
    private final DataType kernelType;
    private final Object[] values;
    private ColumnVector[] children;

    ObjectColumnVector(ValueType type, Object[] values) {
        this.type = type;
        this.kernelType = KernelSchemas.toKernel(type);
        this.values = values;
    }

    @Override
    public DataType getDataType() {
        return kernelType;
    }

    @Override
    public int getSize() {
        return values.length;
    }

    @Override
    public void close() {}

    @Override
    public boolean isNullAt(int rowId) {
        return values[rowId] == null;
    }

    @Override
    public boolean getBoolean(int rowId) {
        return (Boolean) values[rowId];
    }

    @Override
    public byte getByte(int rowId) {
        return (Byte) values[rowId];
    }

    @Override
    public short getShort(int rowId) {
        return (Short) values[rowId];
    }

    @Override
    public int getInt(int rowId) {
        return (Integer) values[rowId];
    }

    @Override
    public long getLong(int rowId) {
        return (Long) values[rowId];
    }

    @Override
    public float getFloat(int rowId) {
        return (Float) values[rowId];
    }

    @Override
    public double getDouble(int rowId) {
        return (Double) values[rowId];
    }

    @Override
    public byte[] getBinary(int rowId) {
        return (byte[]) values[rowId];
    }

    @Override
    public String getString(int rowId) {
        return (String) values[rowId];
    }

    @Override
    public BigDecimal getDecimal(int rowId) {
        return (BigDecimal) values[rowId];
    }

    @Override
    public ArrayValue getArray(int rowId) {
        List<?> list = (List<?>) values[rowId];
        ValueType elementType = ((ValueType.Array) type).elementType();
        ObjectColumnVector elements = new ObjectColumnVector(elementType, list.toArray());
        return new ArrayValue() {
            @Override
            public int getSize() {
                return list.size();
            }

            @Override
            public ColumnVector getElements() {
                return elements;
            }
        };
    }

    @Override
    public MapValue getMap(int rowId) {
        Map<?, ?> map = (Map<?, ?>) values[rowId];
        ValueType.Map mapType = (ValueType.Map) type;
        ObjectColumnVector keys = new ObjectColumnVector(mapType.keyType(), map.keySet().toArray());
        ObjectColumnVector mapValues =
                new ObjectColumnVector(mapType.valueType(), map.values().toArray());
        return new MapValue() {
            @Override
            public int getSize() {
                return map.size();
            }

            @Override
            public ColumnVector getKeys() {
                return keys;
            }

            @Override
            public ColumnVector getValues() {
                return mapValues;
            }
        };
    }

    @Override
    public ColumnVector getChild(int ordinal) {
        if (children == null) {
            List<ValueType.Field> fields = ((ValueType.Struct) type).fields();
            ColumnVector[] built = new ColumnVector[fields.size()];
            for (int field = 0; field < built.length; field++) {
                Object[] fieldValues = new Object[values.length];
                for (int row = 0; row < values.length; row++) {
                    Object struct = values[row];
                    fieldValues[row] = struct == null ? null : ((Object[]) struct)[field];
                }
                built[field] = new ObjectColumnVector(fields.get(field).type(), fieldValues);
            }
            children = built;
        }
        return children[ordinal];
    }
}
