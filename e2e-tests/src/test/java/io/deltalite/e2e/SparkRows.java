package io.deltalite.e2e;

import io.deltalite.flink.internal.merge.schema.ValueType;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Rows between deltalite's engine values (described in {@link ValueType}) and Spark's external
 * values, so that what Spark reads can be compared with what deltalite wrote, and changes given to
 * deltalite can be given to Spark.
 */
public final class SparkRows {
    private SparkRows() {}

    /** Every row of the latest version of the Delta table at {@code path}, as engine values. */
    public static List<Object[]> readTable(String path) {
        return collect(SparkDelta.session().read().format("delta").load(path));
    }

    /** Every row of version {@code version}, read by time travel ({@code VERSION AS OF}). */
    public static List<Object[]> readVersion(String path, long version) {
        return collect(
                SparkDelta.session()
                        .sql("SELECT * FROM delta.`" + path + "` VERSION AS OF " + version));
    }

    /** The rows of {@code data} as engine values, in its column order. */
    public static List<Object[]> collect(Dataset<Row> data) {
        StructType schema = data.schema();
        List<Object[]> rows = new ArrayList<>();
        for (Row row : data.collectAsList()) {
            rows.add(fromSpark(row, schema));
        }
        return rows;
    }

    /** The Spark schema of a table with these columns. */
    public static StructType schema(List<ValueType.Field> fields) {
        StructType struct = new StructType();
        for (ValueType.Field field : fields) {
            struct = struct.add(field.name(), dataType(field.type()), field.nullable());
        }
        return struct;
    }

    /** A row of engine values as a Spark row of external values. */
    public static Row toSpark(List<ValueType.Field> fields, Object[] values) {
        Object[] converted = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            converted[i] = toSpark(fields.get(i).type(), values[i]);
        }
        return RowFactory.create(converted);
    }

    private static DataType dataType(ValueType type) {
        if (type instanceof ValueType.Decimal decimal) {
            return DataTypes.createDecimalType(decimal.precision(), decimal.scale());
        }
        if (type instanceof ValueType.Struct struct) {
            return schema(struct.fields());
        }
        if (type instanceof ValueType.Array array) {
            return DataTypes.createArrayType(dataType(array.elementType()), array.containsNull());
        }
        if (type instanceof ValueType.Map map) {
            return DataTypes.createMapType(
                    dataType(map.keyType()), dataType(map.valueType()), map.valueContainsNull());
        }
        return switch (((ValueType.Primitive) type).kind()) {
            case BOOLEAN -> DataTypes.BooleanType;
            case TINYINT -> DataTypes.ByteType;
            case SMALLINT -> DataTypes.ShortType;
            case INT -> DataTypes.IntegerType;
            case BIGINT -> DataTypes.LongType;
            case FLOAT -> DataTypes.FloatType;
            case DOUBLE -> DataTypes.DoubleType;
            case STRING -> DataTypes.StringType;
            case BINARY -> DataTypes.BinaryType;
            case DATE -> DataTypes.DateType;
            case TIMESTAMP -> DataTypes.TimestampType;
            case TIMESTAMP_NTZ -> DataTypes.TimestampNTZType;
        };
    }

    private static Object toSpark(ValueType type, Object value) {
        if (value == null) {
            return null;
        }
        if (type instanceof ValueType.Struct struct) {
            return toSpark(struct.fields(), (Object[]) value);
        }
        if (type instanceof ValueType.Array array) {
            List<Object> elements = new ArrayList<>();
            for (Object element : (List<?>) value) {
                elements.add(toSpark(array.elementType(), element));
            }
            return elements;
        }
        if (type instanceof ValueType.Map map) {
            Map<Object, Object> entries = new LinkedHashMap<>();
            ((Map<?, ?>) value)
                    .forEach(
                            (k, v) ->
                                    entries.put(
                                            toSpark(map.keyType(), k),
                                            toSpark(map.valueType(), v)));
            return entries;
        }
        if (type instanceof ValueType.Primitive primitive) {
            return switch (primitive.kind()) {
                case DATE -> LocalDate.ofEpochDay((Integer) value);
                case TIMESTAMP -> Instant.EPOCH.plus((Long) value, ChronoUnit.MICROS);
                case TIMESTAMP_NTZ ->
                        LocalDateTime.ofInstant(
                                Instant.EPOCH.plus((Long) value, ChronoUnit.MICROS),
                                ZoneOffset.UTC);
                default -> value;
            };
        }
        return value;
    }

    private static Object[] fromSpark(Row row, StructType schema) {
        StructField[] fields = schema.fields();
        Object[] values = new Object[fields.length];
        for (int i = 0; i < fields.length; i++) {
            values[i] = fromSpark(fields[i].dataType(), row.get(i));
        }
        return values;
    }

    private static Object fromSpark(DataType type, Object value) {
        if (value == null) {
            return null;
        }
        if (type instanceof StructType struct) {
            return fromSpark((Row) value, struct);
        }
        if (type instanceof ArrayType array) {
            List<Object> elements = new ArrayList<>();
            for (Object element :
                    CollectionConverters.asJava((scala.collection.Iterable<?>) value)) {
                elements.add(fromSpark(array.elementType(), element));
            }
            return elements;
        }
        if (type instanceof MapType map) {
            Map<Object, Object> entries = new LinkedHashMap<>();
            CollectionConverters.asJava((scala.collection.Map<?, ?>) value)
                    .forEach(
                            (k, v) ->
                                    entries.put(
                                            fromSpark(map.keyType(), k),
                                            fromSpark(map.valueType(), v)));
            return entries;
        }
        if (value instanceof java.sql.Date date) {
            return (int) date.toLocalDate().toEpochDay();
        }
        if (value instanceof LocalDate date) {
            return (int) date.toEpochDay();
        }
        if (value instanceof Timestamp timestamp) {
            return micros(timestamp.toInstant());
        }
        if (value instanceof Instant instant) {
            return micros(instant);
        }
        if (value instanceof LocalDateTime dateTime) {
            return micros(dateTime.toInstant(ZoneOffset.UTC));
        }
        return value;
    }

    private static long micros(Instant instant) {
        return Math.addExact(
                Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
    }
}
