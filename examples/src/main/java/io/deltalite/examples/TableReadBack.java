package io.deltalite.examples;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Reads a table back with Delta Kernel's public API — an independent reader, not deltalite — to
 * check what the job wrote. Rows that a deletion vector deletes are left out, as every Delta reader
 * does: the files are read with their row index, which the vectors address.
 */
final class TableReadBack {
    private TableReadBack() {}

    static List<Object[]> readRows(String location) throws Exception {
        Engine engine = DefaultEngine.create(new Configuration());
        Snapshot snapshot = TableManager.loadSnapshot(location).build(engine);
        StructType logical = snapshot.getSchema();
        StructType physical = new StructType();
        for (StructField field : logical.fields()) {
            if (!snapshot.getPartitionColumnNames().contains(field.getName())) {
                physical = physical.add(field);
            }
        }
        // The row index, marked internal: what Kernel needs to apply a file's deletion vector.
        physical =
                physical.add(
                        StructField.DEFAULT_ROW_INDEX_COLUMN.withNewMetadata(
                                io.delta.kernel.types.FieldMetadata.builder()
                                        .fromMetadata(
                                                StructField.DEFAULT_ROW_INDEX_COLUMN.getMetadata())
                                        .putBoolean(StructField.IS_INTERNAL_COLUMN_KEY, true)
                                        .build()));
        Scan scan = snapshot.getScanBuilder().build();
        Row state = scan.getScanState(engine);
        String root = engine.getFileSystemClient().resolvePath(location);
        List<Object[]> rows = new ArrayList<>();
        try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
            while (files.hasNext()) {
                try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
                    while (scanFiles.hasNext()) {
                        Row scanFile = scanFiles.next();
                        Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
                        String relative = add.getString(add.getSchema().indexOf("path"));
                        String path =
                                new Path(new Path(root), new Path(new java.net.URI(relative)))
                                        .toString();
                        FileStatus file =
                                FileStatus.of(
                                        path, add.getLong(add.getSchema().indexOf("size")), 0);
                        CloseableIterator<ColumnarBatch> data =
                                engine.getParquetHandler()
                                        .readParquetFiles(single(file), physical, Optional.empty())
                                        .map(FileReadResult::getData);
                        try (CloseableIterator<FilteredColumnarBatch> batches =
                                Scan.transformPhysicalData(engine, state, scanFile, data)) {
                            while (batches.hasNext()) {
                                FilteredColumnarBatch batch = batches.next();
                                collect(batch.getData(), batch.getSelectionVector(), logical, rows);
                            }
                        }
                    }
                }
            }
        }
        return rows;
    }

    /**
     * Rows of every column of the table, in schema order, as plain Java values; a row the selection
     * vector leaves out (one a deletion vector deletes) is skipped.
     */
    private static void collect(
            ColumnarBatch batch,
            Optional<ColumnVector> selection,
            StructType logical,
            List<Object[]> rows) {
        for (int row = 0; row < batch.getSize(); row++) {
            if (selection.isPresent()
                    && (selection.get().isNullAt(row) || !selection.get().getBoolean(row))) {
                continue;
            }
            Object[] values = new Object[logical.length()];
            for (int i = 0; i < values.length; i++) {
                StructField field = logical.at(i);
                ColumnVector vector =
                        batch.getColumnVector(batch.getSchema().indexOf(field.getName()));
                values[i] = vector.isNullAt(row) ? null : value(vector, row, field.getDataType());
            }
            rows.add(values);
        }
    }

    /** Booleans, numbers and strings as such; dates as days and timestamps as microseconds. */
    private static Object value(ColumnVector vector, int row, DataType type) {
        if (type instanceof BooleanType) {
            return vector.getBoolean(row);
        } else if (type instanceof IntegerType || type instanceof DateType) {
            return vector.getInt(row);
        } else if (type instanceof LongType
                || type instanceof TimestampType
                || type instanceof TimestampNTZType) {
            return vector.getLong(row);
        } else if (type instanceof DoubleType) {
            return vector.getDouble(row);
        } else if (type instanceof DecimalType) {
            return vector.getDecimal(row);
        } else if (type instanceof StringType) {
            return vector.getString(row);
        }
        throw new IllegalArgumentException("the example reader does not read " + type);
    }

    private static CloseableIterator<FileStatus> single(FileStatus file) {
        java.util.Iterator<FileStatus> iterator = List.of(file).iterator();
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return iterator.hasNext();
            }

            @Override
            public FileStatus next() {
                return iterator.next();
            }

            @Override
            public void close() {}
        };
    }
}
