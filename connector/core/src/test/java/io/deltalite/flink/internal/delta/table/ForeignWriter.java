package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.delta.kernel.KernelIterators;
import io.deltalite.flink.internal.delta.kernel.KernelSchemas;
import io.deltalite.flink.internal.delta.kernel.PartitionValueCodec;
import io.deltalite.flink.internal.delta.kernel.RowsColumnarBatch;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * Appends a data file to a table the way another Kernel-based writer would, through Kernel's public
 * API only, so that tests can give the engine files it did not write itself.
 */
public final class ForeignWriter {
    /** What the add action of the appended file says about its content. */
    public enum Statistics {
        /** No statistics at all: the add action has no {@code stats}. */
        NONE,
        /** Exact per-column bounds, serialized by Kernel as any writer would. */
        EXACT
    }

    private ForeignWriter() {}

    /**
     * Rewrites every live file of the table into one new file with the same rows, in one commit, as
     * a compaction by another writer would.
     *
     * @return the fully qualified path of the new file
     */
    public static String compact(String location, TableSchema schema) {
        if (schema.isPartitioned()) {
            throw new IllegalArgumentException("compacts unpartitioned tables only");
        }
        List<Object[]> rows = KernelTableReader.readAll(location);
        Engine engine = DefaultEngine.create(new Configuration());
        io.delta.kernel.Snapshot snapshot =
                io.delta.kernel.TableManager.loadSnapshot(location).build(engine);
        List<Row> removes = new ArrayList<>();
        long now = System.currentTimeMillis();
        try (CloseableIterator<FilteredColumnarBatch> batches =
                snapshot.getScanBuilder().build().getScanFiles(engine)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> scanFiles = batches.next().getRows()) {
                    while (scanFiles.hasNext()) {
                        Row scanFile = scanFiles.next();
                        removes.add(
                                KernelInternals.removeAction(
                                        scanFile.getStruct(scanFile.getSchema().indexOf("add")),
                                        now,
                                        true));
                    }
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return write(
                engine,
                snapshot,
                schema,
                PartitionValues.UNPARTITIONED,
                rows,
                Statistics.EXACT,
                removes);
    }

    /**
     * Writes {@code rows} (in table-column order, all of {@code partition}) as one data file and
     * commits it in a blind append.
     *
     * @return the fully qualified path of the file
     */
    public static String append(
            String location,
            TableSchema schema,
            PartitionValues partition,
            List<Object[]> rows,
            Statistics statistics) {
        Engine engine = DefaultEngine.create(new Configuration());
        return write(
                engine,
                io.delta.kernel.TableManager.loadSnapshot(location).build(engine),
                schema,
                partition,
                rows,
                statistics,
                List.of());
    }

    private static String write(
            Engine engine,
            io.delta.kernel.Snapshot snapshot,
            TableSchema schema,
            PartitionValues partition,
            List<Object[]> rows,
            Statistics statistics,
            List<Row> removes) {
        Transaction transaction =
                snapshot.buildUpdateTableTransaction("foreign-writer", Operation.WRITE)
                        .build(engine);
        Row state = transaction.getTransactionState(engine);
        DataWriteContext context =
                Transaction.getWriteContext(
                        engine, state, new PartitionValueCodec(schema).toLiterals(partition));
        StructType dataSchema = KernelSchemas.dataSchema(schema);
        List<Column> statisticsColumns = new ArrayList<>();
        schema.dataColumns().forEach(column -> statisticsColumns.add(new Column(column.name())));
        List<DataFileStatus> written = new ArrayList<>();
        try (CloseableIterator<DataFileStatus> statuses =
                engine.getParquetHandler()
                        .writeParquetFiles(
                                KernelFileStore.targetDirectory(context),
                                KernelIterators.of(
                                        List.of(
                                                        new FilteredColumnarBatch(
                                                                new RowsColumnarBatch(
                                                                        schema, dataSchema, rows),
                                                                Optional.empty()))
                                                .iterator()),
                                statisticsColumns)) {
            while (statuses.hasNext()) {
                DataFileStatus status = statuses.next();
                written.add(
                        statistics == Statistics.EXACT
                                ? status
                                : new DataFileStatus(
                                        status.getPath(),
                                        status.getSize(),
                                        status.getModificationTime(),
                                        Optional.empty()));
            }
            if (written.size() != 1) {
                throw new IllegalStateException("expected one file, wrote " + written.size());
            }
            List<Row> actions = new ArrayList<>(removes);
            Transaction.generateAppendActions(
                            engine, state, KernelIterators.of(written.iterator()), context)
                    .forEachRemaining(actions::add);
            TransactionCommitResult result =
                    transaction.commit(
                            engine,
                            CloseableIterable.inMemoryIterable(
                                    KernelIterators.of(actions.iterator())));
            if (result.getVersion() < 0) {
                throw new IllegalStateException("not committed");
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return written.get(0).getPath();
    }
}
