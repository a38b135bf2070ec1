package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.schema.TableSchema;

/** A table as the merge engine sees it: its schema, its latest snapshot and its data files. */
public interface MergeTable {

    /** The table location, for messages. */
    String location();

    TableSchema schema();

    /**
     * The table's clustering columns (liquid clustering) that order the rows of the files the sink
     * writes ({@link io.deltalite.flink.internal.merge.value.RowOrder}): top-level columns by name,
     * as the table had them when it was opened; empty for a table without clustering.
     */
    default java.util.List<String> clusteringColumns() {
        return java.util.List.of();
    }

    /** Loads the latest committed version. */
    TableSnapshot latestSnapshot();

    DataFileStore files();

    /** The size at which written data files are split. */
    long targetFileSizeBytes();

    /** Notes of the files each checkpoint adds, for cleaning up after a failure. */
    AttemptJournal journal();

    /**
     * The partition columns of version {@code version} of the table, or empty when that version can
     * no longer be read (its log expired).
     */
    java.util.Optional<java.util.List<String>> partitionColumnsAt(long version);

    /**
     * The input's columns whose values data files written at version {@code version} hold under a
     * name by which the table no longer reads them (another writer dropped the column, or changed
     * how columns are mapped to the names in data files): committing such files now would lose
     * those values. A column the input does not have (another writer's, or one dropped because the
     * input no longer has it) is not counted. Empty when nothing is lost, or when that version can
     * no longer be read.
     */
    java.util.List<String> columnsLostSince(long version);
}
