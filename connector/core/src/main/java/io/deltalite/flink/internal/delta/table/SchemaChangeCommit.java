package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Transaction;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TypeChange;
import io.delta.kernel.utils.CloseableIterable;
import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.delta.kernel.KernelSchemas;
import io.deltalite.flink.internal.merge.schema.SchemaChange;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.ArrayList;
import java.util.List;

/**
 * Commits a {@link SchemaChange} as one Delta version holding only a metadata action (and, for a
 * first widening, the protocol that adds the type widening feature). The new schema is the table's,
 * field by field with its metadata, with the widened fields retyped — each recording its change in
 * {@code delta.typeChanges}, as Delta's type widening requires — and the added fields appended.
 * Data files are not touched: readers fill an added column with null in files written before, and
 * read a widened column's old values as the wider type.
 */
final class SchemaChangeCommit {
    private SchemaChangeCommit() {}

    /**
     * Commits {@code change} on top of {@code snapshot}; the version it took.
     *
     * @throws io.delta.kernel.exceptions.ConcurrentWriteException when another commit took the
     *     version: the caller reads the table again and decides anew
     */
    static long commit(Snapshot snapshot, SchemaChange change, Engine engine, String location) {
        Transaction transaction =
                KernelInternals.schemaChangeTransaction(
                        snapshot,
                        checkedSchema(snapshot, change, location),
                        !change.widened().isEmpty(),
                        DeltaTable.ENGINE_INFO);
        return transaction.commit(engine, CloseableIterable.emptyIterable()).getVersion();
    }

    /**
     * The table's schema after {@code change}, checked as Kernel checks the schema of a table it
     * creates (the step its public API skips here is only the one that requires column mapping):
     * valid column names for a table without column mapping, no duplicates. A widening is refused
     * when the table has type widening turned off explicitly.
     *
     * @throws DeltaLiteSchemaMismatchException naming what is wrong
     */
    static StructType checkedSchema(Snapshot snapshot, SchemaChange change, String location) {
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
        StructType schema = newSchema(snapshot.getSchema(), change);
        try {
            KernelInternals.validateSchema(schema);
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
            StructField changed = field;
            for (SchemaChange.Widening widening : change.widened()) {
                if (widening.column().equals(field.getName())) {
                    List<TypeChange> changes = new ArrayList<>(field.getTypeChanges());
                    changes.add(
                            new TypeChange(
                                    field.getDataType(), KernelSchemas.toKernel(widening.to())));
                    changed =
                            field.withDataType(KernelSchemas.toKernel(widening.to()))
                                    .withTypeChanges(changes);
                }
            }
            fields.add(changed);
        }
        for (ValueType.Field added : change.added()) {
            fields.add(new StructField(added.name(), KernelSchemas.toKernel(added.type()), true));
        }
        return new StructType(fields);
    }
}
