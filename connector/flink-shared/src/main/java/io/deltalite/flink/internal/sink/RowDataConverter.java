package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.merge.schema.InputProjection;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Turns Flink's internal {@link RowData} into the engine's rows: values in the engine's Java
 * representation, columns in table order (via an {@link InputProjection}).
 */
final class RowDataConverter implements Serializable {
    private static final long serialVersionUID = 1L;

    private final ValueReader[] readers;
    private final InputProjection projection;

    RowDataConverter(RowType inputType, InputProjection projection) {
        this.readers = readersOf(inputType);
        this.projection = projection;
    }

    /** The table row an insert or update writes (the table's defaults filled in). */
    Object[] toTableRow(RowData row) {
        return projection.project(readRow(readers, row));
    }

    /** The table row a delete names ({@link InputProjection#projectDelete}). */
    Object[] toDeletedRow(RowData row) {
        return projection.projectDelete(readRow(readers, row));
    }

    /** Reads one field of a row, or one element of an array, as an engine value. */
    @FunctionalInterface
    interface ValueReader extends Serializable {
        Object read(Object flinkValue);
    }

    private static ValueReader[] readersOf(RowType type) {
        List<RowType.RowField> fields = type.getFields();
        ValueReader[] readers = new ValueReader[fields.size()];
        for (int i = 0; i < readers.length; i++) {
            LogicalType fieldType = fields.get(i).getType();
            RowData.FieldGetter getter = RowData.createFieldGetter(fieldType, i);
            ValueReader value = valueReader(fieldType);
            readers[i] =
                    row -> {
                        Object field = getter.getFieldOrNull((RowData) row);
                        return field == null ? null : value.read(field);
                    };
        }
        return readers;
    }

    private static Object[] readRow(ValueReader[] readers, RowData row) {
        Object[] values = new Object[readers.length];
        for (int i = 0; i < readers.length; i++) {
            values[i] = readers[i].read(row);
        }
        return values;
    }

    static ValueReader valueReader(LogicalType type) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return value -> ((StringData) value).toString();
            case DECIMAL:
                return value -> ((DecimalData) value).toBigDecimal();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return value -> {
                    TimestampData timestamp = (TimestampData) value;
                    return Math.addExact(
                            Math.multiplyExact(timestamp.getMillisecond(), 1000L),
                            timestamp.getNanoOfMillisecond() / 1000);
                };
            case ROW:
                ValueReader[] fields = readersOf((RowType) type);
                return value -> readRow(fields, (RowData) value);
            case ARRAY:
                LogicalType elementType = ((ArrayType) type).getElementType();
                return arrayReader(elementType);
            case MAP:
                MapType map = (MapType) type;
                ValueReader keys = arrayReader(map.getKeyType());
                ValueReader values = arrayReader(map.getValueType());
                return value -> {
                    MapData data = (MapData) value;
                    List<?> keyList = (List<?>) keys.read(data.keyArray());
                    List<?> valueList = (List<?>) values.read(data.valueArray());
                    Map<Object, Object> entries = new LinkedHashMap<>();
                    for (int i = 0; i < keyList.size(); i++) {
                        entries.put(keyList.get(i), valueList.get(i));
                    }
                    return entries;
                };
            default:
                // Booleans, integers, floating point, dates (int days) and binary are already in
                // the engine's representation.
                return value -> value;
        }
    }

    private static ValueReader arrayReader(LogicalType elementType) {
        ArrayData.ElementGetter getter = ArrayData.createElementGetter(elementType);
        ValueReader element = valueReader(elementType);
        return value -> {
            ArrayData array = (ArrayData) value;
            List<Object> list = new java.util.ArrayList<>(array.size());
            for (int i = 0; i < array.size(); i++) {
                Object item = getter.getElementOrNull(array, i);
                list.add(item == null ? null : element.read(item));
            }
            return list;
        };
    }
}
