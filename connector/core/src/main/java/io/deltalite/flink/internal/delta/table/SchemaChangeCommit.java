package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Transaction;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.transaction.UpdateTableTransactionBuilder;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.FieldMetadata;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TypeChange;
import io.delta.kernel.utils.CloseableIterable;
import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.delta.kernel.KernelSchemas;
import io.deltalite.flink.internal.delta.kernel.PhysicalNames;
import io.deltalite.flink.internal.merge.schema.SchemaChange;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Commits a {@link SchemaChange} as one Delta version holding only a metadata action (and, for a
 * first widening, the protocol that adds the type widening feature). The new schema is the table's,
 * field by field with its metadata, with the renamed fields renamed, the widened fields retyped —
 * each recording its change in {@code delta.typeChanges}, as Delta's type widening requires — the
 * dropped fields left out and the added fields appended. Data files are not touched: readers fill
 * an added column with null in files written before, read a widened column's old values as the
 * wider type, and, with column mapping, find a renamed column's values under its physical name,
 * which the rename keeps, and no longer see a dropped column's.
 *
 * <p>On a table with column mapping the commit goes through Kernel's public API, which records the
 * type changes itself; the added fields get their ids and physical names here. Without column
 * mapping Kernel 4.4's public API refuses any schema change, so the commit is built with its
 * internals ({@link KernelInternals#schemaChangeTransaction}); renames and drops are refused there,
 * as Delta refuses them: files name their columns by the logical names then.
 */
final class SchemaChangeCommit {
    private static final String PHYSICAL_NAME = "delta.columnMapping.physicalName";
    private static final String COLUMN_ID = "delta.columnMapping.id";
    private static final String MAX_COLUMN_ID = "delta.columnMapping.maxColumnId";

    private SchemaChangeCommit() {}

    /**
     * Commits {@code change} on top of {@code snapshot}; the version it took. The columns it adds
     * get their {@code comments} (by name) where given.
     *
     * @throws io.delta.kernel.exceptions.ConcurrentWriteException when another commit took the
     *     version: the caller reads the table again and decides anew
     */
    static long commit(
            Snapshot snapshot,
            SchemaChange change,
            List<ValueType.Field> input,
            Map<String, String> comments,
            Engine engine,
            String location) {
        StructType schema =
                withComments(checkedSchema(snapshot, change, input, location), change, comments);
        Transaction transaction;
        if (PhysicalNames.of(snapshot.getSchema(), snapshot.getTableProperties()).mapped()) {
            // Kernel's public API changes the schema of a column-mapped table.
            UpdateTableTransactionBuilder update =
                    snapshot.buildUpdateTableTransaction(
                                    DeltaTable.ENGINE_INFO, Operation.MANUAL_UPDATE)
                            .withUpdatedSchema(
                                    withColumnIds(
                                            typeChangesAsBefore(schema, snapshot.getSchema()),
                                            snapshot.getTableProperties()));
            if (!change.widened().isEmpty()) {
                update =
                        update.withTablePropertiesAdded(Map.of("delta.enableTypeWidening", "true"));
            }
            transaction = update.build(engine);
        } else {
            transaction =
                    KernelInternals.schemaChangeTransaction(
                            snapshot, schema, !change.widened().isEmpty(), DeltaTable.ENGINE_INFO);
        }
        return transaction.commit(engine, CloseableIterable.emptyIterable()).getVersion();
    }

    /**
     * {@code schema} with each field's type changes as {@code current} has them: Kernel's public
     * API records a widening itself and refuses a schema that does.
     */
    private static StructType typeChangesAsBefore(StructType schema, StructType current) {
        List<StructField> fields = new ArrayList<>();
        for (StructField field : schema.fields()) {
            StructField before = sameColumn(field, current);
            fields.add(before == null ? field : field.withTypeChanges(before.getTypeChanges()));
        }
        return new StructType(fields);
    }

    /**
     * The field of {@code current} that {@code field} is, by its physical name (renames keep it).
     */
    private static StructField sameColumn(StructField field, StructType current) {
        if (!field.getMetadata().contains(PHYSICAL_NAME)) {
            return null; // an added field
        }
        String physicalName = field.getMetadata().getString(PHYSICAL_NAME);
        for (StructField candidate : current.fields()) {
            if (candidate.getMetadata().contains(PHYSICAL_NAME)
                    && physicalName.equals(candidate.getMetadata().getString(PHYSICAL_NAME))) {
                return candidate;
            }
        }
        return null;
    }

    /**
     * {@code schema} with an id and a physical name for every field, nested ones too, that has
     * neither (the fields the change adds): ids above every id the table has used ({@code
     * delta.columnMapping.maxColumnId}), names new UUIDs. Kernel would name an added field by its
     * display name, which may be the physical name of a column dropped earlier from a table that
     * turned column mapping on late, whose values in old files would then come back.
     */
    /** {@code schema} with the {@code comments} of the columns {@code change} adds. */
    private static StructType withComments(
            StructType schema, SchemaChange change, Map<String, String> comments) {
        if (comments.isEmpty()) {
            return schema;
        }
        java.util.Set<String> added = new java.util.HashSet<>();
        change.added().forEach(field -> added.add(field.name()));
        List<StructField> fields = new ArrayList<>();
        for (StructField field : schema.fields()) {
            String comment = comments.get(field.getName());
            if (comment != null && added.contains(field.getName())) {
                field =
                        field.withNewMetadata(
                                FieldMetadata.builder()
                                        .fromMetadata(field.getMetadata())
                                        .putString("comment", comment)
                                        .build());
            }
            fields.add(field);
        }
        return new StructType(fields);
    }

    private static StructType withColumnIds(StructType schema, Map<String, String> properties) {
        int[] maxId = {
            Math.max(
                    Integer.parseInt(properties.getOrDefault(MAX_COLUMN_ID, "0").trim()),
                    maxId(schema))
        };
        return (StructType) withColumnIds(schema, maxId);
    }

    private static DataType withColumnIds(DataType type, int[] maxId) {
        if (type instanceof StructType struct) {
            List<StructField> fields = new ArrayList<>();
            for (StructField field : struct.fields()) {
                StructField named = field.withDataType(withColumnIds(field.getDataType(), maxId));
                if (!field.getMetadata().contains(COLUMN_ID)
                        && !field.getMetadata().contains(PHYSICAL_NAME)) {
                    named =
                            named.withNewMetadata(
                                    FieldMetadata.builder()
                                            .fromMetadata(field.getMetadata())
                                            .putLong(COLUMN_ID, ++maxId[0])
                                            .putString(PHYSICAL_NAME, "col-" + UUID.randomUUID())
                                            .build());
                }
                fields.add(named);
            }
            return new StructType(fields);
        }
        if (type instanceof ArrayType array) {
            return new ArrayType(
                    withColumnIds(array.getElementType(), maxId), array.containsNull());
        }
        if (type instanceof MapType map) {
            return new MapType(
                    withColumnIds(map.getKeyType(), maxId),
                    withColumnIds(map.getValueType(), maxId),
                    map.isValueContainsNull());
        }
        return type;
    }

    private static int maxId(DataType type) {
        int max = 0;
        if (type instanceof StructType struct) {
            for (StructField field : struct.fields()) {
                if (field.getMetadata().contains(COLUMN_ID)) {
                    max = Math.max(max, field.getMetadata().getLong(COLUMN_ID).intValue());
                }
                max = Math.max(max, maxId(field.getDataType()));
            }
        } else if (type instanceof ArrayType array) {
            max = maxId(array.getElementType());
        } else if (type instanceof MapType map) {
            max = Math.max(maxId(map.getKeyType()), maxId(map.getValueType()));
        }
        return max;
    }

    /**
     * The table's schema after {@code change}, checked as Kernel checks the schema of a table it
     * creates (the step its public API skips here is only the one that requires column mapping):
     * valid column names for a table without column mapping, no duplicates. A widening is refused
     * when the table has type widening turned off explicitly; renames and drops without column
     * mapping; a drop of a clustering column; a schema the sink could not write after the change (a
     * default {@code input} does not supply, an array or map in column mapping {@code id} mode):
     * refused before the commit, not at every start after it.
     *
     * @throws DeltaLiteSchemaMismatchException naming what is wrong
     */
    static StructType checkedSchema(
            Snapshot snapshot, SchemaChange change, List<ValueType.Field> input, String location) {
        boolean mapped =
                PhysicalNames.of(snapshot.getSchema(), snapshot.getTableProperties()).mapped();
        if (!mapped && (!change.renamed().isEmpty() || !change.dropped().isEmpty())) {
            throw new DeltaLiteSchemaMismatchException(
                    "The sink was asked to "
                            + change
                            + " on the Delta table at "
                            + location
                            + ", which has no column mapping: Delta renames and drops columns only"
                            + " on tables whose data files name columns by physical names"
                            + " (delta.columnMapping.mode = name or id). Nothing was changed."
                            + " Turn column mapping on (Spark: ALTER TABLE ... SET TBLPROPERTIES"
                            + " ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' ="
                            + " '2', 'delta.minWriterVersion' = '5'); readers need Delta 1.2 or"
                            + " later), or remove schema-evolution.renames and"
                            + " schema-evolution.drop-columns from the job.");
        }
        String wideningProperty = snapshot.getTableProperties().get("delta.enableTypeWidening");
        if (!change.widened().isEmpty()
                && wideningProperty != null
                && !"true".equalsIgnoreCase(wideningProperty.trim())) {
            throw new DeltaLiteSchemaMismatchException(
                    "The input widens "
                            + change.widened()
                            + " of the Delta table at "
                            + location
                            + ", but the table has delta.enableTypeWidening = "
                            + wideningProperty
                            + ", which forbids it. Set the property to true on the table, or"
                            + " cast the column in the job to the table's type.");
        }
        for (io.delta.kernel.clustering.ClusteringColumnInfo clustering :
                snapshot.getClusteringColumnInfos().orElse(List.of())) {
            String[] names = clustering.getLogicalColumn().getNames();
            if (names.length > 0 && change.dropped().contains(names[0])) {
                throw new DeltaLiteSchemaMismatchException(
                        "The sink was asked to drop column '"
                                + names[0]
                                + "' of the Delta table at "
                                + location
                                + ", a clustering column (CLUSTER BY), which Delta does not"
                                + " drop. Nothing was changed. Change the clustering first"
                                + " (ALTER TABLE ... CLUSTER BY ...), or keep the column in the"
                                + " input.");
            }
        }
        StructType schema = newSchema(snapshot.getSchema(), change);
        TableFeatureCheck.defaultsFor(schema, snapshot.getPartitionColumnNames(), input, location);
        TableFeatureCheck.requireFieldIdsWritable(schema, snapshot.getTableProperties(), location);
        try {
            KernelInternals.validateSchema(schema, mapped);
        } catch (RuntimeException e) {
            throw new DeltaLiteSchemaMismatchException(
                    "The sink cannot "
                            + change
                            + " on the Delta table at "
                            + location
                            + ": "
                            + e.getMessage()
                            + " Rename the column in the job (for example with AS in SQL).",
                    e);
        }
        return schema;
    }

    static StructType newSchema(StructType current, SchemaChange change) {
        List<StructField> fields = new ArrayList<>();
        for (StructField field : current.fields()) {
            StructField changed = renamed(field, change.renamed());
            if (change.dropped().contains(changed.getName())) {
                continue;
            }
            for (SchemaChange.Widening widening : change.widened()) {
                if (widening.column().equals(changed.getName())) {
                    List<TypeChange> changes = new ArrayList<>(field.getTypeChanges());
                    changes.add(
                            new TypeChange(
                                    field.getDataType(), KernelSchemas.toKernel(widening.to())));
                    changed =
                            changed.withDataType(KernelSchemas.toKernel(widening.to()))
                                    .withTypeChanges(changes);
                }
            }
            if (change.relaxed().contains(changed.getName()) && !changed.isNullable()) {
                changed =
                        new StructField(
                                        changed.getName(),
                                        changed.getDataType(),
                                        true,
                                        changed.getMetadata())
                                .withTypeChanges(changed.getTypeChanges());
            }
            fields.add(changed);
        }
        for (ValueType.Field added : change.added()) {
            fields.add(new StructField(added.name(), KernelSchemas.toKernel(added.type()), true));
        }
        return new StructType(fields);
    }

    /** {@code field} under the name the renames give it, with its metadata and type changes. */
    private static StructField renamed(StructField field, List<SchemaChange.Rename> renames) {
        String name = field.getName();
        for (SchemaChange.Rename rename : renames) {
            if (rename.from().equals(name)) {
                name = rename.to();
            }
        }
        if (name.equals(field.getName())) {
            return field;
        }
        return new StructField(name, field.getDataType(), field.isNullable(), field.getMetadata())
                .withTypeChanges(field.getTypeChanges());
    }
}
