package io.deltalite.flink.internal.merge.changes;

import io.deltalite.flink.exceptions.DeltaLiteInvalidInputException;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * Checks that a row handed to the engine has the table's shape: one value per column, each of the
 * Java type its column's type requires (see {@link ValueType}), decimals that fit their precision
 * and scale, no null in a non-nullable column — of a row that is written. A deleted row names its
 * row by its key and partition values, and its other values are never written: a source that sends
 * only the key (no before image), or an input that lacks a column the table fills from a default,
 * leaves them null, and only its key and partition columns must be non-null where the table says.
 */
final class RowValidator {
    private final TableSchema schema;
    private final String table;

    RowValidator(TableSchema schema, String table) {
        this.schema = schema;
        this.table = table;
    }

    /** Validates a row that is written (an insert or update). */
    void validate(Object[] row) {
        validate(row, true);
    }

    /** Validates the row of a delete ({@link RowValidator}). */
    void validateDeleted(Object[] row) {
        validate(row, false);
    }

    private void validate(Object[] row, boolean written) {
        List<ValueType.Field> columns = schema.columns();
        if (row.length != columns.size()) {
            throw new DeltaLiteInvalidInputException(
                    "A row for table "
                            + table
                            + " has "
                            + row.length
                            + " values, but the table has "
                            + columns.size()
                            + " columns "
                            + names(columns)
                            + ".");
        }
        for (int i = 0; i < row.length; i++) {
            ValueType.Field column = columns.get(i);
            boolean nullable =
                    column.nullable()
                            || (!written
                                    && !schema.primaryKey().contains(column.name())
                                    && !schema.partitionColumns().contains(column.name()));
            String problem = problem(column.type(), row[i], nullable);
            if (problem != null) {
                throw new DeltaLiteInvalidInputException(
                        "Column '"
                                + column.name()
                                + "' ("
                                + column.type()
                                + ") of table "
                                + table
                                + " cannot take the value "
                                + describe(row[i])
                                + ": "
                                + problem
                                + ". Fix the source or the declared schema; nothing of this"
                                + " checkpoint was committed.");
            }
        }
    }

    private static String problem(ValueType type, Object value, boolean nullable) {
        if (value == null) {
            return nullable ? null : "the column is NOT NULL";
        }
        if (type instanceof ValueType.Decimal decimal) {
            if (!(value instanceof BigDecimal number)) {
                return "expected a decimal";
            }
            if (number.scale() != decimal.scale()) {
                return "scale " + number.scale() + " differs from the column's " + decimal.scale();
            }
            if (number.precision() > decimal.precision()) {
                return "it has "
                        + number.precision()
                        + " digits, more than the column's "
                        + decimal.precision();
            }
            return null;
        }
        if (type instanceof ValueType.Struct struct) {
            if (!(value instanceof Object[] fields) || fields.length != struct.fields().size()) {
                return "expected a struct of " + struct.fields().size() + " fields";
            }
            for (int i = 0; i < fields.length; i++) {
                ValueType.Field field = struct.fields().get(i);
                String problem = problem(field.type(), fields[i], field.nullable());
                if (problem != null) {
                    return "field '" + field.name() + "': " + problem;
                }
            }
            return null;
        }
        if (type instanceof ValueType.Array array) {
            if (!(value instanceof List<?> list)) {
                return "expected a list";
            }
            for (Object element : list) {
                String problem = problem(array.elementType(), element, array.containsNull());
                if (problem != null) {
                    return "element: " + problem;
                }
            }
            return null;
        }
        if (type instanceof ValueType.Map map) {
            if (!(value instanceof Map<?, ?> entries)) {
                return "expected a map";
            }
            for (Map.Entry<?, ?> entry : entries.entrySet()) {
                if (entry.getKey() == null) {
                    return "a map key is null, and Delta map keys cannot be null (drop the entry"
                            + " or replace its key in the job)";
                }
                String problem = problem(map.keyType(), entry.getKey(), false);
                if (problem == null) {
                    problem = problem(map.valueType(), entry.getValue(), map.valueContainsNull());
                }
                if (problem != null) {
                    return "map entry: " + problem;
                }
            }
            return null;
        }
        Class<?> expected =
                switch (((ValueType.Primitive) type).kind()) {
                    case BOOLEAN -> Boolean.class;
                    case TINYINT -> Byte.class;
                    case SMALLINT -> Short.class;
                    case INT, DATE -> Integer.class;
                    case BIGINT, TIMESTAMP, TIMESTAMP_NTZ -> Long.class;
                    case FLOAT -> Float.class;
                    case DOUBLE -> Double.class;
                    case STRING -> String.class;
                    case BINARY -> byte[].class;
                };
        return expected.isInstance(value) ? null : "expected " + expected.getSimpleName();
    }

    private static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        String text = value instanceof Object[] ? "struct" : String.valueOf(value);
        if (text.length() > 64) {
            text = text.substring(0, 64) + "…";
        }
        return "'" + text + "' (" + value.getClass().getSimpleName() + ")";
    }

    private static String names(List<ValueType.Field> columns) {
        return columns.stream().map(ValueType.Field::name).toList().toString();
    }
}
