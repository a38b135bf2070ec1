package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;

/** A boolean column vector marking which rows of a batch are written. */
final class SelectionVector implements ColumnVector {
    private final boolean[] selected;

    SelectionVector(boolean[] selected) {
        this.selected = selected;
    }

    @Override
    public DataType getDataType() {
        return BooleanType.BOOLEAN;
    }

    @Override
    public int getSize() {
        return selected.length;
    }

    @Override
    public void close() {}

    @Override
    public boolean isNullAt(int rowId) {
        return false;
    }

    @Override
    public boolean getBoolean(int rowId) {
        return selected[rowId];
    }
}
