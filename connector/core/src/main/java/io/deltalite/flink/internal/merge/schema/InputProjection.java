package io.deltalite.flink.internal.merge.schema;

import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Maps rows of the input schema onto the table's columns: columns are matched by name (case
 * insensitive, as in Delta), a table column the input lacks becomes its default on the table (a
 * literal Delta column default) or null, and values are widened where that loses nothing (for
 * example int to bigint, float to double, decimal(10,2) to decimal(12,4), a struct by its fields).
 * Anything else is refused up front with the column and both types named.
 */
public final class InputProjection implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int[] sources;
    private final Cast[] casts;

    /** Per table column the input lacks: the value its rows get (its default, or null). */
    private final Object[] defaults;

    private InputProjection(int[] sources, Cast[] casts, Object[] defaults) {
        this.sources = sources;
        this.casts = casts;
        this.defaults = defaults;
    }

    /** Plans the mapping of {@code input} columns onto {@code table}, or explains why not. */
    public static InputProjection plan(
            List<ValueType.Field> input, TableSchema table, String tableLocation) {
        return plan(input, table, Map.of(), tableLocation);
    }

    /**
     * As {@link #plan(List, TableSchema, String)}, with the values of the table's column defaults
     * for the columns the input lacks, by column name (a column without an entry gets null).
     */
    public static InputProjection plan(
            List<ValueType.Field> input,
            TableSchema table,
            Map<String, Object> columnDefaults,
            String tableLocation) {
        List<ValueType.Field> columns = table.columns();
        for (ValueType.Field field : input) {
            if (indexOf(columns, field.name()) < 0) {
                throw new DeltaLiteSchemaMismatchException(
                        "Column '"
                                + field.name()
                                + "' of the input is not a column of the Delta"
                                + " table at "
                                + tableLocation
                                + " "
                                + names(columns)
                                + ". Remove it from the input, add it to the table, or let the"
                                + " sink add it (schema-evolution = add-columns).");
            }
        }
        int[] sources = new int[columns.size()];
        Cast[] casts = new Cast[columns.size()];
        Object[] defaults = new Object[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            ValueType.Field column = columns.get(i);
            int source = indexOf(input, column.name());
            sources[i] = source;
            if (source < 0) {
                defaults[i] = columnDefaults.get(column.name());
                if ((!column.nullable() && defaults[i] == null)
                        || table.primaryKey().contains(column.name())) {
                    throw new DeltaLiteSchemaMismatchException(
                            "The input has no column '"
                                    + column.name()
                                    + "', which the Delta table"
                                    + " at "
                                    + tableLocation
                                    + " requires ("
                                    + (column.nullable()
                                            ? "it is a primary-key column"
                                            : "it is NOT NULL")
                                    + "). Add it to the input.");
                }
                continue;
            }
            ValueType.Field field = input.get(source);
            casts[i] = cast(field.type(), column.type());
            if (casts[i] == null && isZoneMismatch(field.type(), column.type())) {
                throw new DeltaLiteSchemaMismatchException(
                        "Column '"
                                + column.name()
                                + "' is "
                                + describeTimestamp(field.type())
                                + " in the input but "
                                + describeTimestamp(column.type())
                                + " in the Delta table at "
                                + tableLocation
                                + ". Converting one into the other needs a time zone, which the"
                                + " sink does not guess. Convert it in the job: in Flink SQL,"
                                + " CAST(col AS TIMESTAMP_LTZ(6)) reads a wall-clock time in the"
                                + " session time zone ('table.local-time-zone') and CAST(col AS"
                                + " TIMESTAMP(6)) writes an instant as wall-clock time in it.");
            }
            if (casts[i] == null) {
                throw new DeltaLiteSchemaMismatchException(
                        SchemaChange.typesDiffer(column, field, tableLocation)
                                + ", and "
                                + field.type()
                                + " cannot be cast to "
                                + column.type()
                                + " without loss. Cast it in the job, or write to a table with a"
                                + " matching column"
                                + (SchemaChange.isWidening(column.type(), field.type())
                                                && !table.primaryKey().contains(column.name())
                                                && !table.partitionColumns().contains(column.name())
                                        ? " (or let the sink widen the table's column:"
                                                + " schema-evolution = add-columns-and-widen-types)."
                                        : "."));
            }
        }
        return new InputProjection(sources, casts, defaults);
    }

    /** The table row for an input row that is written: the table's defaults where it has none. */
    public Object[] project(Object[] input) {
        return project(input, true);
    }

    /**
     * The table row a delete names: no defaults. A delete's values besides its key only say which
     * row it means, and a default is nothing the source said: with one filled in, a delete that
     * carried only its key would no longer look like one (see {@code PartitionChanges}).
     */
    public Object[] projectDelete(Object[] input) {
        return project(input, false);
    }

    private Object[] project(Object[] input, boolean withDefaults) {
        Object[] row = new Object[sources.length];
        for (int i = 0; i < sources.length; i++) {
            if (sources[i] >= 0) {
                Object value = input[sources[i]];
                row[i] = value == null ? null : casts[i].apply(value);
            } else if (withDefaults && defaults[i] != null) {
                row[i] = defaults[i] instanceof byte[] bytes ? bytes.clone() : defaults[i];
            }
        }
        return row;
    }

    private static boolean isZoneMismatch(ValueType from, ValueType to) {
        return from instanceof ValueType.Primitive source
                && to instanceof ValueType.Primitive target
                && isTimestamp(source.kind())
                && isTimestamp(target.kind())
                && source.kind() != target.kind();
    }

    private static boolean isTimestamp(ValueType.Kind kind) {
        return kind == ValueType.Kind.TIMESTAMP || kind == ValueType.Kind.TIMESTAMP_NTZ;
    }

    private static String describeTimestamp(ValueType type) {
        return ((ValueType.Primitive) type).kind() == ValueType.Kind.TIMESTAMP
                ? "an instant (Flink TIMESTAMP_LTZ, Delta timestamp)"
                : "a wall-clock time without zone (Flink TIMESTAMP, Delta timestamp_ntz)";
    }

    /** A lossless conversion of non-null values; serializable with the sink. */
    @FunctionalInterface
    private interface Cast extends Serializable {
        Object apply(Object value);
    }

    private static Cast cast(ValueType from, ValueType to) {
        if (from.equals(to)) {
            return value -> value;
        }
        if (to instanceof ValueType.Decimal target) {
            return castToDecimal(from, target);
        }
        if (from instanceof ValueType.Struct source && to instanceof ValueType.Struct target) {
            return castStruct(source, target);
        }
        if (from instanceof ValueType.Array source && to instanceof ValueType.Array target) {
            Cast element = cast(source.elementType(), target.elementType());
            if (element == null || (source.containsNull() && !target.containsNull())) {
                return null;
            }
            return value -> {
                List<Object> out = new ArrayList<>();
                for (Object e : (List<?>) value) {
                    out.add(e == null ? null : element.apply(e));
                }
                return out;
            };
        }
        if (from instanceof ValueType.Map source && to instanceof ValueType.Map target) {
            Cast key = cast(source.keyType(), target.keyType());
            Cast mapValue = cast(source.valueType(), target.valueType());
            if (key == null || mapValue == null) {
                return null;
            }
            return value -> {
                java.util.Map<Object, Object> out = new java.util.LinkedHashMap<>();
                ((java.util.Map<?, ?>) value)
                        .forEach(
                                (k, v) ->
                                        out.put(
                                                key.apply(k),
                                                v == null ? null : mapValue.apply(v)));
                return out;
            };
        }
        if (!(from instanceof ValueType.Primitive source)
                || !(to instanceof ValueType.Primitive target)) {
            return null;
        }
        return switch (target.kind()) {
            case SMALLINT ->
                    source.kind() == ValueType.Kind.TINYINT ? value -> (short) (byte) value : null;
            case INT ->
                    switch (source.kind()) {
                        case TINYINT -> value -> (int) (byte) value;
                        case SMALLINT -> value -> (int) (short) value;
                        default -> null;
                    };
            case BIGINT ->
                    switch (source.kind()) {
                        case TINYINT -> value -> (long) (byte) value;
                        case SMALLINT -> value -> (long) (short) value;
                        case INT -> value -> (long) (int) value;
                        default -> null;
                    };
            case DOUBLE ->
                    switch (source.kind()) {
                        case FLOAT -> value -> (double) (float) value;
                        case TINYINT, SMALLINT, INT -> value -> ((Number) value).doubleValue();
                        default -> null;
                    };
            // TIMESTAMP (an instant) and TIMESTAMP_NTZ (a wall-clock time) do not convert into
            // each other without a time zone: see zoneMismatch.
            default -> null;
        };
    }

    private static Cast castToDecimal(ValueType from, ValueType.Decimal to) {
        int integerDigits;
        int scale;
        if (from instanceof ValueType.Decimal source) {
            integerDigits = source.precision() - source.scale();
            scale = source.scale();
        } else if (from instanceof ValueType.Primitive source) {
            integerDigits =
                    switch (source.kind()) {
                        case TINYINT -> 3;
                        case SMALLINT -> 5;
                        case INT -> 10;
                        case BIGINT -> 19;
                        default -> -1;
                    };
            scale = 0;
        } else {
            return null;
        }
        if (integerDigits < 0
                || to.scale() < scale
                || to.precision() - to.scale() < integerDigits) {
            return null;
        }
        int targetScale = to.scale();
        return value -> {
            BigDecimal decimal =
                    value instanceof BigDecimal d
                            ? d
                            : BigDecimal.valueOf(((Number) value).longValue());
            return decimal.setScale(targetScale);
        };
    }

    private static Cast castStruct(ValueType.Struct from, ValueType.Struct to) {
        List<ValueType.Field> targetFields = to.fields();
        int[] sources = new int[targetFields.size()];
        Cast[] casts = new Cast[targetFields.size()];
        for (ValueType.Field field : from.fields()) {
            if (indexOf(targetFields, field.name()) < 0) {
                return null;
            }
        }
        for (int i = 0; i < targetFields.size(); i++) {
            ValueType.Field target = targetFields.get(i);
            sources[i] = indexOf(from.fields(), target.name());
            if (sources[i] < 0) {
                if (!target.nullable()) {
                    return null;
                }
                continue;
            }
            casts[i] = cast(from.fields().get(sources[i]).type(), target.type());
            if (casts[i] == null) {
                return null;
            }
        }
        // nested fields have no defaults in Delta
        InputProjection nested =
                new InputProjection(sources, casts, new Object[targetFields.size()]);
        return value -> nested.project((Object[]) value);
    }

    /**
     * Whether the {@code input} has a column that {@link #plan} maps onto the table column named
     * {@code column}.
     */
    public static boolean carries(List<ValueType.Field> input, String column) {
        return indexOf(input, column) >= 0;
    }

    /** The index of the column named {@code name} (exactly, else ignoring case), or -1. */
    static int indexOf(List<ValueType.Field> fields, String name) {
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).name().equals(name)) {
                return i;
            }
        }
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i)
                    .name()
                    .toLowerCase(Locale.ROOT)
                    .equals(name.toLowerCase(Locale.ROOT))) {
                return i;
            }
        }
        return -1;
    }

    private static String names(List<ValueType.Field> fields) {
        return fields.stream().map(ValueType.Field::name).toList().toString();
    }
}
