package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.Snapshot;
import io.delta.kernel.types.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the files a sink writes are laid out by, as one version of the table has it: the schema
 * (with each field's metadata), the partition columns (which a file's folder and partition values
 * follow), the column mapping mode (by which a file names its columns) and the row tracking columns
 * (which every file holds in a table with row tracking, else null). A sink opens a table with one
 * shape and writes by it until it is restarted; a version of another shape must not be written with
 * the old one.
 *
 * <p>Deletion vectors are no part of it: whether a checkpoint marks rows or rewrites files is
 * decided from each version as it is ({@code TableSnapshot#allowsDeletionVectors}).
 */
record TableShape(
        StructType schema,
        List<String> partitionColumns,
        String columnMapping,
        RowTrackingColumns rowTracking) {
    static final String COLUMN_MAPPING_MODE = "delta.columnMapping.mode";

    TableShape {
        partitionColumns = List.copyOf(partitionColumns);
    }

    /**
     * @param tablePath for the error of a table that tracks rows without naming its columns
     */
    static TableShape of(Snapshot snapshot, String tablePath) {
        return new TableShape(
                snapshot.getSchema(),
                snapshot.getPartitionColumnNames(),
                snapshot.getTableProperties()
                        .getOrDefault(COLUMN_MAPPING_MODE, "none")
                        .trim()
                        .toLowerCase(Locale.ROOT),
                RowTrackingColumns.of(snapshot.getTableProperties(), tablePath));
    }

    /** What differs from {@code before} to this shape, one phrase each; empty when nothing. */
    List<String> changesSince(TableShape before) {
        List<String> changes = new ArrayList<>();
        if (!columnMapping.equals(before.columnMapping)) {
            changes.add(
                    "column mapping ("
                            + COLUMN_MAPPING_MODE
                            + ") from "
                            + before.columnMapping
                            + " to "
                            + columnMapping);
        }
        if (!partitionColumns.equals(before.partitionColumns)) {
            changes.add(
                    "partition columns from "
                            + before.partitionColumns
                            + " to "
                            + partitionColumns);
        }
        if (!java.util.Objects.equals(rowTracking, before.rowTracking)) {
            changes.add(
                    "row tracking from "
                            + (before.rowTracking == null ? "off" : before.rowTracking)
                            + " to "
                            + (rowTracking == null ? "off" : rowTracking));
        }
        // Column mapping rewrites every field's metadata: that change is named above.
        if (changes.isEmpty() && !schema.equals(before.schema)) {
            changes.add("the schema");
        }
        return changes;
    }
}
