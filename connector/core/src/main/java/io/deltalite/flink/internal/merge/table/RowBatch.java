package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.value.RowKey;

/**
 * A batch of decoded rows of a data file (or of new rows), as the storage layer hands it to the
 * engine. The engine only looks at keys and liveness; the column data stays in the storage layer's
 * own format and is passed back to it when the batch is written.
 */
public interface RowBatch {

    /** Rows in the batch, live or not. */
    int size();

    /** Whether {@code row} is part of the data (not deleted by a deletion vector or a filter). */
    boolean isLive(int row);

    /** The physical position of {@code row} in its data file (0-based, across row groups). */
    long positionAt(int row);

    /** The match key of {@code row}, or {@code null} when one of its key columns is null. */
    RowKey keyAt(int row);

    /**
     * Whether the key is one {@code BIGINT} column that {@link #longKeyAt} reads without boxing:
     * then {@code keyAt(row)} is null exactly when {@link #isKeyNullAt} and otherwise holds the
     * {@code Long} of {@code longKeyAt(row)}.
     */
    default boolean hasLongKey() {
        return false;
    }

    /** With {@link #hasLongKey()}: whether the key of {@code row} is null. */
    default boolean isKeyNullAt(int row) {
        throw new UnsupportedOperationException("no single BIGINT key");
    }

    /** With {@link #hasLongKey()}: the key of {@code row}, which is not null. */
    default long longKeyAt(int row) {
        throw new UnsupportedOperationException("no single BIGINT key");
    }

    /**
     * The values of {@code row} in table-column order, the form {@link DataFileStore#newRows} takes
     * (partition columns, which data files do not hold, are null). Only for batches of complete
     * rows.
     */
    Object[] rowAt(int row);

    /**
     * The value of table column {@code column} in {@code row} (a data column, not a partition
     * column). Only for batches of complete rows.
     */
    default Object valueAt(int row, int column) {
        return rowAt(row)[column];
    }

    /** A view of this batch in which only the rows with {@code keep[row]} stay live. */
    RowBatch retain(boolean[] keep);
}
