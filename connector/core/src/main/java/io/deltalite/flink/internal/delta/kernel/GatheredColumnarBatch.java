package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.StructType;
import java.math.BigDecimal;

/**
 * Rows picked from several batches of the same schema, seen as one batch without copying a value:
 * row {@code i} is row {@code rowOf[i]} of {@code sources[sourceOf[i]]}. This is how a merge by key
 * hands its output to Kernel's Parquet writer column by column, instead of decoding every row to
 * Java objects and encoding it again.
 *
 * <p>The sources must not change while this batch is in use. Kernel's Parquet reader allocates new
 * arrays for every batch it returns, so holding on to its batches is safe.
 */
final class GatheredColumnarBatch implements ColumnarBatch {
    private final StructType schema;
    private final ColumnarBatch[] sources;
    private final int[] sourceOf;
    private final int[] rowOf;
    private final int size;
    private final ColumnVector[] columns;

    GatheredColumnarBatch(
            StructType schema, ColumnarBatch[] sources, int[] sourceOf, int[] rowOf, int size) {
        this.schema = schema;
        this.sources = sources;
        this.sourceOf = sourceOf;
        this.rowOf = rowOf;
        this.size = size;
        this.columns = new ColumnVector[schema.length()];
    }

    @Override
    public StructType getSchema() {
        return schema;
    }

    @Override
    public ColumnVector getColumnVector(int ordinal) {
        if (columns[ordinal] == null) {
            ColumnVector[] vectors = new ColumnVector[sources.length];
            for (int source = 0; source < vectors.length; source++) {
                vectors[source] = sources[source].getColumnVector(ordinal);
            }
            columns[ordinal] =
                    new GatheredVector(
                            schema.at(ordinal).getDataType(), vectors, sourceOf, rowOf, size);
        }
        return columns[ordinal];
    }

    @Override
    public int getSize() {
        return size;
    }

    /** One column of the gathered rows: every read goes to the source row it stands for. */
    private static final class GatheredVector implements ColumnVector {
        private final DataType type;
        private final ColumnVector[] sources;
        private final int[] sourceOf;
        private final int[] rowOf;
        private final int size;
        private ColumnVector[] children;

        GatheredVector(
                DataType type, ColumnVector[] sources, int[] sourceOf, int[] rowOf, int size) {
            this.type = type;
            this.sources = sources;
            this.sourceOf = sourceOf;
            this.rowOf = rowOf;
            this.size = size;
        }

        @Override
        public DataType getDataType() {
            return type;
        }

        @Override
        public int getSize() {
            return size;
        }

        @Override
        public void close() {
            // The sources belong to the batches they were read in.
        }

        private ColumnVector source(int rowId) {
            return sources[sourceOf[rowId]];
        }

        @Override
        public boolean isNullAt(int rowId) {
            return source(rowId).isNullAt(rowOf[rowId]);
        }

        @Override
        public boolean getBoolean(int rowId) {
            return source(rowId).getBoolean(rowOf[rowId]);
        }

        @Override
        public byte getByte(int rowId) {
            return source(rowId).getByte(rowOf[rowId]);
        }

        @Override
        public short getShort(int rowId) {
            return source(rowId).getShort(rowOf[rowId]);
        }

        @Override
        public int getInt(int rowId) {
            return source(rowId).getInt(rowOf[rowId]);
        }

        @Override
        public long getLong(int rowId) {
            return source(rowId).getLong(rowOf[rowId]);
        }

        @Override
        public float getFloat(int rowId) {
            return source(rowId).getFloat(rowOf[rowId]);
        }

        @Override
        public double getDouble(int rowId) {
            return source(rowId).getDouble(rowOf[rowId]);
        }

        @Override
        public byte[] getBinary(int rowId) {
            return source(rowId).getBinary(rowOf[rowId]);
        }

        @Override
        public String getString(int rowId) {
            return source(rowId).getString(rowOf[rowId]);
        }

        @Override
        public BigDecimal getDecimal(int rowId) {
            return source(rowId).getDecimal(rowOf[rowId]);
        }

        @Override
        public MapValue getMap(int rowId) {
            return source(rowId).getMap(rowOf[rowId]);
        }

        @Override
        public ArrayValue getArray(int rowId) {
            return source(rowId).getArray(rowOf[rowId]);
        }

        @Override
        public ColumnVector getChild(int ordinal) {
            if (children == null) {
                children = new ColumnVector[((StructType) type).length()];
            }
            if (children[ordinal] == null) {
                ColumnVector[] vectors = new ColumnVector[sources.length];
                for (int source = 0; source < vectors.length; source++) {
                    vectors[source] = sources[source].getChild(ordinal);
                }
                children[ordinal] =
                        new GatheredVector(
                                ((StructType) type).at(ordinal).getDataType(),
                                vectors,
                                sourceOf,
                                rowOf,
                                size);
            }
            return children[ordinal];
        }
    }
}
