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
        this.dataSchema = dataSchema;
        this.size = rows.size();
        List<ValueType.Field> dataColumns = schema.dataColumns();
        this.vectors = new ColumnVector[dataColumns.size()];
        for (int column = 0; column < vectors.length; column++) {
            ValueType.Field field = dataColumns.get(column);
            int index = schema.indexOf(field.name());
            Object[] values = new Object[size];
            for (int row = 0; row < size; row++) {
                values[row] = rows.get(row)[index];
            }
            vectors[column] = new ObjectColumnVector(field.type(), values);
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
