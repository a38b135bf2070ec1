package io.deltalite.flink.internal.merge.value;

import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The values of the partition columns of a row, in partition-column order; an unpartitioned table
 * has one partition with no values. Values are normalized as described in {@link ValueType}; {@code
 * null} is the null (default) partition.
 */
public record PartitionValues(List<Object> values) implements Serializable {
    public static final PartitionValues UNPARTITIONED = new PartitionValues(List.of());

    public PartitionValues {
        values = Collections.unmodifiableList(new ArrayList<>(values));
    }

    /** The partition of {@code row}, whose partition columns are at {@code partitionIndexes}. */
    public static PartitionValues of(Object[] row, int[] partitionIndexes) {
        if (partitionIndexes.length == 0) {
            return UNPARTITIONED;
        }
        List<Object> values = new ArrayList<>(partitionIndexes.length);
        for (int index : partitionIndexes) {
            // Delta stores an empty partition value as null: they are one partition.
            Object value = row[index];
            values.add("".equals(value) ? null : value);
        }
        return new PartitionValues(values);
    }

    /** A readable form such as {@code day=2024-01-01/region=eu}, for messages and logs. */
    public String describe(List<String> partitionColumns) {
        if (values.isEmpty()) {
            return "(unpartitioned)";
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            text.append(i == 0 ? "" : "/").append(partitionColumns.get(i)).append('=');
            text.append(values.get(i) == null ? "null" : "'" + values.get(i) + "'");
        }
        return text.toString();
    }

    /**
     * Whether this partition can hold a row whose key a delete naming partition {@code named}
     * carried: only when both agree on every partition column of {@code schema}'s primary key. A
     * key is matched within a partition by its other columns ({@link TableSchema#matchKey()}), so
     * the same match key in a partition of another value of such a column is another row.
     */
    public boolean mayHoldKeysOf(PartitionValues named, TableSchema schema) {
        List<String> columns = schema.partitionColumns();
        if (named.values.size() != columns.size() || values.size() != columns.size()) {
            return true; // not of this partitioning: looked up, as before
        }
        for (int i = 0; i < columns.size(); i++) {
            if (schema.primaryKey().contains(columns.get(i))
                    && !java.util.Objects.equals(named.values.get(i), values.get(i))) {
                return false;
            }
        }
        return true;
    }
}
