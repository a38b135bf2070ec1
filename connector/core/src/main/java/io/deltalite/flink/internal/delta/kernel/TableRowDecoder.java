package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.data.ColumnarBatch;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.List;

/**
 * Decodes a row of a batch of data columns (the layout of the table's data files) into the engine's
 * row form: table-column order, partition columns left null. The inverse of {@link
 * RowsColumnarBatch}.
 */
public final class TableRowDecoder {
    private final int width;
    private final int[] tableIndexes;
    private final ValueType[] types;

    public TableRowDecoder(TableSchema schema) {
        List<ValueType.Field> dataColumns = schema.dataColumns();
        this.width = schema.columns().size();
        this.tableIndexes = new int[dataColumns.size()];
        this.types = new ValueType[dataColumns.size()];
        for (int column = 0; column < tableIndexes.length; column++) {
            ValueType.Field field = dataColumns.get(column);
            tableIndexes[column] = schema.indexOf(field.name());
            types[column] = field.type();
        }
    }

    /** The value of table column {@code tableColumn} in {@code row} of {@code data}. */
    Object decode(ColumnarBatch data, int row, int tableColumn) {
        for (int column = 0; column < tableIndexes.length; column++) {
            if (tableIndexes[column] == tableColumn) {
                return ColumnValues.read(data.getColumnVector(column), row, types[column]);
            }
        }
        throw new IllegalArgumentException("column " + tableColumn + " is not in data files");
    }

    Object[] decode(ColumnarBatch data, int row) {
        Object[] values = new Object[width];
        for (int column = 0; column < tableIndexes.length; column++) {
            values[tableIndexes[column]] =
                    ColumnValues.read(data.getColumnVector(column), row, types[column]);
        }
        return values;
    }
}
