package io.deltalite.flink.cdc.internal;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.cdc.common.data.ArrayData;
import org.apache.flink.cdc.common.data.DateData;
import org.apache.flink.cdc.common.data.LocalZonedTimestampData;
import org.apache.flink.cdc.common.data.MapData;
import org.apache.flink.cdc.common.data.RecordData;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.types.ArrayType;
import org.apache.flink.cdc.common.types.DataType;
import org.apache.flink.cdc.common.types.DecimalType;
import org.apache.flink.cdc.common.types.MapType;
import org.apache.flink.cdc.common.types.RowType;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;

/**
 * The pipeline's records as Flink's {@link org.apache.flink.table.data.RowData} of {@link
 * PipelineSchemas#rowType}, which the sink's writers take: each field read by Flink CDC's own
 * getter, then its value converted from Flink CDC's class into the internal class of Flink's type
 * (strings, decimals, dates, timestamps; nested rows, arrays and maps element by element). The
 * types a Delta table cannot hold (TIME, TIMESTAMP WITH TIME ZONE) never get here: the table the
 * metadata applier would create for them is refused, naming the column.
 */
final class PipelineRecords implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Converts one non-null value of Flink CDC's class into Flink's. */
    @FunctionalInterface
    private interface Conversion extends Serializable {
        Object convert(Object value);
    }

    private final RecordData.FieldGetter[] fields;
    private final Conversion[] conversions;

    private PipelineRecords(List<DataType> types, List<String> names) {
        this.fields = new RecordData.FieldGetter[types.size()];
        this.conversions = new Conversion[types.size()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = RecordData.createFieldGetter(types.get(i), i);
            conversions[i] = conversion(types.get(i), names.get(i));
        }
    }

    /** The converter of records of {@code schema}. */
    static PipelineRecords of(Schema schema) {
        return new PipelineRecords(schema.getColumnDataTypes(), schema.getColumnNames());
    }

    /** {@code record} as a row of {@code kind}. */
    GenericRowData toRow(RecordData record, RowKind kind) {
        checkArity(record);
        GenericRowData row = new GenericRowData(kind, fields.length);
        for (int i = 0; i < fields.length; i++) {
            Object value = fields[i].getFieldOrNull(record);
            row.setField(i, value == null ? null : conversions[i].convert(value));
        }
        return row;
    }

    /**
     * {@code record} as a row with only the fields at {@code columns} converted, the others null:
     * for routing by key, which reads nothing else.
     */
    GenericRowData toRowOf(RecordData record, int[] columns) {
        checkArity(record);
        GenericRowData row = new GenericRowData(RowKind.INSERT, fields.length);
        for (int i : columns) {
            Object value = fields[i].getFieldOrNull(record);
            row.setField(i, value == null ? null : conversions[i].convert(value));
        }
        return row;
    }

    private void checkArity(RecordData record) {
        if (record.getArity() != fields.length) {
            throw new IllegalArgumentException(
                    "a record of "
                            + record.getArity()
                            + " fields does not have its table's "
                            + fields.length
                            + " columns");
        }
    }

    private static Conversion conversion(DataType type, String column) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
            case BINARY:
            case VARBINARY:
                return value -> value;
            case CHAR:
            case VARCHAR:
                return value ->
                        StringData.fromBytes(
                                ((org.apache.flink.cdc.common.data.StringData) value).toBytes());
            case DECIMAL:
                int precision = ((DecimalType) type).getPrecision();
                int scale = ((DecimalType) type).getScale();
                return value ->
                        DecimalData.fromBigDecimal(
                                ((org.apache.flink.cdc.common.data.DecimalData) value)
                                        .toBigDecimal(),
                                precision,
                                scale);
            case DATE:
                // Flink CDC 3.5 reads a record's date as DateData, an array's as its epoch day.
                return value -> value instanceof DateData date ? date.toEpochDay() : value;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return value -> {
                    org.apache.flink.cdc.common.data.TimestampData timestamp =
                            (org.apache.flink.cdc.common.data.TimestampData) value;
                    return TimestampData.fromEpochMillis(
                            timestamp.getMillisecond(), timestamp.getNanoOfMillisecond());
                };
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return value -> {
                    LocalZonedTimestampData instant = (LocalZonedTimestampData) value;
                    return TimestampData.fromEpochMillis(
                            instant.getEpochMillisecond(), instant.getEpochNanoOfMillisecond());
                };
            case ROW:
                RowType row = (RowType) type;
                PipelineRecords nested =
                        new PipelineRecords(row.getFieldTypes(), prefixed(column, row));
                return value -> nested.toRow((RecordData) value, RowKind.INSERT);
            case ARRAY:
                Elements elements = new Elements(((ArrayType) type).getElementType(), column);
                return value -> new GenericArrayData(elements.of((ArrayData) value));
            case MAP:
                Elements keys = new Elements(((MapType) type).getKeyType(), column);
                Elements values = new Elements(((MapType) type).getValueType(), column);
                return value -> {
                    MapData map = (MapData) value;
                    Object[] keyArray = keys.of(map.keyArray());
                    Object[] valueArray = values.of(map.valueArray());
                    Map<Object, Object> entries = new HashMap<>();
                    for (int i = 0; i < keyArray.length; i++) {
                        entries.put(keyArray[i], valueArray[i]);
                    }
                    return new GenericMapData(entries);
                };
            default:
                throw new IllegalArgumentException(
                        "Column '"
                                + column
                                + "' has type "
                                + type
                                + ", which deltalite cannot write to a Delta table. Cast it in a"
                                + " transform of the pipeline (for example TIME to STRING).");
        }
    }

    private static List<String> prefixed(String column, RowType row) {
        return row.getFieldNames().stream().map(name -> column + "." + name).toList();
    }

    /** The elements of arrays of one type, converted. */
    private static final class Elements implements Serializable {
        private static final long serialVersionUID = 1L;
        private final ArrayData.ElementGetter getter;
        private final Conversion conversion;

        Elements(DataType type, String column) {
            this.getter = ArrayData.createElementGetter(type);
            this.conversion = conversion(type, column);
        }

        Object[] of(ArrayData array) {
            Object[] values = new Object[array.size()];
            for (int i = 0; i < values.length; i++) {
                Object value = getter.getElementOrNull(array, i);
                values[i] = value == null ? null : conversion.convert(value);
            }
            return values;
        }
    }
}
