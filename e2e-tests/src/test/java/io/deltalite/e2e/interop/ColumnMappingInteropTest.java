package io.deltalite.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.SchemaEvolutionPolicy;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.SchemaEvolution;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Column-mapped tables as Spark makes them: created in {@code name} or {@code id} mode with names
 * Parquet cannot hold, written by Spark, a column renamed and one dropped, rows updated and deleted
 * with deletion vectors. deltalite then upserts and deletes through many checkpoints (inline
 * compaction on) and adds a column; Spark and Kernel read the rows the changes leave, the renamed
 * column keeps its values, and the dropped column's values, still in Spark's files, never come back
 * — not even when deltalite adds a column of the same name.
 */
class ColumnMappingInteropTest {
    private static final ValueType BIGINT = ValueType.of(ValueType.Kind.BIGINT);
    private static final ValueType INT = ValueType.of(ValueType.Kind.INT);
    private static final ValueType STRING = ValueType.of(ValueType.Kind.STRING);

    private static final ValueType.Field INFO =
            new ValueType.Field(
                    "info",
                    new ValueType.Struct(
                            List.of(
                                    new ValueType.Field("x y", INT, true),
                                    new ValueType.Field("note", STRING, true))),
                    true);

    /** The table after Spark's rename and drop. */
    private static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", BIGINT, true),
                            new ValueType.Field("day of week", STRING, true),
                            new ValueType.Field("amount (EUR)", INT, true),
                            INFO),
                    List.of("id"),
                    List.of("day of week"),
                    Map.of());

    /** The same, plus a column named as the one Spark dropped, which deltalite adds. */
    private static final TableDefinition ORDERS_WITH_GONE =
            new TableDefinition(
                            java.util.stream.Stream.concat(
                                            ORDERS.columns().stream(),
                                            java.util.stream.Stream.of(
                                                    new ValueType.Field("gone", STRING, true)))
                                    .toList(),
                            ORDERS.primaryKey(),
                            ORDERS.partitionColumns(),
                            Map.of())
                    .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS);

    private static final String[] DAYS = {"Mon", "Tue"};

    @TempDir Path dir;

    @ParameterizedTest(name = "{0} mode, {1}")
    @CsvSource({
        // name mode with copy-on-write: ColumnMappingTest (connector/core), on Kernel's tables
        "name, DELETION_VECTORS",
        "id, COPY_ON_WRITE",
        "id, DELETION_VECTORS"
    })
    void deltaliteWritesATableSparkRenamedAndDroppedColumnsOf(String mode, WriteMode writeMode) {
        String table = dir.resolve("orders").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, `day of week` STRING, amount INT, gone STRING,"
                        + " info STRUCT<`x y`: INT, note: STRING>) USING delta"
                        + " PARTITIONED BY (`day of week`) TBLPROPERTIES ("
                        + "'delta.columnMapping.mode' = '"
                        + mode
                        + "', 'delta.enableDeletionVectors' = 'true',"
                        + " 'delta.checkpointInterval' = '4')");
        SparkDelta.sql(
                "INSERT INTO delta.`"
                        + table
                        + "` SELECT id, IF(id % 2 = 0, 'Mon', 'Tue'), CAST(id AS INT),"
                        + " concat('gone-', id), named_struct('x y', CAST(id AS INT), 'note', 's')"
                        + " FROM range(0, 40)");
        SparkDelta.sql("ALTER TABLE delta.`" + table + "` RENAME COLUMN amount TO `amount (EUR)`");
        SparkDelta.sql("ALTER TABLE delta.`" + table + "` DROP COLUMN gone");
        SparkDelta.sql("UPDATE delta.`" + table + "` SET `amount (EUR)` = -1 WHERE id < 4");
        SparkDelta.sql("DELETE FROM delta.`" + table + "` WHERE id IN (7, 8)");

        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(writeMode);
        Random random = new Random(mode.hashCode() * 7L + writeMode.ordinal());
        try (UpsertHarness deltalite = UpsertHarness.open(table, ORDERS, options)) {
            ExpectedTable expected =
                    new ExpectedTable(deltalite, ORDERS.toSchema(), SparkRows.readTable(table));
            assertThat(expected.rows()).hasSize(38);
            for (int checkpoint = 0; checkpoint < 6; checkpoint++) {
                for (int change = 0; change < 12; change++) {
                    long id = random.nextInt(60);
                    String day = DAYS[(int) (id % 2)];
                    if (random.nextInt(4) == 0) {
                        expected.delete(id, day, null, null);
                    } else {
                        expected.upsert(
                                id,
                                day,
                                random.nextInt(1000),
                                new Object[] {random.nextInt(10), "c" + checkpoint});
                    }
                }
                expected.commit();
                assertThat(Rows.sorted(KernelTableReader.readAll(table)))
                        .as("the table read by Kernel after checkpoint %d", checkpoint + 1)
                        .isEqualTo(expected.rows());
            }
            ExpectedTable.assertReadByBothEngines(table, expected.rows());
        }
        assertDeltaliteFilesNamePhysically(table, mode);

        try (UpsertHarness deltalite = UpsertHarness.open(table, ORDERS_WITH_GONE, options)) {
            ExpectedTable expected =
                    new ExpectedTable(
                            deltalite, ORDERS_WITH_GONE.toSchema(), SparkRows.readTable(table));
            assertThat(SparkRows.readTable(table))
                    .as("the added column, named as the dropped one, is empty in old rows")
                    .allMatch(row -> row[4] == null);
            expected.upsert(100L, "Mon", 1, new Object[] {1, "new"}, "back");
            expected.commit();
            ExpectedTable.assertReadByBothEngines(table, expected.rows());
        }
    }

    /**
     * deltalite renames one column and drops another of a table Spark created (one start of the
     * job, {@code schema-evolution.renames} and {@code drop-columns}); Spark reads the renamed
     * column's old and new values under its new name, no longer sees the dropped one, and writes on
     * with the new schema.
     */
    @ParameterizedTest(name = "{0} mode")
    @CsvSource({"name", "id"})
    void sparkReadsATableDeltaliteRenamedAndDroppedColumnsOf(String mode) {
        String table = dir.resolve("renamed").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, amount INT, note STRING) USING delta TBLPROPERTIES ("
                        + "'delta.columnMapping.mode' = '"
                        + mode
                        + "', 'delta.enableDeletionVectors' = 'true')");
        SparkDelta.sql(
                "INSERT INTO delta.`"
                        + table
                        + "` SELECT id, CAST(id * 10 AS INT), concat('n', id) FROM range(0, 20)");
        TableDefinition renamed =
                new TableDefinition(
                                List.of(
                                        new ValueType.Field("id", BIGINT, true),
                                        new ValueType.Field("total", INT, true)),
                                List.of("id"),
                                List.of(),
                                Map.of())
                        .withSchemaEvolution(
                                new SchemaEvolutionPolicy(
                                        SchemaEvolution.NONE, Map.of("amount", "total"), true));
        try (UpsertHarness deltalite = UpsertHarness.open(table, renamed, MergeOptions.DEFAULTS)) {
            ExpectedTable expected =
                    new ExpectedTable(deltalite, renamed.toSchema(), SparkRows.readTable(table));
            assertThat(expected.rows())
                    .as("Spark's rows under the new schema, values kept")
                    .hasSize(20)
                    .containsAll(Rows.sorted(List.<Object[]>of(new Object[] {3L, 30})));
            expected.upsert(3L, 33);
            expected.upsert(25L, 250);
            expected.delete(4L, null);
            expected.commit();
            ExpectedTable.assertReadByBothEngines(table, expected.rows());
        }
        SparkDelta.sql("UPDATE delta.`" + table + "` SET total = total + 1 WHERE id = 5");
        assertThat(SparkDelta.sql("SELECT * FROM delta.`" + table + "` WHERE id = 5"))
                .singleElement()
                .hasToString("[5,51]");
    }

    /**
     * The data files deltalite wrote into Spark's table (Spark's are named {@code part-…}) name
     * their columns by the physical names Spark assigned, never by the display names, and carry the
     * column ids as Parquet field ids in {@code id} mode, as Spark's own files do.
     */
    private static void assertDeltaliteFilesNamePhysically(String table, String mode) {
        io.delta.kernel.types.StructType schema = KernelTableReader.schema(table);
        java.util.Map<String, Long> idByPhysicalName = new java.util.HashMap<>();
        for (io.delta.kernel.types.StructField field : schema.fields()) {
            idByPhysicalName.put(
                    field.getMetadata().getString("delta.columnMapping.physicalName"),
                    field.getMetadata().getLong("delta.columnMapping.id"));
        }
        List<String> files =
                KernelTableReader.liveFiles(table).keySet().stream()
                        .filter(path -> !Path.of(path).getFileName().toString().startsWith("part-"))
                        .toList();
        assertThat(files).as("deltalite's live files").isNotEmpty();
        for (String file : files) {
            try (org.apache.parquet.hadoop.ParquetFileReader reader =
                    org.apache.parquet.hadoop.ParquetFileReader.open(
                            org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                                    new org.apache.hadoop.fs.Path(file),
                                    new org.apache.hadoop.conf.Configuration()))) {
                for (org.apache.parquet.schema.Type column :
                        reader.getFooter().getFileMetaData().getSchema().getFields()) {
                    assertThat(idByPhysicalName)
                            .as("column %s of %s is a physical name of the table", column, file)
                            .containsKey(column.getName());
                    if (mode.equals("id")) {
                        assertThat(column.getId())
                                .as("the field id of %s in %s", column.getName(), file)
                                .isNotNull();
                        assertThat((long) column.getId().intValue())
                                .isEqualTo(idByPhysicalName.get(column.getName()));
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
