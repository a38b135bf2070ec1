package io.deltalite.e2e.parity;

import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.testing.Rows;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The reference implementation: a Delta table that Spark + Delta changes with one SQL {@code MERGE
 * INTO} per batch.
 *
 * <p>The source of each MERGE is the batch reduced to the last change per identity, with a column
 * {@value #OPERATION} that is {@code 'U'} or {@code 'D'}. Identity is deltalite's: the match key
 * (the primary-key columns that are not partition columns) compared with {@code =}, so that a null
 * never matches, within the partition, compared with {@code <=>}, so that the null partition is a
 * partition like any other. An empty string in a partition column is the null partition, as the
 * Delta protocol stores it.
 */
final class SparkMergeOracle {
    private static final String OPERATION = "__op";
    private static final String SOURCE_VIEW = "parity_source";

    private final String path;
    private final TableSchema schema;
    private final StructType sourceSchema;

    private SparkMergeOracle(String path, TableSchema schema) {
        this.path = path;
        this.schema = schema;
        this.sourceSchema =
                SparkRows.schema(schema.columns()).add(OPERATION, DataTypes.StringType, false);
    }

    /**
     * Creates the table at {@code path} with Spark, with the columns, partitioning and column
     * mapping mode given.
     */
    static SparkMergeOracle create(String path, TableDefinition definition) {
        TableSchema schema = definition.toSchema();
        StringBuilder create =
                new StringBuilder("CREATE TABLE delta.`")
                        .append(path)
                        .append("` (")
                        .append(SparkRows.schema(schema.columns()).toDDL())
                        .append(") USING delta");
        if (schema.isPartitioned()) {
            create.append(" PARTITIONED BY (")
                    .append(String.join(", ", quoted(schema.partitionColumns())))
                    .append(')');
        }
        String columnMapping = definition.tableProperties().get("delta.columnMapping.mode");
        if (columnMapping != null) {
            create.append(" TBLPROPERTIES ('delta.columnMapping.mode' = '")
                    .append(columnMapping)
                    .append("')");
        }
        SparkDelta.sql(create.toString());
        return existing(path, definition);
    }

    /** The Delta table at {@code path}, which has the columns and partitioning given. */
    static SparkMergeOracle existing(String path, TableDefinition definition) {
        return new SparkMergeOracle(path, definition.toSchema());
    }

    String path() {
        return path;
    }

    /** Applies {@code batch} with one MERGE. */
    void apply(List<Change> batch) {
        applyAsIs(lastChangePerIdentity(batch));
    }

    /**
     * Applies {@code changes} with one MERGE whose source holds every change, also several of one
     * key.
     */
    void applyAsIs(List<Change> changes) {
        List<Row> source = new ArrayList<>();
        for (Change change : changes) {
            Row values = SparkRows.toSpark(schema.columns(), change.row());
            Object[] withOperation = new Object[values.length() + 1];
            for (int i = 0; i < values.length(); i++) {
                withOperation[i] = values.get(i);
            }
            withOperation[values.length()] = change.isDelete() ? "D" : "U";
            source.add(RowFactory.create(withOperation));
        }
        SparkDelta.session()
                .createDataFrame(source, sourceSchema)
                .createOrReplaceTempView(SOURCE_VIEW);
        SparkDelta.sql(mergeStatement(SOURCE_VIEW));
    }

    /** The MERGE statement that applies the changes in view {@code source}. */
    private String mergeStatement(String source) {
        List<String> conditions = new ArrayList<>();
        for (String column : schema.partitionColumns()) {
            String sourceValue = "s." + quoted(column);
            if (schema.column(column).type().equals(ValueType.of(ValueType.Kind.STRING))) {
                sourceValue = "nullif(" + sourceValue + ", '')";
            }
            conditions.add("t." + quoted(column) + " <=> " + sourceValue);
        }
        for (String column : schema.matchKey()) {
            conditions.add("t." + quoted(column) + " = s." + quoted(column));
        }
        return "MERGE INTO delta.`"
                + path
                + "` t USING "
                + source
                + " s ON "
                + String.join(" AND ", conditions)
                + " WHEN MATCHED AND s."
                + OPERATION
                + " = 'D' THEN DELETE"
                + " WHEN MATCHED THEN UPDATE SET *"
                + " WHEN NOT MATCHED AND s."
                + OPERATION
                + " <> 'D' THEN INSERT *";
    }

    /**
     * The last change of each identity, in order of first appearance. A change whose key has a null
     * has no identity: each is kept (a MERGE matches none of them).
     */
    private List<Change> lastChangePerIdentity(List<Change> batch) {
        Map<Object, Change> last = new LinkedHashMap<>();
        for (Change change : batch) {
            Object[] row = change.row();
            List<Object> key = new ArrayList<>();
            boolean nullKey = false;
            for (int index : schema.matchKeyIndexes()) {
                nullKey |= row[index] == null;
                key.add(row[index]);
            }
            if (nullKey) {
                last.put(new Object(), change);
                continue;
            }
            List<Object> partition = new ArrayList<>();
            for (int index : schema.partitionIndexes()) {
                partition.add("".equals(row[index]) ? null : row[index]);
            }
            last.put(
                    List.of(Rows.canonical(partition.toArray()), Rows.canonical(key.toArray())),
                    change);
        }
        return new ArrayList<>(last.values());
    }

    private static List<String> quoted(List<String> names) {
        return names.stream().map(SparkMergeOracle::quoted).toList();
    }

    private static String quoted(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
