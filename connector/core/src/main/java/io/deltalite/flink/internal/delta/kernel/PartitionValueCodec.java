package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.expressions.Literal;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts partition values between the engine's typed form, Kernel literals (to write) and the
 * strings of the Delta log (to read), following the protocol's partition value serialization. An
 * empty string and null are the same partition value in Delta: both read back as null.
 */
public final class PartitionValueCodec {
    /** {@code 1970-01-01 00:00:00[.ffffff]}, as Spark writes timestamps without a zone. */
    private static final DateTimeFormatter SPACE_SEPARATED =
            new DateTimeFormatterBuilder()
                    .appendPattern("yyyy-MM-dd HH:mm:ss")
                    .optionalStart()
                    .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
                    .optionalEnd()
                    .toFormatter();

    private final TableSchema schema;
    private final List<String> columns;
    private final List<String> logNames;

    /** The codec of a table whose log names its partition columns as the table does. */
    public PartitionValueCodec(TableSchema schema) {
        this(schema, schema.partitionColumns());
    }

    /**
     * @param logNames the names under which the log's {@code partitionValues} hold each partition
     *     column, in order: their physical names in a table with column mapping ({@link
     *     PhysicalNames})
     */
    public PartitionValueCodec(TableSchema schema, List<String> logNames) {
        this.schema = schema;
        this.columns = schema.partitionColumns();
        this.logNames = List.copyOf(logNames);
    }

    public Map<String, Literal> toLiterals(PartitionValues partition) {
        Map<String, Literal> literals = new HashMap<>();
        for (int i = 0; i < columns.size(); i++) {
            ValueType type = schema.column(columns.get(i)).type();
            literals.put(columns.get(i), toLiteral(type, partition.values().get(i)));
        }
        return literals;
    }

    private static Literal toLiteral(ValueType type, Object value) {
        if (value == null || "".equals(value)) {
            return Literal.ofNull(KernelSchemas.toKernel(type));
        }
        if (type instanceof ValueType.Decimal decimal) {
            return Literal.ofDecimal((BigDecimal) value, decimal.precision(), decimal.scale());
        }
        return switch (((ValueType.Primitive) type).kind()) {
            case BOOLEAN -> Literal.ofBoolean((Boolean) value);
            case TINYINT -> Literal.ofByte((Byte) value);
            case SMALLINT -> Literal.ofShort((Short) value);
            case INT -> Literal.ofInt((Integer) value);
            case BIGINT -> Literal.ofLong((Long) value);
            case FLOAT -> Literal.ofFloat((Float) value);
            case DOUBLE -> Literal.ofDouble((Double) value);
            case STRING -> Literal.ofString((String) value);
            case DATE -> Literal.ofDate((Integer) value);
            case TIMESTAMP -> Literal.ofTimestamp((Long) value);
            case TIMESTAMP_NTZ -> Literal.ofTimestampNtz((Long) value);
            case BINARY -> throw new IllegalArgumentException("binary partition values");
        };
    }

    /**
     * The partition of a file, from the {@code partitionValues} map of its add action (keyed by the
     * columns' names in the log).
     */
    public PartitionValues fromLog(Map<String, String> serialized) {
        if (columns.isEmpty()) {
            return PartitionValues.UNPARTITIONED;
        }
        List<Object> values = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            String text = serialized.get(logNames.get(i));
            values.add(
                    text == null || text.isEmpty()
                            ? null
                            : parse(schema.column(columns.get(i)).type(), text));
        }
        return new PartitionValues(values);
    }

    private static Object parse(ValueType type, String text) {
        if (type instanceof ValueType.Decimal decimal) {
            return new BigDecimal(text).setScale(decimal.scale());
        }
        return switch (((ValueType.Primitive) type).kind()) {
            case BOOLEAN -> Boolean.parseBoolean(text);
            case TINYINT -> Byte.parseByte(text);
            case SMALLINT -> Short.parseShort(text);
            case INT -> Integer.parseInt(text);
            case BIGINT -> Long.parseLong(text);
            case FLOAT -> Float.parseFloat(text);
            case DOUBLE -> Double.parseDouble(text);
            case STRING -> text;
            case DATE -> (int) LocalDate.parse(text).toEpochDay();
            case TIMESTAMP, TIMESTAMP_NTZ -> parseTimestamp(text);
            case BINARY -> throw new IllegalArgumentException("binary partition values");
        };
    }

    /**
     * Timestamps appear as {@code 2024-01-01 10:00:00.123456} (Spark, in UTC for TIMESTAMP) or as
     * ISO-8601 instants such as {@code 2024-01-01T10:00:00.123456Z} (Kernel); both are read as UTC.
     */
    private static long parseTimestamp(String text) {
        Instant instant;
        if (text.endsWith("Z")) {
            instant = Instant.parse(text);
        } else if (text.indexOf('T') > 0) {
            instant = LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
        } else {
            instant = LocalDateTime.parse(text, SPACE_SEPARATED).toInstant(ZoneOffset.UTC);
        }
        // Not ChronoUnit.MICROS.between, which counts in nanoseconds and overflows for instants
        // more than 292 years from the epoch (years before 1678 or after 2261).
        return Math.addExact(
                Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
    }
}
