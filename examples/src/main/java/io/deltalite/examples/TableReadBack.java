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
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Reads the orders table back with Delta Kernel's public API — an independent reader, not deltalite
 * — to check what the job wrote. (deltalite never writes deletion vectors, so the files are read as
 * they are.)
 */
final class TableReadBack {
    private TableReadBack() {}

    static List<Object[]> readOrders(String location) throws Exception {
        Engine engine = DefaultEngine.create(new Configuration());
        Snapshot snapshot = TableManager.loadSnapshot(location).build(engine);
        StructType logical = snapshot.getSchema();
        StructType physical = new StructType();
        for (StructField field : logical.fields()) {
            if (!snapshot.getPartitionColumnNames().contains(field.getName())) {
                physical = physical.add(field);
            }
        }
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
                                collect(batches.next().getData(), rows);
                            }
                        }
                    }
                }
            }
        }
        return rows;
    }

    private static void collect(ColumnarBatch batch, List<Object[]> rows) {
        StructType schema = batch.getSchema();
        ColumnVector id = batch.getColumnVector(schema.indexOf("order_id"));
        ColumnVector day = batch.getColumnVector(schema.indexOf("day"));
        ColumnVector customer = batch.getColumnVector(schema.indexOf("customer"));
        ColumnVector amount = batch.getColumnVector(schema.indexOf("amount"));
        ColumnVector status = batch.getColumnVector(schema.indexOf("status"));
        ColumnVector updatedAt = batch.getColumnVector(schema.indexOf("updated_at"));
        for (int row = 0; row < batch.getSize(); row++) {
            BigDecimal value = amount.isNullAt(row) ? null : amount.getDecimal(row);
            rows.add(
                    new Object[] {
                        id.getLong(row),
                        day.getInt(row),
                        customer.getString(row),
                        value,
                        status.getString(row),
                        updatedAt.getLong(row)
                    });
        }
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
