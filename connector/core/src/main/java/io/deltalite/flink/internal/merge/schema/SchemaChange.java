package io.deltalite.flink.internal.merge.schema;

import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.sink.SchemaEvolution;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What an input asks of an existing table's schema under a {@link SchemaEvolutionPolicy}: the
 * columns to rename (as the user listed them), the columns to add (nullable input columns the table
 * lacks, in input order), the columns whose type to widen, and the columns to drop (table columns
 * the input lacks, when the policy drops columns). Everything else the input does not fit is left
 * to {@link InputProjection}, which refuses it naming the column. The Delta layer commits the
 * change (renames and drops only on tables with column mapping); this class only decides it.
 *
 * <p>Deciding again on the changed table gives no change: a rename whose new name the table has is
 * done, a dropped column is gone. Every writer of a job decides on the table as it finds it.
 *
 * @param renamed the table columns that get another name
 * @param added the columns to append to the table, as the input declares them
 * @param widened the table columns (by their names after the renames) whose type becomes the
 *     input's
 * @param dropped the table columns (by their names after the renames) to drop
 * @param relaxed the NOT NULL table columns (by their names after the renames) that become nullable
 *     ({@link SchemaEvolutionPolicy#relaxesNotNull()})
 */
public record SchemaChange(
        List<Rename> renamed,
        List<ValueType.Field> added,
        List<Widening> widened,
        List<String> dropped,
        List<String> relaxed) {

    /** A table column named {@code from} that is named {@code to} from now on. */
    public record Rename(String from, String to) {
        @Override
        public String toString() {
            return from + " -> " + to;
        }
    }

    /** A table column whose type {@code from} becomes {@code to}. */
    public record Widening(String column, ValueType from, ValueType to) {
        @Override
        public String toString() {
            return column + " " + from + " -> " + to;
        }
    }

    public SchemaChange {
        renamed = List.copyOf(renamed);
        added = List.copyOf(added);
        widened = List.copyOf(widened);
        dropped = List.copyOf(dropped);
        relaxed = List.copyOf(relaxed);
    }

    /** A change that relaxes no NOT NULL column. */
    public SchemaChange(
            List<Rename> renamed,
            List<ValueType.Field> added,
            List<Widening> widened,
            List<String> dropped) {
        this(renamed, added, widened, dropped, List.of());
    }

    /** No change. */
    public static final SchemaChange NONE =
            new SchemaChange(List.of(), List.of(), List.of(), List.of());

    /**
     * The change that lets {@code input} be written to {@code table} under {@code policy}.
     *
     * @throws DeltaLiteSchemaMismatchException when the input needs a change the policy allows but
     *     Delta or deltalite cannot make (a NOT NULL column, a partition column's type, a rename of
     *     a key column or of a column the table does not have)
     */
    public static SchemaChange between(
            TableSchema table,
            List<ValueType.Field> input,
            SchemaEvolutionPolicy policy,
            String tableLocation) {
        List<Rename> renamed = renames(table, input, policy, tableLocation);
        table = applyRenames(table, renamed);
        List<ValueType.Field> added = new ArrayList<>();
        List<Widening> widened = new ArrayList<>();
        SchemaEvolution mode = policy.mode();
        for (ValueType.Field field : mode.addsColumns() ? input : List.<ValueType.Field>of()) {
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
        List<String> relaxed = new ArrayList<>();
        if (policy.relaxesNotNull()) {
            for (ValueType.Field column : table.columns()) {
                int source = InputProjection.indexOf(input, column.name());
                if (!column.nullable()
                        && source >= 0
                        && input.get(source).nullable()
                        && !containsIgnoringCase(table.primaryKey(), column.name())
                        && !containsIgnoringCase(table.partitionColumns(), column.name())) {
                    relaxed.add(column.name());
                }
            }
        }
        List<String> dropped = new ArrayList<>();
        if (policy.dropsColumns()) {
            for (ValueType.Field column : table.columns()) {
                // a key or partition column the input lacks stays: InputProjection refuses it
                if (InputProjection.indexOf(input, column.name()) < 0
                        && !containsIgnoringCase(table.primaryKey(), column.name())
                        && !containsIgnoringCase(table.partitionColumns(), column.name())) {
                    dropped.add(column.name());
                }
            }
        }
        return new SchemaChange(renamed, added, widened, dropped, relaxed);
    }

    /**
     * The renames of {@code policy} still to make on {@code table}. An entry whose new name the
     * table has is made (whatever became of the old name since); one whose old name the table lacks
     * too, or whose old name the input still writes and new name it does not, is moot (the renamed
     * column was dropped since). So deciding again after the change, or at any later start with the
     * same options, gives nothing to do. Refused: an old name the table lacks while the input has
     * the new one (a misspelt entry, or the column was dropped by another writer); a new name the
     * input lacks (its values would be written null, or dropped with drop-columns); and an input
     * with both names (no telling whether the old name is the renamed column or a new one).
     */
    private static List<Rename> renames(
            TableSchema table,
            List<ValueType.Field> input,
            SchemaEvolutionPolicy policy,
            String tableLocation) {
        List<Rename> renamed = new ArrayList<>();
        List<ValueType.Field> columns = table.columns();
        for (Map.Entry<String, String> entry : policy.renames().entrySet()) {
            int from = InputProjection.indexOf(columns, entry.getKey());
            boolean tableHasTo = InputProjection.indexOf(columns, entry.getValue()) >= 0;
            boolean inputHasTo = InputProjection.indexOf(input, entry.getValue()) >= 0;
            boolean inputHasFrom = InputProjection.indexOf(input, entry.getKey()) >= 0;
            if (tableHasTo || (!inputHasTo && (from < 0 || inputHasFrom))) {
                continue; // made before, or moot since
            }
            if (from < 0) {
                throw new DeltaLiteSchemaMismatchException(
                        "schema-evolution.renames asks to rename column '"
                                + entry.getKey()
                                + "' to '"
                                + entry.getValue()
                                + "', but the Delta table at "
                                + tableLocation
                                + " has neither column "
                                + columnNames(columns)
                                + ". Correct the entry (it names the table's column first), or"
                                + " remove it.");
            }
            if (!inputHasTo) {
                throw new DeltaLiteSchemaMismatchException(
                        renameRequest(entry, tableLocation)
                                + ", which is not a column of the input "
                                + columnNames(input)
                                + ": its values would be written as null from then on. Correct"
                                + " the entry (the input's name comes second), or remove it.");
            }
            if (inputHasFrom) {
                throw new DeltaLiteSchemaMismatchException(
                        renameRequest(entry, tableLocation)
                                + ", but the input has both names "
                                + columnNames(input)
                                + ": the sink cannot tell whether its '"
                                + entry.getKey()
                                + "' is the renamed column or a new one. Rename first, with an"
                                + " input without '"
                                + entry.getKey()
                                + "', and add the new column at a later start; or remove the"
                                + " entry.");
            }
            String column = columns.get(from).name();
            if (containsIgnoringCase(table.primaryKey(), column)
                    || containsIgnoringCase(table.partitionColumns(), column)) {
                throw new DeltaLiteSchemaMismatchException(
                        "schema-evolution.renames asks to rename column '"
                                + column
                                + "' of the Delta table at "
                                + tableLocation
                                + ", a "
                                + (containsIgnoringCase(table.primaryKey(), column)
                                        ? "primary-key"
                                        : "partition")
                                + " column, which the sink does not rename (the key and the"
                                + " partitioning are recorded by name in the table and in the"
                                + " job's state). Rename it in the job instead (AS in SQL), or"
                                + " write to a new table.");
            }
            renamed.add(new Rename(column, entry.getValue()));
        }
        return renamed;
    }

    /** "schema-evolution.renames asks to rename column 'a' of the Delta table at L to 'b'". */
    private static String renameRequest(Map.Entry<String, String> entry, String tableLocation) {
        return "schema-evolution.renames asks to rename column '"
                + entry.getKey()
                + "' of the Delta table at "
                + tableLocation
                + " to '"
                + entry.getValue()
                + "'";
    }

    private static TableSchema applyRenames(TableSchema table, List<Rename> renamed) {
        if (renamed.isEmpty()) {
            return table;
        }
        List<ValueType.Field> columns = new ArrayList<>();
        for (ValueType.Field column : table.columns()) {
            String name = column.name();
            for (Rename rename : renamed) {
                if (rename.from().equals(name)) {
                    name = rename.to();
                }
            }
            columns.add(new ValueType.Field(name, column.type(), column.nullable()));
        }
        return new TableSchema(columns, table.primaryKey(), table.partitionColumns());
    }

    private static boolean containsIgnoringCase(List<String> names, String name) {
        return names.stream().anyMatch(n -> n.equalsIgnoreCase(name));
    }

    private static List<String> columnNames(List<ValueType.Field> columns) {
        return columns.stream().map(ValueType.Field::name).toList();
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
        return renamed.isEmpty()
                && added.isEmpty()
                && widened.isEmpty()
                && dropped.isEmpty()
                && relaxed.isEmpty();
    }

    /**
     * {@code table} with this change: columns renamed, widened columns retyped, relaxed columns
     * nullable, dropped columns removed, added columns appended.
     */
    public TableSchema applyTo(TableSchema table) {
        List<ValueType.Field> columns = new ArrayList<>();
        for (ValueType.Field column : applyRenames(table, renamed).columns()) {
            if (dropped.contains(column.name())) {
                continue;
            }
            ValueType type = column.type();
            for (Widening widening : widened) {
                if (widening.column().equals(column.name())) {
                    type = widening.to();
                }
            }
            columns.add(
                    new ValueType.Field(
                            column.name(),
                            type,
                            column.nullable() || relaxed.contains(column.name())));
        }
        columns.addAll(added);
        return new TableSchema(columns, table.primaryKey(), table.partitionColumns());
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        if (!renamed.isEmpty()) {
            parts.add("rename columns " + renamed);
        }
        if (!dropped.isEmpty()) {
            parts.add("drop columns " + dropped);
        }
        if (!added.isEmpty()) {
            parts.add("add columns " + added.stream().map(f -> f.name() + " " + f.type()).toList());
        }
        if (!widened.isEmpty()) {
            parts.add("widen " + widened);
        }
        if (!relaxed.isEmpty()) {
            parts.add("make nullable " + relaxed);
        }
        return parts.isEmpty() ? "no change" : String.join("; ", parts);
    }
}
