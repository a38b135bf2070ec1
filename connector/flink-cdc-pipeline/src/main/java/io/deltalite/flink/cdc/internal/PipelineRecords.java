package io.deltalite.flink.cdc.internal;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.cdc.common.data.ArrayData;
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
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;

/**
 * The pipeline's records as Flink's {@link RowData} of {@link PipelineSchemas#rowType}, which the
 * sink's writers take: each value in the internal class Flink's type has, converted from Flink
 * CDC's own (strings, decimals, dates, timestamps; nested rows, arrays and maps value by value).
 * The types a Delta table cannot hold (TIME, TIMESTAMP WITH TIME ZONE) never get here: the table
 * the metadata applier would create for them is refused, naming the column.
 */
final class PipelineRecords implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Reads one field of a record (or of an array or map) as Flink's internal value. */
    @FunctionalInterface
    private interface Reader extends Serializable {
        Object read(Object container, int position);
    }

    private final Reader[] fields;

    private PipelineRecords(Reader[] fields) {
        this.fields = fields;
    }

    /** The converter of records of {@code schema}. */
    static PipelineRecords of(Schema schema) {
        List<DataType> types = schema.getColumnDataTypes();
        Reader[] fields = new Reader[types.size()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = reader(types.get(i), schema.getColumnNames().get(i));
        }
        return new PipelineRecords(fields);
    }

    /** {@code record} as a row of {@code kind}. */
    GenericRowData toRow(RecordData record, RowKind kind) {
        if (record.getArity() != fields.length) {
            throw new IllegalArgumentException(
                    "a record of "
                            + record.getArity()
                            + " fields does not have its table's "
                            + fields.length
                            + " columns");
        }
        GenericRowData row = new GenericRowData(kind, fields.length);
        for (int i = 0; i < fields.length; i++) {
            row.setField(i, fields[i].read(record, i));
        }
        return row;
    }

    private static Reader reader(DataType type, String column) {
        Reader value = valueReader(type, column);
        return (container, position) ->
                isNull(container, position) ? null : value.read(container, position);
    }

    private static boolean isNull(Object container, int position) {
        if (container instanceof RecordData record) {
            return record.isNullAt(position);
        }
        return ((ArrayData) container).isNullAt(position);
    }

    private static Reader valueReader(DataType type, String column) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return (c, i) ->
                        c instanceof RecordData r ? r.getBoolean(i) : ((ArrayData) c).getBoolean(i);
            case TINYINT:
                return (c, i) ->
                        c instanceof RecordData r ? r.getByte(i) : ((ArrayData) c).getByte(i);
            case SMALLINT:
                return (c, i) ->
                        c instanceof RecordData r ? r.getShort(i) : ((ArrayData) c).getShort(i);
            case INTEGER:
                return (c, i) ->
                        c instanceof RecordData r ? r.getInt(i) : ((ArrayData) c).getInt(i);
            case BIGINT:
                return (c, i) ->
                        c instanceof RecordData r ? r.getLong(i) : ((ArrayData) c).getLong(i);
            case FLOAT:
                return (c, i) ->
                        c instanceof RecordData r ? r.getFloat(i) : ((ArrayData) c).getFloat(i);
            case DOUBLE:
                return (c, i) ->
                        c instanceof RecordData r ? r.getDouble(i) : ((ArrayData) c).getDouble(i);
            case CHAR:
            case VARCHAR:
                return (c, i) ->
                        StringData.fromBytes(
                                (c instanceof RecordData r
                                                ? r.getString(i)
                                                : ((ArrayData) c).getString(i))
                                        .toBytes());
            case BINARY:
            case VARBINARY:
                return (c, i) ->
                        c instanceof RecordData r ? r.getBinary(i) : ((ArrayData) c).getBinary(i);
            case DECIMAL:
                int precision = ((DecimalType) type).getPrecision();
                int scale = ((DecimalType) type).getScale();
                return (c, i) ->
                        DecimalData.fromBigDecimal(
                                (c instanceof RecordData r
                                                ? r.getDecimal(i, precision, scale)
                                                : ((ArrayData) c).getDecimal(i, precision, scale))
                                        .toBigDecimal(),
                                precision,
                                scale);
            case DATE:
                // Flink CDC 3.5 keeps a date in an array as its epoch day.
                return (c, i) ->
                        c instanceof RecordData r
                                ? r.getDate(i).toEpochDay()
                                : ((ArrayData) c).getInt(i);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                int timestampPrecision =
                        ((org.apache.flink.cdc.common.types.TimestampType) type).getPrecision();
                return (c, i) -> {
                    org.apache.flink.cdc.common.data.TimestampData timestamp =
                            c instanceof RecordData r
                                    ? r.getTimestamp(i, timestampPrecision)
                                    : ((ArrayData) c).getTimestamp(i, timestampPrecision);
                    return TimestampData.fromEpochMillis(
                            timestamp.getMillisecond(), timestamp.getNanoOfMillisecond());
                };
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                int instantPrecision =
                        ((org.apache.flink.cdc.common.types.LocalZonedTimestampType) type)
                                .getPrecision();
                return (c, i) -> {
                    org.apache.flink.cdc.common.data.LocalZonedTimestampData instant =
                            c instanceof RecordData r
                                    ? r.getLocalZonedTimestampData(i, instantPrecision)
                                    : ((ArrayData) c).getLocalZonedTimestamp(i, instantPrecision);
                    return TimestampData.fromEpochMillis(
                            instant.getEpochMillisecond(), instant.getEpochNanoOfMillisecond());
                };
            case ROW:
                RowType rowType = (RowType) type;
                int arity = rowType.getFieldCount();
                Reader[] nested = new Reader[arity];
                for (int f = 0; f < arity; f++) {
                    nested[f] =
                            reader(
                                    rowType.getTypeAt(f),
                                    column + "." + rowType.getFieldNames().get(f));
                }
                PipelineRecords inner = new PipelineRecords(nested);
                return (c, i) ->
                        inner.toRow(
                                c instanceof RecordData r
                                        ? r.getRow(i, arity)
                                        : ((ArrayData) c).getRecord(i, arity),
                                RowKind.INSERT);
            case ARRAY:
                Reader element = reader(((ArrayType) type).getElementType(), column);
                return (c, i) ->
                        new GenericArrayData(
                                elements(
                                        c instanceof RecordData r
                                                ? r.getArray(i)
                                                : ((ArrayData) c).getArray(i),
                                        element));
            case MAP:
                Reader key = reader(((MapType) type).getKeyType(), column);
                Reader value = reader(((MapType) type).getValueType(), column);
                return (c, i) -> {
                    MapData map =
                            c instanceof RecordData r ? r.getMap(i) : ((ArrayData) c).getMap(i);
                    Object[] keys = elements(map.keyArray(), key);
                    Object[] values = elements(map.valueArray(), value);
                    Map<Object, Object> entries = new HashMap<>();
                    for (int e = 0; e < keys.length; e++) {
                        entries.put(keys[e], values[e]);
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

    private static Object[] elements(ArrayData array, Reader element) {
        Object[] values = new Object[array.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = element.read(array, i);
        }
        return values;
    }
}
