package io.deltalite.flink.internal.merge.schema;

import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The columns of a table, its primary key and its partition columns.
 *
 * <p>Rows are identified by their <em>match key</em>: the primary-key columns that are not
 * partition columns, within their partition. A primary key that repeats partition columns (a common
 * habit in Flink SQL DDL) is therefore equivalent to one without them.
 */
public record TableSchema(
        List<ValueType.Field> columns, List<String> primaryKey, List<String> partitionColumns)
        implements Serializable {

    public TableSchema {
        columns = List.copyOf(columns);
        primaryKey = List.copyOf(primaryKey);
        partitionColumns = List.copyOf(partitionColumns);
        Set<String> names = new HashSet<>();
        for (ValueType.Field column : columns) {
            if (!names.add(column.name().toLowerCase(java.util.Locale.ROOT))) {
                throw new DeltaLiteSchemaMismatchException(
                        "Column '"
                                + column.name()
                                + "' appears twice (names are case-insensitive"
                                + " in Delta). Rename one of them.");
            }
        }
        if (new HashSet<>(primaryKey).size() != primaryKey.size()) {
            throw new DeltaLiteSchemaMismatchException(
                    "The primary key " + primaryKey + " names a column twice.");
        }
        if (new HashSet<>(partitionColumns).size() != partitionColumns.size()) {
            throw new DeltaLiteSchemaMismatchException(
                    "The partition columns " + partitionColumns + " name a column twice.");
        }
        for (String key : primaryKey) {
            ValueType.Field field = findIn(columns, key, "primary-key");
            if (!field.type().isKeyable()) {
                throw new DeltaLiteSchemaMismatchException(
                        "Primary-key column '"
                                + key
                                + "' has type "
                                + field.type()
                                + ", which cannot be compared as a key. Use a column of a primitive"
                                + " or decimal type.");
            }
        }
        for (String partition : partitionColumns) {
            ValueType.Field field = findIn(columns, partition, "partition");
            if (!field.type().isPartitionable()) {
                throw new DeltaLiteSchemaMismatchException(
                        "Partition column '"
                                + partition
                                + "' has type "
                                + field.type()
                                + ", which Delta cannot store losslessly as a partition value."
                                + " Partition by a column of another type.");
            }
        }
        if (!primaryKey.isEmpty() && partitionColumns.containsAll(primaryKey)) {
            throw new DeltaLiteSchemaMismatchException(
                    "Every primary-key column "
                            + primaryKey
                            + " is also a partition column, so"
                            + " a partition could hold only one row. Add a column that identifies"
                            + " a row within its partition to the primary key.");
        }
        if (partitionColumns.size() == columns.size()) {
            throw new DeltaLiteSchemaMismatchException(
                    "Every column is a partition column; Delta needs at least one data column.");
        }
    }

    private static ValueType.Field findIn(List<ValueType.Field> columns, String name, String role) {
        for (ValueType.Field column : columns) {
            if (column.name().equals(name)) {
                return column;
            }
        }
        List<String> names = new ArrayList<>();
        columns.forEach(column -> names.add(column.name()));
        throw new DeltaLiteSchemaMismatchException(
                "The "
                        + role
                        + " column '"
                        + name
                        + "' is not a column of the table "
                        + names
                        + ". Declare it in the schema or fix the name (names are case-sensitive).");
    }

    /** The index of a column, or -1. */
    public int indexOf(String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    public ValueType.Field column(String name) {
        int index = indexOf(name);
        if (index < 0) {
            throw new IllegalArgumentException("no column " + name);
        }
        return columns.get(index);
    }

    /** The primary-key columns that identify a row within its partition, in key order. */
    public List<String> matchKey() {
        List<String> key = new ArrayList<>();
        for (String column : primaryKey) {
            if (!partitionColumns.contains(column)) {
                key.add(column);
            }
        }
        return key;
    }

    /** Indexes of the {@link #matchKey() match-key} columns in {@link #columns()}. */
    public int[] matchKeyIndexes() {
        return matchKey().stream().mapToInt(this::indexOf).toArray();
    }

    /** Indexes of the partition columns in {@link #columns()}. */
    public int[] partitionIndexes() {
        return partitionColumns.stream().mapToInt(this::indexOf).toArray();
    }

    /** The types of the {@link #matchKey() match-key} columns, in key order. */
    public List<ValueType> matchKeyTypes() {
        List<ValueType> types = new ArrayList<>();
        for (String column : matchKey()) {
            types.add(column(column).type());
        }
        return types;
    }

    /** The types of the partition columns, in partition-column order. */
    public List<ValueType> partitionTypes() {
        List<ValueType> types = new ArrayList<>();
        for (String column : partitionColumns) {
            types.add(column(column).type());
        }
        return types;
    }

    /** The columns stored in the data files: every column but the partition columns. */
    public List<ValueType.Field> dataColumns() {
        List<ValueType.Field> data = new ArrayList<>();
        for (ValueType.Field column : columns) {
            if (!partitionColumns.contains(column.name())) {
                data.add(column);
            }
        }
        return data;
    }

    /** Whether the table has no primary key, so that changes can only append rows. */
    public boolean isAppendOnly() {
        return primaryKey.isEmpty();
    }

    public boolean isPartitioned() {
        return !partitionColumns.isEmpty();
    }
}
