package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.types.StructType;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.List;

/**
 * Rows held in memory (in table-column order) as a Kernel batch of the data columns, the layout of
 * the data files; partition columns live only in the log.
 */
public final class RowsColumnarBatch implements ColumnarBatch {
    private final StructType dataSchema;
    private final ColumnVector[] vectors;
    private final int size;

    public RowsColumnarBatch(TableSchema schema, StructType dataSchema, List<Object[]> rows) {
        this(schema, dataSchema, rows, null, 0);
    }

    /**
     * @param fileSchema the data columns, followed in a table with row tracking by its two row
     *     tracking columns ({@link RowTrackingVectors})
     * @param rowIds in a table with row tracking, the row id each row keeps ({@code
     *     rowIds[rowIdsFrom + i]} for {@code rows.get(i)}, negative for a fresh one), or null when
     *     all are fresh
     */
    public RowsColumnarBatch(
            TableSchema schema,
            StructType fileSchema,
            List<Object[]> rows,
            long[] rowIds,
            int rowIdsFrom) {
        this.dataSchema = fileSchema;
        this.size = rows.size();
        List<ValueType.Field> dataColumns = schema.dataColumns();
        int[] indexes = new int[dataColumns.size()];
        Object[][] columns = new Object[dataColumns.size()][size];
        for (int column = 0; column < indexes.length; column++) {
            indexes[column] = schema.indexOf(dataColumns.get(column).name());
        }
        // Row by row: each row's values are read while its array is in the cache.
        int row = 0;
        for (Object[] values : rows) {
            for (int column = 0; column < indexes.length; column++) {
                columns[column][row] = values[indexes[column]];
            }
            row++;
        }
        this.vectors = new ColumnVector[fileSchema.length()];
        for (int column = 0; column < indexes.length; column++) {
            vectors[column] =
                    new ObjectColumnVector(dataColumns.get(column).type(), columns[column]);
        }
        if (vectors.length == indexes.length + 2) {
            vectors[indexes.length] = RowTrackingVectors.newRowIds(rowIds, rowIdsFrom, size);
            vectors[indexes.length + 1] = RowTrackingVectors.newCommitVersions(size);
        } else if (vectors.length != indexes.length) {
            throw new IllegalArgumentException(
                    "a file schema of " + vectors.length + " columns for " + indexes.length);
        }
    }

    @Override
    public StructType getSchema() {
        return dataSchema;
    }

    @Override
    public ColumnVector getColumnVector(int ordinal) {
        return vectors[ordinal];
    }

    @Override
    public int getSize() {
        return size;
    }
}
