package io.deltalite.flink.cdc;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.event.SchemaChangeEvent;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.utils.SchemaUtils;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.source.RichParallelSourceFunction;

/**
 * A pipeline source replaying a script of events from its first subtask, checkpointed by its
 * position; the other subtasks send nothing (as a CDC source past its snapshot reads the log in one
 * subtask). As Flink CDC's pipeline sources do, it announces after a restore every table it sent
 * before, with a {@code CreateTableEvent} of the table's schema at that point (the schema operator
 * keeps no schemas across restarts).
 */
final class ScriptSource extends RichParallelSourceFunction<Event> implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    /** Scripts by id: the job refers to its script by id, not by a serialized copy. */
    private static final Map<String, List<Event>> SCRIPTS = new ConcurrentHashMap<>();

    /** How many times each script's replay started (its first, then one per restart). */
    private static final Map<String, java.util.concurrent.atomic.AtomicInteger> STARTS =
            new ConcurrentHashMap<>();

    private final String script;
    private final int eventsPerMillisecond;
    private transient ListState<Integer> positionState;
    private volatile int position;
    private volatile boolean running = true;

    /**
     * @param eventsPerMillisecond how many events it sends between pauses of a millisecond
     */
    ScriptSource(String id, List<Event> events, int eventsPerMillisecond) {
        SCRIPTS.put(id, events);
        this.script = id;
        this.eventsPerMillisecond = eventsPerMillisecond;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        positionState =
                context.getOperatorStateStore()
                        .getListState(new ListStateDescriptor<>("position", Integer.class));
        for (Integer restored : positionState.get()) {
            position = restored;
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        positionState.update(List.of(position));
    }

    @Override
    public void run(SourceContext<Event> context) throws Exception {
        if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() != 0) {
            return;
        }
        STARTS.computeIfAbsent(script, id -> new java.util.concurrent.atomic.AtomicInteger())
                .incrementAndGet();
        List<Event> events = SCRIPTS.get(script);
        synchronized (context.getCheckpointLock()) {
            schemasBefore(events, position)
                    .forEach(
                            (table, schema) ->
                                    context.collect(new CreateTableEvent(table, schema)));
        }
        while (running && position < events.size()) {
            synchronized (context.getCheckpointLock()) {
                context.collect(events.get(position));
                position++;
            }
            if (position % eventsPerMillisecond == 0) {
                Thread.sleep(1);
            }
        }
    }

    /** How many times the replay of script {@code id} started: once, and once per restart. */
    static int starts(String id) {
        java.util.concurrent.atomic.AtomicInteger starts = STARTS.get(id);
        return starts == null ? 0 : starts.get();
    }

    /** The schema of each table the first {@code count} events created, after them. */
    private static Map<TableId, Schema> schemasBefore(List<Event> events, int count) {
        Map<TableId, Schema> schemas = new LinkedHashMap<>();
        for (Event event : events.subList(0, count)) {
            if (event instanceof SchemaChangeEvent change) {
                schemas.put(
                        change.tableId(),
                        SchemaUtils.applySchemaChangeEvent(schemas.get(change.tableId()), change));
            }
        }
        return schemas;
    }

    @Override
    public void cancel() {
        running = false;
    }
}
