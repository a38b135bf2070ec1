package io.deltalite.flink.internal.merge.schema;

import io.deltalite.flink.sink.SchemaEvolution;
import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * What the user declared about the table: the columns of the input, the primary key, the partition
 * columns, for a table deltalite creates its table properties, and how far an existing table's
 * schema may follow the input ({@link SchemaEvolutionPolicy}). An existing table keeps its own
 * partitioning; its schema changes only as {@code schemaEvolution} allows, otherwise the
 * declaration must fit it.
 *
 * @param columnComments the comments of top-level columns of a table deltalite creates, by column
 *     name (a table that exists keeps its own)
 */
public record TableDefinition(
        List<ValueType.Field> columns,
        List<String> primaryKey,
        List<String> partitionColumns,
        Map<String, String> tableProperties,
        SchemaEvolutionPolicy schemaEvolution,
        Map<String, String> columnComments)
        implements Serializable {

    /** A definition without column comments. */
    public TableDefinition(
            List<ValueType.Field> columns,
            List<String> primaryKey,
            List<String> partitionColumns,
            Map<String, String> tableProperties,
            SchemaEvolutionPolicy schemaEvolution) {
        this(columns, primaryKey, partitionColumns, tableProperties, schemaEvolution, Map.of());
    }

    /** A definition that never changes an existing table's schema. */
    public TableDefinition(
            List<ValueType.Field> columns,
            List<String> primaryKey,
            List<String> partitionColumns,
            Map<String, String> tableProperties) {
        this(columns, primaryKey, partitionColumns, tableProperties, SchemaEvolutionPolicy.NONE);
    }

    /**
     * An existing table, taken as it is: its columns, partition columns and the primary key the
     * sink recorded in it (none if it has none). For maintenance, never to create a table.
     */
    public static TableDefinition existingTable() {
        return new TableDefinition(List.of(), List.of(), List.of(), Map.of());
    }

    /**
     * Whether writing with this definition may remove rows: a keyed sink does (upserts, deletes).
     * An append-only sink only adds rows, and maintenance ({@link #existingTable()}) only rewrites
     * them: their commits remove files only to compact them ({@code dataChange = false}).
     */
    public boolean removesRows() {
        return !primaryKey.isEmpty();
    }

    /** Whether this is {@link #existingTable()}. */
    public boolean isExistingTable() {
        return columns.isEmpty() && primaryKey.isEmpty();
    }

    public TableDefinition {
        columns = List.copyOf(columns);
        primaryKey = List.copyOf(primaryKey);
        partitionColumns = List.copyOf(partitionColumns);
        tableProperties = Map.copyOf(tableProperties);
        java.util.Objects.requireNonNull(schemaEvolution, "schemaEvolution");
        columnComments = Map.copyOf(columnComments);
    }

    /** This definition with {@code mode} as its schema evolution mode (renames and drops kept). */
    public TableDefinition withSchemaEvolution(SchemaEvolution mode) {
        return withSchemaEvolution(schemaEvolution.withMode(mode));
    }

    /** This definition with the table property {@code key} set to {@code value}. */
    public TableDefinition withTableProperty(String key, String value) {
        Map<String, String> properties = new java.util.LinkedHashMap<>(tableProperties);
        properties.put(key, value);
        return new TableDefinition(
                columns, primaryKey, partitionColumns, properties, schemaEvolution, columnComments);
    }

    /** This definition with {@code comments} as its columns' comments, by column name. */
    public TableDefinition withColumnComments(Map<String, String> comments) {
        return new TableDefinition(
                columns, primaryKey, partitionColumns, tableProperties, schemaEvolution, comments);
    }

    /** This definition with {@code policy} as its schema evolution. */
    public TableDefinition withSchemaEvolution(SchemaEvolutionPolicy policy) {
        return new TableDefinition(
                columns, primaryKey, partitionColumns, tableProperties, policy, columnComments);
    }

    /** The schema of a table created from this definition. */
    public TableSchema toSchema() {
        return new TableSchema(columns, primaryKey, partitionColumns);
    }
}
