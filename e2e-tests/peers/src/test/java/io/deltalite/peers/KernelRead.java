package io.deltalite.peers;

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
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;

/**
 * Delta Kernel's default engine reading the table the way Kernel's own examples do: scan files,
 * each file's Parquet data, {@link Scan#transformPhysicalData} (deletion vectors, partition
 * values).
 */
final class KernelRead implements TableReader {
    @Override
    public Scanned scan(Path table) throws Exception {
        Engine engine = DefaultEngine.create(new Configuration());
        Snapshot snapshot = TableManager.loadSnapshot(table.toString()).build(engine);
        Scan scan = snapshot.getScanBuilder().build();
        Row state = scan.getScanState(engine);
        StructType physical = ScanStateRow.getPhysicalDataReadSchema(state);
        Tally tally = new Tally();
        try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> files = batches.next().getRows()) {
                    while (files.hasNext()) {
                        Row file = files.next();
                        FileStatus status = InternalScanFileUtils.getAddFileStatus(file);
                        CloseableIterator<ColumnarBatch> data =
                                engine.getParquetHandler()
                                        .readParquetFiles(
                                                singleton(status), physical, Optional.empty())
                                        .map(FileReadResult::getData);
                        try (CloseableIterator<FilteredColumnarBatch> rows =
                                Scan.transformPhysicalData(engine, state, file, data)) {
                            while (rows.hasNext()) {
                                add(rows.next(), tally);
                            }
                        }
                    }
                }
            }
        }
        return tally.result();
    }

    private static void add(FilteredColumnarBatch filtered, Tally tally) {
        ColumnarBatch batch = filtered.getData();
        StructType schema = batch.getSchema();
        ColumnVector id = batch.getColumnVector(schema.indexOf("id"));
        ColumnVector day = batch.getColumnVector(schema.indexOf("day"));
        ColumnVector amount = batch.getColumnVector(schema.indexOf("amount"));
        ColumnVector note = batch.getColumnVector(schema.indexOf("note"));
        Optional<ColumnVector> selection = filtered.getSelectionVector();
        for (int row = 0; row < batch.getSize(); row++) {
            if (selection.isPresent()
                    && (selection.get().isNullAt(row) || !selection.get().getBoolean(row))) {
                continue;
            }
            tally.add(
                    id.getLong(row), day.getString(row), amount.getLong(row), note.getString(row));
        }
    }

    @Override
    public Shape shape(Path table) throws Exception {
        Engine engine = DefaultEngine.create(new Configuration());
        Snapshot snapshot = TableManager.loadSnapshot(table.toString()).build(engine);
        long files = 0;
        Set<String> vectors = new HashSet<>();
        try (CloseableIterator<FilteredColumnarBatch> batches =
                snapshot.getScanBuilder().build().getScanFiles(engine)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        files++;
                        DeletionVectorDescriptor vector =
                                InternalScanFileUtils.getDeletionVectorDescriptorFromRow(
                                        rows.next());
                        if (vector != null) {
                            vectors.add(
                                    vector.isInline()
                                            ? vector.getUniqueId()
                                            : vector.getPathOrInlineDv());
                        }
                    }
                }
            }
        }
        return new Shape(files, vectors.size());
    }

    private static CloseableIterator<FileStatus> singleton(FileStatus status) {
        return io.delta.kernel.internal.util.Utils.toCloseableIterator(List.of(status).iterator());
    }
}
