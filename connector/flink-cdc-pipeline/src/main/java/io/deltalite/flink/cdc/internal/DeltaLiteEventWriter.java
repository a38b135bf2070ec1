package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.internal.sink.DeltaLiteWriter;
import io.deltalite.flink.internal.sink.SinkConfig;
import io.deltalite.flink.internal.sink.WriteResult;
import io.deltalite.flink.internal.sink.WriterSlot;
import io.deltalite.flink.internal.sink.WriterState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.cdc.common.data.RecordData;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.event.SchemaChangeEvent;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.utils.SchemaUtils;
import org.apache.flink.types.RowKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A writer subtask of a pipeline: one deltalite writer per table ({@link DeltaLiteWriter}, as the
 * sink of one table has), opened at the table's first event — Flink CDC sends a table's {@code
 * CreateTableEvent} with its latest schema before anything else of it, also after a restore.
 *
 * <p><b>Schema changes.</b> Before the metadata applier changes a table, the framework flushes
 * every writer ({@code FlushEvent} → {@link #flush(boolean) flush(false)}): each table's writer
 * merges what it buffered, in the schema it buffered it in, and keeps the results for the
 * checkpoint in progress. The change then reaches the writer as a {@link SchemaChangeEvent}, after
 * the applier committed it: the table's writer continues on the changed table ({@link
 * DeltaLiteWriter#continueWith}), its merged results and pending checkpoints carried over. Flink
 * also calls {@code flush(false)} right before each checkpoint's {@link #prepareCommit()}; that one
 * merges nothing here, so that the checkpoint's last merge still compacts ({@link FlushOrigin}).
 *
 * <p><b>Keys.</b> Each table is written distributed by key: the pipeline's partitioner sends every
 * change of a key to the writer {@link KeyHashFunctionProvider} names, which is the writer whose
 * key groups hold it ({@link WriterSlot}); each table's writer checks it.
 */
final class DeltaLiteEventWriter
        implements StatefulSinkWriter<Event, PipelineWriterState>,
                CommittingSinkWriter<Event, TableCommittable> {
    private static final Logger LOG = LoggerFactory.getLogger(DeltaLiteEventWriter.class);

    private final PipelineSettings settings;
    private final WriterInitContext context;
    private final WriterSlot slot;
    private final Map<TableId, TableWriter> tables = new LinkedHashMap<>();

    /** Restored states of tables whose writer is not open yet, by location. */
    private final Map<String, List<WriterState>> restored = new LinkedHashMap<>();

    private long lastCheckpointId;

    /** Merges tables side by side ({@link #forEachTable}). */
    private final TablesSideBySide sideBySide;

    /** One table's writer and the schema of the records it takes. */
    private static final class TableWriter {
        final TableId id;
        Schema schema;
        TableSpec spec;
        PipelineRecords records;
        DeltaLiteWriter writer;

        /**
         * Whether the table is partitioned by a column outside its key: an update may then move a
         * row to another partition.
         */
        boolean partitionedOutsideKey;

        /** Reads the primary-key columns of a record (to tell an update that changes the key). */
        RecordData.FieldGetter[] keyFields;

        TableWriter(TableId id) {
            this.id = id;
        }
    }

    DeltaLiteEventWriter(
            PipelineSettings settings,
            WriterInitContext context,
            Collection<PipelineWriterState> restoredStates) {
        this.settings = settings;
        this.context = context;
        int parallelism = context.getTaskInfo().getNumberOfParallelSubtasks();
        this.slot =
                new WriterSlot(
                        context.getTaskInfo().getIndexOfThisSubtask(),
                        parallelism,
                        KeyHashFunctionProvider.keyGroups(parallelism));
        for (PipelineWriterState state : restoredStates) {
            restored.computeIfAbsent(state.location(), l -> new ArrayList<>()).add(state.state());
        }
        this.lastCheckpointId = context.getRestoredCheckpointId().orElse(0);
        this.sideBySide =
                new TablesSideBySide(settings.tablesAtOnce(), "deltalite-tables-" + slot.subtask());
    }

    @Override
    public void write(Event event, Context context) throws IOException {
        if (event instanceof CreateTableEvent create) {
            schemaOf(create.tableId(), create.getSchema());
        } else if (event instanceof SchemaChangeEvent change) {
            TableWriter table = tables.get(change.tableId());
            if (table == null) {
                throw new IllegalStateException(
                        "A schema change of "
                                + change.tableId()
                                + " reached the deltalite sink before the table's schema did.");
            }
            schemaOf(change.tableId(), SchemaUtils.applySchemaChangeEvent(table.schema, change));
        } else if (event instanceof DataChangeEvent change) {
            write(change, context);
        } else {
            throw new IllegalArgumentException(
                    "The deltalite sink does not know the event " + event.getClass().getName());
        }
    }

    /** Opens the table's writer, or continues it on {@code schema} when that changed. */
    private void schemaOf(TableId id, Schema schema) {
        TableWriter table = tables.get(id);
        if (table != null && table.schema.equals(schema)) {
            return; // the same table sent again
        }
        SinkConfig config = settings.tableConfig(id, schema);
        for (TableWriter other : tables.values()) {
            if (!other.id.equals(id) && other.spec.location().equals(config.location())) {
                throw new IllegalStateException(
                        "The pipeline tables "
                                + other.id
                                + " and "
                                + id
                                + " both map to the Delta table at "
                                + config.location()
                                + ": two tables would write one Delta table. Put {schema} (and"
                                + " {namespace}) into table.path-pattern.");
            }
        }
        if (table == null) {
            table = new TableWriter(id);
            List<WriterState> states = restored.remove(config.location());
            table.writer =
                    new DeltaLiteWriter(
                            config,
                            context,
                            states == null ? List.of() : states,
                            slot,
                            context.metricGroup().addGroup("table", id.toString()));
            table.writer.startsAfterCheckpoint(lastCheckpointId);
            tables.put(id, table);
        } else {
            LOG.info("Table {} has a new schema in the pipeline: {}", id, schema);
            table.writer.mergeBuffered();
            table.writer.continueWith(config);
        }
        table.schema = schema;
        table.spec = TableSpec.of(id.toString(), config);
        table.records = PipelineRecords.of(schema);
        table.keyFields =
                schema.primaryKeys().stream()
                        .map(
                                key -> {
                                    int index = schema.getColumnNames().indexOf(key);
                                    return RecordData.createFieldGetter(
                                            schema.getColumnDataTypes().get(index), index);
                                })
                        .toArray(RecordData.FieldGetter[]::new);
        // The table's own partitioning: a table that exists keeps it whatever the pipeline says.
        table.partitionedOutsideKey =
                !schema.primaryKeys().containsAll(table.writer.tablePartitionColumns());
    }

    private void write(DataChangeEvent change, Context context) throws IOException {
        TableWriter table = tables.get(change.tableId());
        if (table == null) {
            throw new IllegalStateException(
                    "A change of "
                            + change.tableId()
                            + " reached the deltalite sink before the table's schema did.");
        }
        switch (change.op()) {
            case INSERT:
                table.writer.write(table.records.toRow(change.after(), RowKind.INSERT), context);
                break;
            case REPLACE:
                if (table.partitionedOutsideKey) {
                    throw withoutOldRow(table, change);
                }
                table.writer.write(table.records.toRow(change.after(), RowKind.INSERT), context);
                break;
            case UPDATE:
                if (change.before() != null && keyChanged(table, change.before(), change.after())) {
                    throw new IllegalArgumentException(
                            "An UPDATE of "
                                    + change.tableId()
                                    + " changes the row's primary key "
                                    + table.schema.primaryKeys()
                                    + ". deltalite writes each key from one writer, and the"
                                    + " pipeline routes an event by its new key only, so the old"
                                    + " row could be left behind; nothing of this checkpoint was"
                                    + " committed. Make the source send a key change as a DELETE"
                                    + " and an INSERT (as Debezium-based sources do).");
                }
                if (table.partitionedOutsideKey) {
                    // The update may move the row to another partition: its old row goes first
                    // (a before image of its key alone deletes the key wherever its row is).
                    if (change.before() == null) {
                        throw withoutOldRow(table, change);
                    }
                    table.writer.write(
                            table.records.toRow(change.before(), RowKind.UPDATE_BEFORE), context);
                }
                table.writer.write(
                        table.records.toRow(change.after(), RowKind.UPDATE_AFTER), context);
                break;
            case DELETE:
                table.writer.write(table.records.toRow(change.before(), RowKind.DELETE), context);
                break;
            default:
                throw new IllegalArgumentException(
                        "The deltalite sink does not know the change kind " + change.op());
        }
    }

    /**
     * A change that replaces a row of a table partitioned outside its key without naming the old
     * row: the row may be in another partition, where it would stay.
     */
    private static IllegalArgumentException withoutOldRow(
            TableWriter table, DataChangeEvent change) {
        return new IllegalArgumentException(
                "A "
                        + change.op()
                        + " of "
                        + change.tableId()
                        + " does not carry the row it replaces, and the Delta table at "
                        + table.spec.location()
                        + " is partitioned by "
                        + table.writer.tablePartitionColumns()
                        + ", outside its primary key "
                        + table.schema.primaryKeys()
                        + ": the old row may be in another partition, where it would stay."
                        + " Nothing of this checkpoint was committed. Make the source send the"
                        + " old row (or its key) with each update, or partition the table by"
                        + " primary-key columns only.");
    }

    private static boolean keyChanged(TableWriter table, RecordData before, RecordData after) {
        for (RecordData.FieldGetter key : table.keyFields) {
            if (!Objects.equals(key.getFieldOrNull(before), key.getFieldOrNull(after))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        if (endOfInput) {
            for (TableWriter table : tables.values()) {
                table.writer.flush(true);
            }
        } else if (!FlushOrigin.isCheckpoint()) {
            forEachTable(
                    table -> {
                        table.writer.mergeBuffered();
                        return List.of();
                    });
        }
    }

    @Override
    public Collection<TableCommittable> prepareCommit() throws IOException, InterruptedException {
        return forEachTable(
                table -> {
                    List<TableCommittable> committables = new ArrayList<>();
                    for (WriteResult result : table.writer.prepareCommit()) {
                        committables.add(new TableCommittable(table.spec, -1, result));
                    }
                    return committables;
                });
    }

    /**
     * Runs {@code work} for every table, {@code tables.parallel-merges} tables at a time (each
     * table's merges wait on its storage; each holds what one table's merge does, up to
     * max-parallel-files output files), and returns what it gave, in the tables' order.
     */
    private List<TableCommittable> forEachTable(TableWork work)
            throws IOException, InterruptedException {
        List<java.util.concurrent.Callable<List<TableCommittable>>> tasks = new ArrayList<>();
        for (TableWriter table : tables.values()) {
            tasks.add(() -> work.run(table));
        }
        return sideBySide.run(tasks);
    }

    /** What {@link #forEachTable} runs for one table. */
    @FunctionalInterface
    private interface TableWork {
        List<TableCommittable> run(TableWriter table);
    }

    @Override
    public List<PipelineWriterState> snapshotState(long checkpointId) {
        lastCheckpointId = Math.max(lastCheckpointId, checkpointId);
        List<PipelineWriterState> states = new ArrayList<>();
        for (TableWriter table : tables.values()) {
            for (WriterState state : table.writer.snapshotState(checkpointId)) {
                states.add(new PipelineWriterState(table.spec.location(), state));
            }
        }
        // Tables not seen since the restore keep what they had.
        restored.forEach(
                (location, kept) ->
                        kept.forEach(
                                state -> states.add(new PipelineWriterState(location, state))));
        return states;
    }

    @Override
    public void close() throws Exception {
        try {
            // No table's work may still run while its writer closes (and deletes what no
            // checkpoint took).
            sideBySide.close();
        } finally {
            closeTables();
        }
    }

    private void closeTables() throws Exception {
        Exception first = null;
        for (TableWriter table : tables.values()) {
            try {
                table.writer.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        tables.clear();
        if (first != null) {
            throw first;
        }
    }
}
