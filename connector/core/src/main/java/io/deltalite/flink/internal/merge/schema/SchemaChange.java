package io.deltalite.flink.internal.merge.schema;

import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.sink.SchemaEvolution;
import java.util.ArrayList;
import java.util.List;

/**
 * What an input asks of an existing table's schema under a {@link SchemaEvolution} mode: the
 * columns to add (nullable input columns the table lacks, in input order) and the columns whose
 * type to widen. Everything else the input does not fit is left to {@link InputProjection}, which
 * refuses it naming the column. The Delta layer commits the change; this class only decides it.
 *
 * @param added the columns to append to the table, as the input declares them
 * @param widened the table columns whose type becomes the input's
 */
public record SchemaChange(List<ValueType.Field> added, List<Widening> widened) {

    /** A table column whose type {@code from} becomes {@code to}. */
    public record Widening(String column, ValueType from, ValueType to) {
        @Override
        public String toString() {
            return column + " " + from + " -> " + to;
        }
    }

    public SchemaChange {
        added = List.copyOf(added);
        widened = List.copyOf(widened);
    }

    /** No change. */
    public static final SchemaChange NONE = new SchemaChange(List.of(), List.of());

    /**
     * The change that lets {@code input} be written to {@code table} under {@code mode}.
     *
     * @throws DeltaLiteSchemaMismatchException when the input needs a change the mode allows but
     *     Delta or deltalite cannot make (a NOT NULL column, a partition column's type)
     */
    public static SchemaChange between(
            TableSchema table,
            List<ValueType.Field> input,
            SchemaEvolution mode,
            String tableLocation) {
        if (!mode.addsColumns()) {
            return NONE;
        }
        List<ValueType.Field> added = new ArrayList<>();
        List<Widening> widened = new ArrayList<>();
        for (ValueType.Field field : input) {
            int index = InputProjection.indexOf(table.columns(), field.name());
            if (index < 0) {
                if (!field.nullable()) {
                    throw new DeltaLiteSchemaMismatchException(
                            "Column '"
                                    + field.name()
                                    + "' of the input is NOT NULL, and the Delta table at "
                                    + tableLocation
                                    + " has no such column. schema-evolution adds only nullable"
                                    + " columns: the rows already in the table have no value for"
                                    + " it. Declare it nullable in the input, or add it to the"
                                    + " table yourself with a default.");
                }
                added.add(field);
                continue;
            }
            ValueType.Field column = table.columns().get(index);
            if (mode.widensTypes() && isWidening(column.type(), field.type())) {
                if (table.primaryKey().contains(column.name())) {
                    throw new DeltaLiteSchemaMismatchException(
                            typesDiffer(column, field, tableLocation)
                                    + ", and it is a primary-key column, whose type the sink does"
                                    + " not widen: keys the job holds in its state and its staged"
                                    + " files keep the old type, and a float key widened to double"
                                    + " no longer equals the value read back. Cast it in the job to "
                                    + column.type()
                                    + ", or write to a new table with the wider key.");
                }
                if (table.partitionColumns().contains(column.name())) {
                    throw new DeltaLiteSchemaMismatchException(
                            typesDiffer(column, field, tableLocation)
                                    + ", and it is a partition column, whose type the sink does"
                                    + " not widen (each partition's value is in the log as"
                                    + " text). Cast it in the job to "
                                    + column.type()
                                    + ".");
                }
                widened.add(new Widening(column.name(), column.type(), field.type()));
            }
        }
        return new SchemaChange(added, widened);
    }

    /** "Column 'c' is T in the input but U in the Delta table at L", as the errors begin. */
    static String typesDiffer(
            ValueType.Field tableColumn, ValueType.Field inputField, String tableLocation) {
        return "Column '"
                + tableColumn.name()
                + "' is "
                + inputField.type()
                + " in the input but "
                + tableColumn.type()
                + " in the Delta table at "
                + tableLocation;
    }

    /**
     * Whether Delta's type widening allows a column of type {@code from} to become {@code to}, as
     * far as the sink uses it: integers to wider integers, float to double, and a decimal to one of
     * more precision and the same scale.
     */
    public static boolean isWidening(ValueType from, ValueType to) {
        if (from instanceof ValueType.Decimal source && to instanceof ValueType.Decimal target) {
            return source.scale() == target.scale() && target.precision() > source.precision();
        }
        if (!(from instanceof ValueType.Primitive source)
                || !(to instanceof ValueType.Primitive target)) {
            return false;
        }
        int sourceRank = integerRank(source.kind());
        int targetRank = integerRank(target.kind());
        if (sourceRank >= 0 && targetRank >= 0) {
            return targetRank > sourceRank;
        }
        return source.kind() == ValueType.Kind.FLOAT && target.kind() == ValueType.Kind.DOUBLE;
    }

    private static int integerRank(ValueType.Kind kind) {
        return switch (kind) {
            case TINYINT -> 0;
            case SMALLINT -> 1;
            case INT -> 2;
            case BIGINT -> 3;
            default -> -1;
        };
    }

    public boolean isEmpty() {
        return added.isEmpty() && widened.isEmpty();
    }

    /** {@code table} with this change: widened columns retyped, added columns appended. */
    public TableSchema applyTo(TableSchema table) {
        List<ValueType.Field> columns = new ArrayList<>();
        for (ValueType.Field column : table.columns()) {
            ValueType type = column.type();
            for (Widening widening : widened) {
                if (widening.column().equals(column.name())) {
                    type = widening.to();
                }
            }
            columns.add(new ValueType.Field(column.name(), type, column.nullable()));
        }
        columns.addAll(added);
        return new TableSchema(columns, table.primaryKey(), table.partitionColumns());
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        if (!added.isEmpty()) {
            parts.add("add columns " + added.stream().map(f -> f.name() + " " + f.type()).toList());
        }
        if (!widened.isEmpty()) {
            parts.add("widen " + widened);
        }
        return parts.isEmpty() ? "no change" : String.join("; ", parts);
    }
}
