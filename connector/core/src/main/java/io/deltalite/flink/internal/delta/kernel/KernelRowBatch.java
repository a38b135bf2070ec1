package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.List;
import java.util.Optional;

/**
 * A Kernel columnar batch seen by the engine: liveness comes from the deletion-vector selection (if
 * any) and from what the engine retained; keys are decoded on demand from the key columns.
 */
public final class KernelRowBatch implements RowBatch {
    private final ColumnarBatch data;
    private final long firstPosition;
    private final boolean[] live;
    private final int[] keyOrdinals;
    private final ValueType[] keyTypes;

    /** Decodes complete rows, or null when the batch holds only key columns. */
    private final TableRowDecoder rows;

    private ColumnVector[] keyVectors;

    private KernelRowBatch(
            ColumnarBatch data,
            long firstPosition,
            boolean[] live,
            int[] keyOrdinals,
            ValueType[] keyTypes,
            TableRowDecoder rows) {
        this.data = data;
        this.firstPosition = firstPosition;
        this.live = live;
        this.keyOrdinals = keyOrdinals;
        this.keyTypes = keyTypes;
        this.rows = rows;
    }

    /**
     * @param selection rows to consider (false or null means deleted), or empty for all rows
     * @param keyOrdinals positions of the match-key columns in {@code data}
     */
    public static KernelRowBatch of(
            ColumnarBatch data,
            Optional<ColumnVector> selection,
            int[] keyOrdinals,
            List<ValueType> keyTypes,
            TableRowDecoder rows) {
        boolean[] live = new boolean[data.getSize()];
        if (selection.isPresent()) {
            ColumnVector selected = selection.get();
            for (int row = 0; row < live.length; row++) {
                live[row] = !selected.isNullAt(row) && selected.getBoolean(row);
            }
        } else {
            java.util.Arrays.fill(live, true);
        }
        return new KernelRowBatch(
                data, -1, live, keyOrdinals, keyTypes.toArray(new ValueType[0]), rows);
    }

    /**
     * A batch of a file read in its physical order.
     *
     * @param firstPosition the position of the batch's first row in its file
     * @param deleted the file's deletion vector: the rows it holds are not live
     * @param rows decodes complete rows, or null when {@code data} holds only the key columns
     */
    public static KernelRowBatch of(
            ColumnarBatch data,
            long firstPosition,
            io.deltalite.flink.internal.merge.value.DeletionVector deleted,
            int[] keyOrdinals,
            List<ValueType> keyTypes,
            TableRowDecoder rows) {
        boolean[] live = new boolean[data.getSize()];
        java.util.Arrays.fill(live, true);
        deleted.clearDeleted(firstPosition, live);
        return new KernelRowBatch(
                data, firstPosition, live, keyOrdinals, keyTypes.toArray(new ValueType[0]), rows);
    }

    /**
     * Row {@code rowOf[i]} of {@code sources[sourceOf[i]]} for {@code i < count}, as one batch of
     * live new rows that points into the sources instead of copying them; null when a source is not
     * a batch of complete rows of the same columns (the caller then copies the rows).
     */
    public static KernelRowBatch gather(
            List<? extends RowBatch> sources, int[] sourceOf, int[] rowOf, int count) {
        ColumnarBatch[] data = new ColumnarBatch[sources.size()];
        KernelRowBatch first = null;
        for (int source = 0; source < data.length; source++) {
            if (!(sources.get(source) instanceof KernelRowBatch batch)
                    || batch.rows == null
                    || (first != null
                            && (first.rows != batch.rows
                                    || !first.data.getSchema().equals(batch.data.getSchema())))) {
                return null;
            }
            first = first == null ? batch : first;
            data[source] = batch.data;
        }
        if (first == null) {
            return null;
        }
        boolean[] live = new boolean[count];
        java.util.Arrays.fill(live, true);
        return new KernelRowBatch(
                new GatheredColumnarBatch(
                        first.data.getSchema(),
                        data,
                        java.util.Arrays.copyOf(sourceOf, count),
                        java.util.Arrays.copyOf(rowOf, count),
                        count),
                -1,
                live,
                first.keyOrdinals,
                first.keyTypes,
                first.rows);
    }

    @Override
    public int size() {
        return live.length;
    }

    @Override
    public long positionAt(int row) {
        if (firstPosition < 0) {
            throw new IllegalStateException("a batch of new rows has no positions in a file");
        }
        return firstPosition + row;
    }

    @Override
    public boolean isLive(int row) {
        return live[row];
    }

    private ColumnVector[] keyVectors() {
        if (keyVectors == null) {
            ColumnVector[] vectors = new ColumnVector[keyOrdinals.length];
            for (int i = 0; i < vectors.length; i++) {
                vectors[i] = data.getColumnVector(keyOrdinals[i]);
            }
            keyVectors = vectors;
        }
        return keyVectors;
    }

    @Override
    public RowKey keyAt(int row) {
        Object[] values = new Object[keyOrdinals.length];
        for (int i = 0; i < keyOrdinals.length; i++) {
            values[i] = ColumnValues.read(keyVectors()[i], row, keyTypes[i]);
            if (values[i] == null) {
                return null;
            }
        }
        return RowKey.adopt(values);
    }

    @Override
    public boolean hasLongKey() {
        return keyOrdinals.length == 1
                && keyTypes[0] instanceof ValueType.Primitive primitive
                && primitive.kind() == ValueType.Kind.BIGINT;
    }

    @Override
    public boolean isKeyNullAt(int row) {
        return keyVectors()[0].isNullAt(row);
    }

    @Override
    public long longKeyAt(int row) {
        return keyVectors()[0].getLong(row);
    }

    @Override
    public RowBatch retain(boolean[] keep) {
        boolean[] retained = new boolean[live.length];
        for (int row = 0; row < retained.length; row++) {
            retained[row] = live[row] && keep[row];
        }
        return new KernelRowBatch(data, firstPosition, retained, keyOrdinals, keyTypes, rows);
    }

    @Override
    public Object[] rowAt(int row) {
        if (rows == null) {
            throw new IllegalStateException("a batch read for its keys holds no complete rows");
        }
        return rows.decode(data, row);
    }

    @Override
    public Object valueAt(int row, int column) {
        if (rows == null) {
            throw new IllegalStateException("a batch read for its keys holds no complete rows");
        }
        return rows.decode(data, row, column);
    }

    public boolean hasLiveRows() {
        for (boolean row : live) {
            if (row) {
                return true;
            }
        }
        return false;
    }

    /** The batch as Kernel's writer takes it: the data plus which rows to write. */
    public FilteredColumnarBatch toFiltered() {
        for (boolean row : live) {
            if (!row) {
                return new FilteredColumnarBatch(data, Optional.of(new SelectionVector(live)));
            }
        }
        return new FilteredColumnarBatch(data, Optional.empty());
    }
}
