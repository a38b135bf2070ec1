package io.deltalite.flink.cdc.internal;

import java.io.Serializable;
import java.util.Objects;
import org.apache.flink.cdc.common.event.TableId;

/**
 * Where the Delta table of each table of a pipeline lives: a path pattern in which {@code
 * {namespace}}, {@code {schema}} and {@code {table}} stand for the parts of the source table's id
 * (for MySQL the schema is the database; for PostgreSQL the namespace is the database and the
 * schema the schema). The default pattern, {@code ROOT/{schema}/{table}}, leaves out the parts a
 * source does not have.
 */
public final class TableLocations implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String pattern;

    private TableLocations(String pattern) {
        this.pattern = pattern;
    }

    /** Each table at {@code root/schema/table} (or {@code root/table} without a schema). */
    public static TableLocations under(String root) {
        Objects.requireNonNull(root, "root");
        String trimmed = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
        return new TableLocations(trimmed + "/{schema}/{table}");
    }

    /**
     * Each table at {@code pattern} with its id's parts put in, for example {@code
     * s3a://lake/{schema}_{table}}. The pattern must name {@code {table}}: tables of one pipeline
     * must not share a Delta table.
     */
    public static TableLocations ofPattern(String pattern) {
        if (pattern == null || !pattern.contains("{table}")) {
            throw new IllegalArgumentException(
                    "The table path pattern '"
                            + pattern
                            + "' does not contain {table}: every table of the pipeline would be"
                            + " written to the same Delta table. Put {table} (and {schema} where"
                            + " several schemas have tables of one name) into the pattern.");
        }
        return new TableLocations(pattern);
    }

    /** The location of {@code table}'s Delta table. */
    public String of(TableId table) {
        String location = pattern;
        location = put(location, "{namespace}", table.getNamespace());
        location = put(location, "{schema}", table.getSchemaName());
        return put(location, "{table}", table.getTableName());
    }

    /** {@code location} with {@code part} put in for {@code placeholder}, or without it. */
    private static String put(String location, String placeholder, String part) {
        if (part != null && !part.isEmpty()) {
            return location.replace(placeholder, part);
        }
        // A part the source lacks takes its separator with it: "root/{schema}/t" → "root/t".
        return location.replace(placeholder + "/", "").replace(placeholder, "");
    }

    @Override
    public String toString() {
        return "TableLocations{" + pattern + "}";
    }
}
