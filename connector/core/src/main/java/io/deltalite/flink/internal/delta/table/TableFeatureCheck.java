package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.Snapshot;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.deltalite.flink.exceptions.DeltaLiteUnsupportedTableException;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.delta.kernel.KernelSchemas;
import io.deltalite.flink.internal.merge.schema.DefaultLiteral;
import io.deltalite.flink.internal.merge.schema.InputProjection;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Refuses tables whose features deltalite cannot honour when it rewrites files. Deletion vectors
 * are fine (their rows stay deleted); Kernel itself refuses features it cannot write. Some features
 * only forbid removing rows (change data feed, {@code delta.appendOnly}): an append-only sink,
 * whose commits add rows and remove files only to compact them ({@code dataChange = false}), writes
 * such tables; a keyed sink is refused.
 */
final class TableFeatureCheck {
    private TableFeatureCheck() {}

    /**
     * @param removesRows whether the writer may remove rows ({@link
     *     io.deltalite.flink.internal.merge.schema.TableDefinition#removesRows()})
     */
    static void requireWritable(Snapshot snapshot, String tablePath, boolean removesRows) {
        requireWritableProperties(snapshot.getTableProperties(), tablePath, removesRows);
        Set<String> features = KernelInternals.tableFeatures(snapshot);
        if (features.contains("materializePartitionColumns")) {
            refuse(
                    tablePath,
                    "materialized partition columns",
                    "deltalite writes partition values only into the log.");
        }
        checkColumns(snapshot.getSchema(), tablePath, "");
        requireFieldIdsWritable(snapshot.getSchema(), snapshot.getTableProperties(), tablePath);
    }

    /**
     * Refuses a table in column mapping {@code id} mode with an array or map column: the Parquet
     * writer must give every field of a file a field id, and the elements of arrays and maps have
     * none unless the table assigns them ({@code delta.columnMapping.nested.ids}, which only
     * Iceberg-compatible tables have, and those are refused). Checked on existing tables and before
     * deltalite creates one.
     */
    static void requireFieldIdsWritable(
            StructType schema, Map<String, String> properties, String tablePath) {
        String mode = properties.getOrDefault("delta.columnMapping.mode", "none");
        if (!"id".equalsIgnoreCase(mode)) {
            return;
        }
        for (StructField field : schema.fields()) {
            String nested = nestedCollection(field.getDataType(), field.getName());
            if (nested != null) {
                refuse(
                        tablePath,
                        "column mapping in id mode with the array or map column '" + nested + "'",
                        "deltalite writes data files with Parquet field ids in id mode, and the"
                                + " elements of arrays and maps have no ids in this table (Delta"
                                + " gives them ids only with Iceberg compatibility). Use column"
                                + " mapping in name mode, which Spark and Kernel read alike.");
            }
        }
    }

    /** The path of the first array or map within {@code type}, or null. */
    private static String nestedCollection(DataType type, String path) {
        if (type instanceof ArrayType || type instanceof MapType) {
            return path;
        }
        if (type instanceof StructType struct) {
            for (StructField field : struct.fields()) {
                String nested = nestedCollection(field.getDataType(), path + "." + field.getName());
                if (nested != null) {
                    return nested;
                }
            }
        }
        return null;
    }

    /**
     * Refuses table properties that turn on a feature deltalite cannot write: checked on existing
     * tables and before deltalite creates one, so it never leaves an unusable table behind.
     */
    static void requireWritableProperties(
            Map<String, String> properties, String tablePath, boolean removesRows) {
        String columnMapping = properties.getOrDefault("delta.columnMapping.mode", "none");
        if (!List.of("none", "name", "id").contains(columnMapping.toLowerCase(Locale.ROOT))) {
            refuse(
                    tablePath,
                    "column mapping mode '" + columnMapping + "' (delta.columnMapping.mode)",
                    "the Delta protocol knows the modes none, name and id.");
        }
        if (isTrue(properties, "delta.enableChangeDataFeed") && removesRows) {
            refuse(
                    tablePath,
                    "change data feed (delta.enableChangeDataFeed = true) for an upsert sink",
                    "an upsert removes and replaces rows, and on such a table every commit that"
                            + " does must also write the removed and changed rows as change data"
                            + " files (_change_data/), which Delta Kernel 4.4 cannot commit. An"
                            + " append-only sink (no primary key, inserts only) can write to it."
                            + " For upserts turn the feed off (ALTER TABLE ... SET TBLPROPERTIES"
                            + " ('delta.enableChangeDataFeed' = 'false')) or write to another"
                            + " table.");
        }
        if (isTrue(properties, "delta.appendOnly") && removesRows) {
            refuse(
                    tablePath,
                    "append-only (delta.appendOnly = true) for an upsert sink",
                    "an upsert has to remove rewritten files. An append-only sink (no primary"
                            + " key, inserts only) can write to it.");
        }
        if (isTrue(properties, "delta.rowTrackingSuspended")) {
            refuse(
                    tablePath,
                    "suspended row tracking (delta.rowTrackingSuspended = true)",
                    "a writer must then leave new files without row ids, and Delta Kernel 4.4"
                            + " assigns them to every file it commits.");
        }
        if (isTrue(properties, "delta.enableIcebergCompatV2")
                || isTrue(properties, "delta.enableIcebergCompatV3")) {
            refuse(
                    tablePath,
                    "Iceberg compatibility (delta.enableIcebergCompatV2/V3)",
                    "it requires column mapping.");
        }
        String retention = properties.get("delta.setTransactionRetentionDuration");
        if (retention != null && !retention.isBlank()) {
            refuse(
                    tablePath,
                    "expiring transaction ids (delta.setTransactionRetentionDuration = "
                            + retention
                            + ")",
                    "deltalite recognises a replayed checkpoint by its transaction id; once it"
                            + " expired, a checkpoint replayed after a long outage would be"
                            + " applied again over newer changes. Unset the property.");
        }
        for (String property : properties.keySet()) {
            if (property.toLowerCase(Locale.ROOT).startsWith("delta.constraints.")) {
                refuse(
                        tablePath,
                        "CHECK constraint '" + property.substring(18) + "'",
                        "deltalite does not evaluate constraints.");
            }
        }
    }

