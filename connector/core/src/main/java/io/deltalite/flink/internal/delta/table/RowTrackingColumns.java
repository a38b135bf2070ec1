package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.types.FieldMetadata;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.deltalite.flink.exceptions.DeltaLiteUnsupportedTableException;
import java.util.Map;

/**
 * The hidden columns in which a table with row tracking ({@code delta.enableRowTracking}) keeps the
 * row id and row commit version of a row that a writer copied or updated: Delta's
 * <em>materialized</em> row tracking columns, named in the table's configuration.
 *
 * <p>A row's id is its materialized id, or when that is null its file's {@code baseRowId} plus its
 * position in the file; its commit version likewise the materialized one or the file's {@code
 * defaultRowCommitVersion}. Delta assigns both when it commits a new file, so a row written fresh
 * gets a new id. The sink therefore writes into these columns, for every row it writes:
 *
 * <ul>
 *   <li>a row it copies (copy-on-write survivors, compaction, folds): its id and commit version as
 *       they were — it keeps both;
 *   <li>a row an upsert writes in place of a row the table holds with the same key: that row's id,
 *       and no commit version — it keeps its id and gets the version of the commit, as Spark's
 *       {@code MERGE} gives an updated row;
 *   <li>a row an upsert inserts: neither — the commit gives it a fresh id.
 * </ul>
 *
 * <p>The columns belong to a file's layout ({@link TableShape}): they are in every file the sink
 * writes, never in the table's schema.
 *
 * @param rowId the physical name of the materialized row id column
 * @param commitVersion the physical name of the materialized row commit version column
 */
record RowTrackingColumns(String rowId, String commitVersion) {
    static final String ENABLED = "delta.enableRowTracking";
    static final String ROW_ID_COLUMN = "delta.rowTracking.materializedRowIdColumnName";
    static final String COMMIT_VERSION_COLUMN =
            "delta.rowTracking.materializedRowCommitVersionColumnName";

    /**
     * The columns of a table with these properties, or null when it does not track rows.
     *
     * @throws DeltaLiteUnsupportedTableException when it does, but does not name its columns
     */
    static RowTrackingColumns of(Map<String, String> properties, String tablePath) {
        if (!"true".equalsIgnoreCase(properties.getOrDefault(ENABLED, "false").trim())) {
            return null;
        }
        String rowId = properties.get(ROW_ID_COLUMN);
        String commitVersion = properties.get(COMMIT_VERSION_COLUMN);
        if (rowId == null || rowId.isBlank() || commitVersion == null || commitVersion.isBlank()) {
            throw new DeltaLiteUnsupportedTableException(
                    "The Delta table at "
                            + tablePath
                            + " tracks rows ("
                            + ENABLED
                            + " = true) but its configuration does not name the columns that"
                            + " keep the row ids and commit versions of copied rows ("
                            + ROW_ID_COLUMN
                            + ", "
                            + COMMIT_VERSION_COLUMN
                            + "), so deltalite cannot keep a row's id when it rewrites the row."
                            + " Delta writers name them when they enable row tracking; let Spark"
                            + " (or the writer that enabled it) repair the table, or disable row"
                            + " tracking on it.");
        }
        return new RowTrackingColumns(rowId, commitVersion);
    }

    /**
     * The Parquet field ids the two columns get in files of a table in column mapping {@code id}
     * mode (whose writer gives every field an id): the ids Apache Iceberg reserves for row lineage
     * ({@code _row_id}, {@code _last_updated_sequence_number}), which Delta uses for these columns
     * in Iceberg-compatible tables and which no table column ever gets.
     */
    static final long ROW_ID_FIELD_ID = Integer.MAX_VALUE - 107;

    static final long COMMIT_VERSION_FIELD_ID = Integer.MAX_VALUE - 108;

    private static final String PARQUET_FIELD_ID = "parquet.field.id";

    /**
     * {@code fileSchema} with the two columns after its own, by name: the layout the sink reads
     * (files of other writers may hold the columns without field ids).
     */
    StructType appendTo(StructType fileSchema) {
        return fileSchema
                .add(new StructField(rowId, LongType.LONG, true))
                .add(new StructField(commitVersion, LongType.LONG, true));
    }

    /**
     * The layout the sink writes: as {@link #appendTo}, and where the data columns carry Parquet
     * field ids (column mapping {@code id} mode), the two columns carry theirs too — Kernel's
     * writer refuses a file in which only some fields have one.
     */
    StructType appendForWriting(StructType fileSchema) {
        boolean withIds =
                fileSchema.fields().stream()
                        .anyMatch(field -> field.getMetadata().contains(PARQUET_FIELD_ID));
        if (!withIds) {
            return appendTo(fileSchema);
        }
        return fileSchema
                .add(rowId, LongType.LONG, true, fieldId(ROW_ID_FIELD_ID))
                .add(commitVersion, LongType.LONG, true, fieldId(COMMIT_VERSION_FIELD_ID));
    }

    private static FieldMetadata fieldId(long id) {
        return FieldMetadata.builder().putLong(PARQUET_FIELD_ID, id).build();
    }
}
