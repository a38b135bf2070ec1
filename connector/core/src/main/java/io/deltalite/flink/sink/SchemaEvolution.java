package io.deltalite.flink.sink;

/**
 * How an existing table's schema may follow the input when the job starts. The change is one
 * metadata commit, made before any data of the job is written; it is never undone.
 *
 * <ul>
 *   <li>{@link #NONE}: the table's schema is kept; an input column the table lacks, or a type wider
 *       than the table's, is refused when the job is built. The default.
 *   <li>{@link #ADD_COLUMNS}: nullable input columns the table lacks are added to the table, after
 *       its columns, in input order. Rows written before have null in them.
 *   <li>{@link #ADD_COLUMNS_AND_WIDEN_TYPES}: as {@link #ADD_COLUMNS}, and a column whose input
 *       type is a widening Delta allows of the table's (tinyint → smallint → int → bigint, float →
 *       double, decimal(p,s) → decimal(p',s) with p' &gt; p) gets the input's type — never a
 *       primary-key or partition column. This turns on Delta's type widening table feature (reader
 *       version 3, writer version 7): readers need it (Spark with Delta 4.0 or later; Delta 3.x
 *       knows only its preview and cannot read the table).
 * </ul>
 *
 * Anything else — a column dropped from the input that the table requires, a renamed column, a
 * narrower or other type, a new NOT NULL column — stays a {@code DeltaLiteSchemaMismatchException}
 * that names the column.
 */
public enum SchemaEvolution {
    NONE("none"),
    ADD_COLUMNS("add-columns"),
    ADD_COLUMNS_AND_WIDEN_TYPES("add-columns-and-widen-types");

    private final String text;

    SchemaEvolution(String text) {
        this.text = text;
    }

    /**
     * The option's value: {@code none}, {@code add-columns} or {@code add-columns-and-widen-types}.
     */
    @Override
    public String toString() {
        return text;
    }

    /** Whether nullable input columns the table lacks are added. */
    public boolean addsColumns() {
        return this != NONE;
    }

    /** Whether column types are widened to the input's. */
    public boolean widensTypes() {
        return this == ADD_COLUMNS_AND_WIDEN_TYPES;
    }

    /** The mode named {@code value} (as {@link #toString()} spells it, or the constant's name). */
    public static SchemaEvolution parse(String value) {
        for (SchemaEvolution mode : values()) {
            if (mode.text.equalsIgnoreCase(value.trim())
                    || mode.name().equalsIgnoreCase(value.trim())) {
                return mode;
            }
        }
        throw new IllegalArgumentException(
                "schema-evolution must be none, add-columns or add-columns-and-widen-types, but is '"
                        + value
                        + "'.");
    }
}
