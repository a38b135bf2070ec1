package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.SchemaEvolutionPolicy;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.sink.SchemaEvolution;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.cdc.common.event.AddColumnEvent;
import org.apache.flink.cdc.common.event.AlterColumnTypeEvent;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.DropColumnEvent;
import org.apache.flink.cdc.common.event.RenameColumnEvent;
import org.apache.flink.cdc.common.event.SchemaChangeEvent;
import org.apache.flink.cdc.common.event.SchemaChangeEventType;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.exceptions.SchemaEvolveException;
import org.apache.flink.cdc.common.exceptions.UnsupportedSchemaChangeEventException;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.sink.MetadataApplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the Delta tables of a Flink CDC pipeline and changes their schemas, on the JobManager,
 * after every sink subtask flushed (the framework's protocol, {@code ../shared/CDC-PIPELINE.md}).
 *
 * <p>Every event is applied by opening the table with the schema the event leads to, through the
 * same path a starting sink takes ({@link DeltaTable#open}): the table's schema changes only as
 * that path allows (nullable columns added, types widened, NOT NULL relaxed), in one Delta version,
 * or not at all. Renames and drops are refused: after a failover the pipeline replays rows written
 * before them under the column's old name, which the changed table would no longer have. So an
 * event applied twice — the framework re-sends schema changes after a failover, and a {@code
 * CreateTableEvent} for a table that exists — changes nothing the second time: the table already
 * has the schema. What Delta or deltalite cannot do is refused with a {@link SchemaEvolveException}
 * (an {@link UnsupportedSchemaChangeEventException} for an event type or a change the table cannot
 * take at all) that names the table, the column and why; nothing is committed then.
 *
 * <p>Columns are added at the end of the table's schema whatever position the event gives: Delta
 * finds columns by name, so the position only orders {@code SELECT *}. Column comments are kept
 * (field metadata {@code comment}); the table's own comment is not (see {@link #columnComments}).
 */
public final class DeltaLiteMetadataApplier implements MetadataApplier {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(DeltaLiteMetadataApplier.class);

    private static final Set<SchemaChangeEventType> SUPPORTED =
            EnumSet.of(
                    SchemaChangeEventType.CREATE_TABLE,
                    SchemaChangeEventType.ADD_COLUMN,
                    SchemaChangeEventType.ALTER_COLUMN_TYPE);

    /**
     * The table property naming the pipeline table a Delta table was created for: two pipeline
     * tables must never write one Delta table (a path pattern without {@code {schema}} can map
     * {@code db1.orders} and {@code db2.orders} to one location).
     */
    static final String PIPELINE_TABLE = "deltalite.pipeline.table";

    private final PipelineSettings settings;
    private final TableLocations locations;
    private final StorageSettings storage;
    private Set<SchemaChangeEventType> accepted = EnumSet.copyOf(SUPPORTED);

    /**
     * @param settings where the tables live, and what a table the pipeline creates gets: the
     *     partition columns given for it where its {@code CreateTableEvent} names none (a table
     *     that exists keeps its own), the table properties, deletion vectors unless the sink writes
     *     copy-on-write — as a table the sink of one table creates
     */
    public DeltaLiteMetadataApplier(PipelineSettings settings) {
        this.settings = settings;
        this.locations = settings.locations();
        this.storage = settings.storage();
    }

    @Override
    public MetadataApplier setAcceptedSchemaEvolutionTypes(Set<SchemaChangeEventType> types) {
        accepted =
                types.isEmpty()
                        ? EnumSet.noneOf(SchemaChangeEventType.class)
                        : EnumSet.copyOf(types);
        return this;
    }

    @Override
    public boolean acceptsSchemaEvolutionType(SchemaChangeEventType type) {
        return accepted.contains(type);
    }

    @Override
    public Set<SchemaChangeEventType> getSupportedSchemaEvolutionTypes() {
        return EnumSet.copyOf(SUPPORTED);
    }

    @Override
    public void applySchemaChange(SchemaChangeEvent event) throws SchemaEvolveException {
        TableId table = event.tableId();
        String location = locations.of(table);
        try {
            if (event instanceof CreateTableEvent create) {
                create(table, location, create.getSchema());
            } else if (event instanceof AddColumnEvent add) {
                addColumns(event, table, location, add);
            } else if (event instanceof AlterColumnTypeEvent alter) {
                alterTypes(event, table, location, alter);
            } else if (event instanceof RenameColumnEvent || event instanceof DropColumnEvent) {
                throw unsupported(
                        event,
                        location,
                        " ("
                                + event
                                + "): after a failover the pipeline replays the changes written"
                                + " before the event under the column's old name, which the"
                                + " table would no longer have. Run the pipeline with"
                                + " schema.change.behavior: lenient (the default), which keeps a"
                                + " dropped column (nullable) and adds a renamed one under its new"
                                + " name; or exclude the event (exclude.schema.changes).");
            } else {
                throw unsupported(
                        event,
                        location,
                        ": a pipeline only creates tables and changes their columns. Exclude the"
                                + " event from the sink (exclude.schema.changes) and truncate or"
                                + " drop the table yourself (for example with Spark).");
            }
        } catch (SchemaEvolveException e) {
            throw e;
        } catch (DeltaLiteException e) {
            throw new SchemaEvolveException(event, couldNotApply(event, location, e), e);
        } catch (RuntimeException e) {
            throw new SchemaEvolveException(event, couldNotApply(event, location, e), e);
        }
    }

    /** "deltalite does not apply TYPE to the Delta table of T at L" and why. */
    private static UnsupportedSchemaChangeEventException unsupported(
            SchemaChangeEvent event, String location, String why) {
        return new UnsupportedSchemaChangeEventException(
                event,
                "deltalite does not apply "
                        + event.getType().getTag()
                        + " to the Delta table of "
                        + event.tableId()
                        + " at "
                        + location
                        + why);
    }

    /** "deltalite could not apply TYPE to the Delta table of T at L: why". */
    private static String couldNotApply(SchemaChangeEvent event, String location, Exception e) {
        return "deltalite could not apply "
                + event.getType().getTag()
                + " to the Delta table of "
                + event.tableId()
                + " at "
                + location
                + ": "
                + e.getMessage();
    }

    /** Creates the table, or checks that the one there can take the schema. */
    private void create(TableId table, String location, Schema schema) {
        if (schema.primaryKeys().isEmpty()) {
            throw new SchemaEvolveException(
                    new CreateTableEvent(table, schema),
                    "The table "
                            + table
                            + " has no primary key, so deltalite cannot apply its updates and"
                            + " deletes to a Delta table at "
                            + location
                            + " (each would add a row or fail). Give it one in the pipeline"
                            + " (transform: - source-table: "
                            + table
                            + "  primary-keys: ...), or leave the table out of the source.");
        }
        requireNotAnotherTables(table, location, schema);
        TableDefinition definition =
                settings.tableConfig(table, schema)
                        .definition()
                        .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS_AND_WIDEN_TYPES)
                        .withTableProperty(PIPELINE_TABLE, table.toString())
                        .withColumnComments(columnComments(schema));
        DeltaTable.open(location, storage, MergeOptions.DEFAULTS, definition, true);
        LOG.info(
                "The Delta table of {} at {} has the schema of its pipeline table",
                table,
                location);
    }

    private void addColumns(
            SchemaChangeEvent event, TableId table, String location, AddColumnEvent add) {
        TableSchema current = existing(event, table, location);
        List<ValueType.Field> columns = new ArrayList<>(current.columns());
        Map<String, String> comments = new LinkedHashMap<>();
        for (AddColumnEvent.ColumnWithPosition added : add.getAddedColumns()) {
            ValueType.Field column = PipelineSchemas.column(added.getAddColumn());
            String comment = added.getAddColumn().getComment();
            if (comment != null && !comment.isEmpty()) {
                comments.put(column.name(), comment);
            }
            Optional<ValueType.Field> there = find(columns, column.name());
            if (there.isPresent()) {
                if (!there.get().type().equals(column.type())) {
                    throw new SchemaEvolveException(
                            event,
                            "The Delta table of "
                                    + table
                                    + " at "
                                    + location
                                    + " already has a column '"
                                    + there.get().name()
                                    + "' of type "
                                    + there.get().type()
                                    + ", and the event adds it as "
                                    + column.type()
                                    + ". Rename one of them in the source or with a transform.");
                }
                continue; // added before: the event is applied again
            }
            columns.add(column);
        }
        evolve(current, columns, false, comments, location);
    }

    private void alterTypes(
            SchemaChangeEvent event, TableId table, String location, AlterColumnTypeEvent alter) {
        TableSchema current = existing(event, table, location);
        List<ValueType.Field> columns = new ArrayList<>(current.columns());
        alter.getTypeMapping()
                .forEach(
                        (name, type) -> {
                            int index = indexOf(columns, name, event, table, location);
                            columns.set(
                                    index, PipelineSchemas.column(columns.get(index).name(), type));
                        });
        evolve(current, columns, true, Map.of(), location);
    }

    /**
     * Opens the table with {@code columns}, which changes its schema to them in one version; NOT
     * NULL is relaxed only where {@code relaxes} (an altered column type that the source declares
     * nullable: LENIENT's answer to a dropped column); the columns it adds get their {@code
     * comments}.
     */
    private void evolve(
            TableSchema current,
            List<ValueType.Field> columns,
            boolean relaxes,
            Map<String, String> comments,
            String location) {
        TableDefinition definition =
                new TableDefinition(
                                columns,
                                current.primaryKey(),
                                current.partitionColumns(),
                                Map.of(),
                                new SchemaEvolutionPolicy(
                                        SchemaEvolution.ADD_COLUMNS_AND_WIDEN_TYPES,
                                        Map.of(),
                                        false,
                                        relaxes))
                        .withColumnComments(comments);
        // Checked as a starting sink's input is (a type the column cannot hold is refused)...
        DeltaTable.existingSchema(location, storage, definition);
        // ...and committed as a starting writer commits it: one version, or none if made before.
        DeltaTable.open(location, storage, MergeOptions.DEFAULTS, definition, false);
    }

    /**
     * The comments of the columns of {@code schema} that have one. (The table's own comment has no
     * place: Delta keeps it as the table's description, which Kernel 4.4 cannot set.)
     */
    private static Map<String, String> columnComments(Schema schema) {
        Map<String, String> comments = new LinkedHashMap<>();
        for (org.apache.flink.cdc.common.schema.Column column : schema.getColumns()) {
            if (column.getComment() != null && !column.getComment().isEmpty()) {
                comments.put(column.getName(), column.getComment());
            }
        }
        return comments;
    }

    /** Refuses to create {@code table} where another pipeline table's Delta table is. */
    private void requireNotAnotherTables(TableId table, String location, Schema schema) {
        String owner = DeltaTable.tableProperties(location, storage).get(PIPELINE_TABLE);
        if (owner != null && !owner.equals(table.toString())) {
            throw new SchemaEvolveException(
                    new CreateTableEvent(table, schema),
                    "The Delta table at "
                            + location
                            + " was created for the pipeline table "
                            + owner
                            + ", and "
                            + table
                            + " maps to the same location: two tables would write one Delta"
                            + " table. Put {schema} (and {namespace}) into table.path-pattern so"
                            + " that every table gets a location of its own.");
        }
    }

    /** The schema of the table the event changes; refused when there is none. */
    private TableSchema existing(SchemaChangeEvent event, TableId table, String location) {
        return DeltaTable.existingSchema(location, storage, TableDefinition.existingTable())
                .orElseThrow(
                        () ->
                                new SchemaEvolveException(
                                        event,
                                        "There is no Delta table of "
                                                + table
                                                + " at "
                                                + location
                                                + " to apply "
                                                + event.getType().getTag()
                                                + " to: the pipeline creates it from the table's"
                                                + " CreateTableEvent, which this sink has not"
                                                + " received. Was the table deleted while the"
                                                + " pipeline ran? Restart the pipeline so that it"
                                                + " creates the table again."));
    }

    private static Optional<ValueType.Field> find(List<ValueType.Field> columns, String name) {
        return columns.stream().filter(c -> c.name().equalsIgnoreCase(name)).findFirst();
    }

    private static int indexOf(
            List<ValueType.Field> columns,
            String name,
            SchemaChangeEvent event,
            TableId table,
            String location) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equalsIgnoreCase(name)) {
                return i;
            }
        }
        throw new SchemaEvolveException(
                event,
                "The Delta table of "
                        + table
                        + " at "
                        + location
                        + " has no column '"
                        + name
                        + "' (its columns: "
                        + columns.stream().map(ValueType.Field::name).toList()
                        + "). Was the table changed outside the pipeline?");
    }

    @Override
    public String toString() {
        return "DeltaLiteMetadataApplier{" + locations + ", " + storage + "}";
    }
}
