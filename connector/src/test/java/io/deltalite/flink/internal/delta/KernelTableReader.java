package io.deltalite.flink.internal.delta;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.SnapshotBuilder;
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
import io.deltalite.flink.internal.merge.ValueType;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * Reads a whole Delta table the way any Kernel-based reader does — a plain scan, deletion vectors
 * applied, partition columns restored by Kernel — independent of the merge engine's read path. Rows
 * come back in table-column order, values as described in {@link ValueType}.
 */
public final class KernelTableReader {
    private KernelTableReader() {}

    public static List<Object[]> readAll(String path) {
        return read(path, -1);
    }

    public static List<Object[]> readVersion(String path, long version) {
        return read(path, version);
    }

    public static long latestVersion(String path) {
        Engine engine = DefaultEngine.create(new Configuration());
        return TableManager.loadSnapshot(path).build(engine).getVersion();
    }

    private static List<Object[]> read(String path, long version) {
        Engine engine = DefaultEngine.create(new Configuration());
        SnapshotBuilder builder = TableManager.loadSnapshot(path);
        if (version >= 0) {
            builder = builder.atVersion(version);
        }
        Snapshot snapshot = builder.build(engine);
        StructType logical = snapshot.getSchema();
        List<ValueType.Field> fields = KernelSchemas.fromKernel(logical, path);
        StructType physical = new StructType();
        for (StructField field : logical.fields()) {
            if (!snapshot.getPartitionColumnNames().contains(field.getName())) {
                physical = physical.add(field);
            }
        }
        physical = physical.add(KernelSchemas.ROW_INDEX);
        Scan scan = snapshot.getScanBuilder().build();
        Row state = scan.getScanState(engine);
        List<Object[]> rows = new ArrayList<>();
        try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
            while (files.hasNext()) {
                try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
                    while (scanFiles.hasNext()) {
                        Row scanFile = scanFiles.next();
                        Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
                        String root = engine.getFileSystemClient().resolvePath(path);
                        String file =
                                DeltaTableSnapshot.absolutePath(
                                        new URI(root.endsWith("/") ? root : root + "/"),
                                        add.getString(add.getSchema().indexOf("path")));
                        FileStatus status =
                                FileStatus.of(
                                        file, add.getLong(add.getSchema().indexOf("size")), 0);
                        CloseableIterator<ColumnarBatch> data =
                                engine.getParquetHandler()
                                        .readParquetFiles(
                                                toIterator(status), physical, Optional.empty())
                                        .map(FileReadResult::getData);
                        try (CloseableIterator<FilteredColumnarBatch> logicalData =
                                Scan.transformPhysicalData(engine, state, scanFile, data)) {
                            while (logicalData.hasNext()) {
                                collect(logicalData.next(), logical, fields, rows);
                            }
                        }
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("reading " + path + " failed", e);
        }
        return rows;
    }

    private static void collect(
            FilteredColumnarBatch filtered,
            StructType logical,
            List<ValueType.Field> fields,
            List<Object[]> rows) {
        ColumnarBatch batch = filtered.getData();
        Optional<ColumnVector> selection = filtered.getSelectionVector();
        for (int row = 0; row < batch.getSize(); row++) {
            if (selection.isPresent()
                    && (selection.get().isNullAt(row) || !selection.get().getBoolean(row))) {
                continue;
            }
            Object[] values = new Object[fields.size()];
            for (int i = 0; i < fields.size(); i++) {
                int ordinal = batch.getSchema().indexOf(fields.get(i).name());
                values[i] =
                        ColumnValues.read(
                                batch.getColumnVector(ordinal), row, fields.get(i).type());
            }
            rows.add(values);
        }
    }

    private static CloseableIterator<FileStatus> toIterator(FileStatus status) {
        return KernelIterators.of(List.of(status).iterator());
    }
}
