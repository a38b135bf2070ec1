package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StructType;
import io.deltalite.flink.internal.merge.value.RowLineage;

/**
 * The row tracking columns of batches the sink reads and writes, in a table with row tracking: the
 * last two columns of each batch, the materialized row id and row commit version.
 *
 * <p>A batch read from a file gets them <em>resolved</em> ({@link #resolved}): each row's id and
 * commit version as a reader sees them — the materialized value, else the file's base row id plus
 * the row's position and its default commit version. Written as they are, a copied row keeps both.
 * A file not committed yet has no lineage: its rows without materialized values stay without, and
 * get fresh ones when it is committed. A batch of new rows gets them from the ids the merge found
 * ({@link #newRows}).
 */
public final class RowTrackingVectors {
    private RowTrackingVectors() {}

    /**
     * {@code batch}, read from a file with {@code lineage} (null when it has none) starting at
     * {@code firstPosition}, with its last two columns resolved.
     */
    public static ColumnarBatch resolved(
            ColumnarBatch batch, RowLineage lineage, long firstPosition) {
        if (lineage == null) {
            return batch;
        }
        int columns = batch.getSchema().length();
        ColumnVector rowIds = batch.getColumnVector(columns - 2);
        ColumnVector versions = batch.getColumnVector(columns - 1);
        return new Replaced(
                batch,
                new Resolved(rowIds, lineage.baseRowId() + firstPosition, 1),
                lineage.hasCommitVersion()
                        ? new Resolved(versions, lineage.defaultRowCommitVersion(), 0)
                        : versions);
    }

    /** {@code batch} (of the sink's row layout) with the row ids {@code rowIds} (-1: none). */
    public static ColumnarBatch withRowIds(ColumnarBatch batch, long[] rowIds) {
        int columns = batch.getSchema().length();
        return new Replaced(
                batch, new Given(rowIds, 0, batch.getSize()), batch.getColumnVector(columns - 1));
    }

    /**
     * The row id column of new rows: {@code rowIds[from + i]}, null where it is negative (a row the
     * commit gives a fresh id) or when {@code rowIds} is null.
     */
    static ColumnVector newRowIds(long[] rowIds, int from, int size) {
        return new Given(rowIds, from, size);
    }

    /** The commit version column of new rows: all null, the commit's version. */
    static ColumnVector newCommitVersions(int size) {
        return new Given(null, 0, size);
    }

    /** A materialized column with the lineage's values where it is null. */
    private record Resolved(ColumnVector materialized, long first, long step)
            implements ColumnVector {
        @Override
        public DataType getDataType() {
            return LongType.LONG;
        }

        @Override
        public int getSize() {
            return materialized.getSize();
        }

        @Override
        public void close() {
            materialized.close();
        }

        @Override
        public boolean isNullAt(int rowId) {
            return false;
        }

        @Override
        public long getLong(int rowId) {
            return materialized.isNullAt(rowId)
                    ? first + step * rowId
                    : materialized.getLong(rowId);
        }
    }

    /** Values given per row, null where negative. */
    private record Given(long[] values, int from, int size) implements ColumnVector {
        @Override
        public DataType getDataType() {
            return LongType.LONG;
        }

        @Override
        public int getSize() {
            return size;
        }

        @Override
        public void close() {}

        @Override
        public boolean isNullAt(int rowId) {
            return values == null || values[from + rowId] < 0;
        }

        @Override
        public long getLong(int rowId) {
            if (isNullAt(rowId)) {
                throw new IllegalStateException("row " + rowId + " has no row id");
            }
            return values[from + rowId];
        }
    }

    /** A batch with its last two columns replaced. */
    private record Replaced(ColumnarBatch batch, ColumnVector rowIds, ColumnVector versions)
            implements ColumnarBatch {
        @Override
        public StructType getSchema() {
            return batch.getSchema();
        }

        @Override
        public ColumnVector getColumnVector(int ordinal) {
            int columns = batch.getSchema().length();
            if (ordinal == columns - 2) {
                return rowIds;
            }
            if (ordinal == columns - 1) {
                return versions;
            }
            return batch.getColumnVector(ordinal);
        }

        @Override
        public int getSize() {
            return batch.getSize();
        }
    }
}