    /** The field metadata key of a column's default expression (Delta's column defaults). */
    static final String CURRENT_DEFAULT = "CURRENT_DEFAULT";

    /**
     * The values of the column defaults ({@code CURRENT_DEFAULT}, Delta's {@code
     * allowColumnDefaults}) of the columns the {@code input} lacks, by column name: a writer must
     * store them in every row it writes. Only literal defaults are stored ({@link DefaultLiteral});
     * a table with any other default on a column the input lacks is refused — deltalite does not
     * evaluate expressions, and null would be a silent wrong value. An input that carries the
     * column leaves no default to apply. A partition column the input lacks is refused even with a
     * default: the sink routes and deletes rows by the partition values the input carries.
     */
    static Map<String, Object> defaultsFor(
            StructType schema,
            List<String> partitionColumns,
            List<ValueType.Field> input,
            String tablePath) {
        Map<String, Object> defaults = new java.util.LinkedHashMap<>();
        for (StructField field : schema.fields()) {
            Object expression = field.getMetadata().getEntries().get(CURRENT_DEFAULT);
            if (expression == null || InputProjection.carries(input, field.getName())) {
                continue;
            }
            if (partitionColumns.stream().anyMatch(field.getName()::equalsIgnoreCase)) {
                throw new DeltaLiteUnsupportedTableException(
                        "The Delta table at "
                                + tablePath
                                + " gives partition column '"
                                + field.getName()
                                + "' a default value (DEFAULT "
                                + expression
                                + "), and the sink's input has no column '"
                                + field.getName()
                                + "': deltalite routes and deletes rows by the partition values"
                                + " the input carries, and does not fill them from defaults. Add"
                                + " the column to the input (for example "
                                + expression
                                + " AS "
                                + field.getName()
                                + " in SQL).");
            }
            ValueType type =
                    KernelSchemas.fromKernel(new StructType().add(field), tablePath).get(0).type();
            try {
                defaults.put(field.getName(), DefaultLiteral.parse(expression.toString(), type));
            } catch (IllegalArgumentException e) {
                throw new DeltaLiteUnsupportedTableException(
                        "The Delta table at "
                                + tablePath
                                + " gives column '"
                                + field.getName()
                                + "' a default value (DEFAULT "
                                + expression
                                + "), which a writer must store in rows that do not set the"
                                + " column. The sink's input has no column '"
                                + field.getName()
                                + "', and deltalite stores only literal defaults (numbers,"
                                + " strings, booleans, dates, NULL), not this one: "
                                + e.getMessage()
                                + ". Add the column to the input (for example "
                                + expression
                                + " AS "
                                + field.getName()
                                + " in SQL), or give the column a literal default on the table"
                                + " (ALTER TABLE ... ALTER COLUMN "
                                + field.getName()
                                + " SET DEFAULT ...).");
            }
        }
        return defaults;
    }

    private static void checkColumns(DataType type, String tablePath, String prefix) {
        if (type instanceof StructType struct) {
            for (StructField field : struct.fields()) {
                String name = prefix + field.getName();
                Map<String, Object> metadata = field.getMetadata().getEntries();
                if (metadata.containsKey("delta.invariants")) {
                    refuse(
                            tablePath,
                            "a NOT NULL/invariant constraint on column '" + name + "'",
                            "deltalite does not evaluate invariants.");
                }
                if (metadata.containsKey("delta.generationExpression")) {
                    refuse(
                            tablePath,
                            "generated column '" + name + "'",
                            "deltalite does not compute generated columns.");
                }
                if (metadata.containsKey("delta.identity.start")
                        || metadata.containsKey("delta.identity.step")) {
                    refuse(
                            tablePath,
                            "identity column '" + name + "'",
                            "deltalite does not assign identity values.");
                }
                checkColumns(field.getDataType(), tablePath, name + ".");
            }
        } else if (type instanceof ArrayType array) {
            checkColumns(array.getElementType(), tablePath, prefix);
        } else if (type instanceof MapType map) {
            checkColumns(map.getKeyType(), tablePath, prefix);
            checkColumns(map.getValueType(), tablePath, prefix);
        }
    }

    private static boolean isTrue(Map<String, String> properties, String key) {
        return "true".equalsIgnoreCase(properties.getOrDefault(key, "false").trim());
    }

    private static void refuse(String tablePath, String feature, String why) {
        throw new DeltaLiteUnsupportedTableException(
                "The Delta table at "
                        + tablePath
                        + " uses "
                        + feature
                        + ", which deltalite cannot"
                        + " write correctly: "
                        + why
                        + " Write to a table without this feature"
                        + " (or disable it on the table).");
    }
}
