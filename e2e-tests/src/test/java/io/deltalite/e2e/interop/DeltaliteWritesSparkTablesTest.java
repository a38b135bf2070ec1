package io.deltalite.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * deltalite upserts into tables that Spark created and wrote: tables with a log checkpoint,
 * compacted by OPTIMIZE, with deletion vectors, and partitioned by date and integer columns.
 */
class DeltaliteWritesSparkTablesTest {
    private static final ValueType BIGINT = ValueType.of(ValueType.Kind.BIGINT);
    private static final ValueType INT = ValueType.of(ValueType.Kind.INT);
    private static final ValueType STRING = ValueType.of(ValueType.Kind.STRING);
    private static final ValueType DATE = ValueType.of(ValueType.Kind.DATE);

    /** {@code id BIGINT, day STRING, amount INT}, key id, partitioned by day. */
    private static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", BIGINT, true),
                            new ValueType.Field("day", STRING, true),
                            new ValueType.Field("amount", INT, true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    @TempDir Path dir;

    @Test
    void upsertsIntoATableWhoseLogHasACheckpoint() {
        String table = createOrders("TBLPROPERTIES ('delta.checkpointInterval' = '2')");
        for (int insert = 0; insert < 5; insert++) {
            SparkDelta.sql(
                    "INSERT INTO delta.`"
                            + table
                            + "` SELECT id, concat('d', id % 2), "
                            + insert
                            + " FROM range("
                            + insert * 10
                            + ", "
                            + (insert * 10 + 10)
                            + ")");
        }
        assertThat(logFiles(table, ".checkpoint.parquet"))
                .as("checkpoints Spark wrote")
                .isNotEmpty();

        try (UpsertHarness deltalite = open(table, ORDERS)) {
            ExpectedTable expected = expectedFromSpark(deltalite, table, ORDERS);
            expected.upsert(3L, "d1", 100);
            expected.upsert(44L, "d0", 100);
            expected.delete(25L, "d1", null);
            expected.upsert(25L, "d0", 101);
            expected.upsert(50L, "d0", 102);
            expected.commit();

            ExpectedTable.assertReadByBothEngines(table, expected.rows());
        }
    }

    @Test
    void upsertsIntoATableThatOptimizeCompacted() {
        String table = createOrders("");
        for (int insert = 0; insert < 4; insert++) {
            SparkDelta.sql(
                    "INSERT INTO delta.`"
                            + table
                            + "` VALUES ("
                            + insert
                            + ", 'd1', 0), ("
                            + (insert + 10)
                            + ", 'd2', 0)");
        }
        int before = KernelTableReader.liveFiles(table).size();
        SparkDelta.sql("OPTIMIZE delta.`" + table + "`");
        assertThat(KernelTableReader.liveFiles(table))
                .as("live files after OPTIMIZE of %d files", before)
                .hasSize(2);

        try (UpsertHarness deltalite = open(table, ORDERS)) {
            ExpectedTable expected = expectedFromSpark(deltalite, table, ORDERS);
            expected.upsert(1L, "d1", 1);
            expected.delete(12L, "d2", null);
            expected.upsert(20L, "d2", 2);
            expected.commit();

            ExpectedTable.assertReadByBothEngines(table, expected.rows());
        }
    }

    @Test
    void rowsDeletedByADeletionVectorStayDeletedWhenDeltaliteRewritesTheFile() {
        String table = createOrders("TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
        SparkDelta.sql(
                "INSERT INTO delta.`"
                        + table
                        + "` SELECT /*+ REPARTITION(1) */ id, 'd1', CAST(id AS INT) FROM range(0, 100)");
        SparkDelta.sql("DELETE FROM delta.`" + table + "` WHERE id IN (2, 50, 99)");
        Row delete = SparkDelta.sql("DESCRIBE HISTORY delta.`" + table + "` LIMIT 1").get(0);
        assertThat(delete.<String>getAs("operation")).isEqualTo("DELETE");
        assertThat(
                        delete.<scala.collection.Map<String, String>>getAs("operationMetrics")
                                .apply("numDeletionVectorsAdded"))
                .as("deletion vectors Spark's DELETE added")
                .isEqualTo("1");
        assertThat(KernelTableReader.liveFiles(table)).hasSize(1);

        try (UpsertHarness deltalite = open(table, ORDERS)) {
            ExpectedTable expected = expectedFromSpark(deltalite, table, ORDERS);
            assertThat(expected.rows()).hasSize(97);
            // Key 1 lives in the file with the deletion vector: the file is rewritten.
            expected.upsert(1L, "d1", -1);
            CommitOutcome outcome = expected.commit();
            assertThat(outcome.stats().filesRemoved()).as("files deltalite rewrote").isEqualTo(1);

            ExpectedTable.assertReadByBothEngines(table, expected.rows());
        }
    }

    @Test
    void upsertsIntoDateAndIntegerPartitionsOfASparkTable() {
        String table = dir.resolve("readings").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, day DATE, hour INT, value STRING)"
                        + " USING delta PARTITIONED BY (day, hour)");
        SparkDelta.sql(
                "INSERT INTO delta.`"
                        + table
                        + "` VALUES (1, DATE'2024-02-28', 0, 'a'), (2, DATE'2024-02-29', 23, 'b'),"
                        + " (3, DATE'1969-12-31', -1, 'c'), (4, NULL, NULL, 'd'),"
                        + " (5, DATE'2024-02-28', NULL, 'e')");
        TableDefinition readings =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", BIGINT, true),
                                new ValueType.Field("day", DATE, true),
                                new ValueType.Field("hour", INT, true),
                                new ValueType.Field("value", STRING, true)),
                        List.of("id"),
                        List.of("day", "hour"),
                        Map.of());
        int leapDay = (int) LocalDate.of(2024, 2, 29).toEpochDay();
        int dayBefore = (int) LocalDate.of(2024, 2, 28).toEpochDay();

        try (UpsertHarness deltalite = open(table, readings)) {
            ExpectedTable expected = expectedFromSpark(deltalite, table, readings);
            assertThat(expected.rows()).hasSize(5);
            expected.upsert(1L, dayBefore, 0, "a updated");
            expected.upsert(2L, leapDay, 23, "b updated");
            expected.delete(3L, -1, -1, null);
            expected.upsert(4L, null, null, "d updated");
            // Key 5 moves out of the null hour, into a new partition.
            expected.delete(5L, dayBefore, null, null);
            expected.upsert(5L, leapDay, 12, "e moved");
            expected.upsert(
                    6L, (int) LocalDate.of(1900, 1, 1).toEpochDay(), Integer.MIN_VALUE, "f");
            expected.commit();

            ExpectedTable.assertReadByBothEngines(table, expected.rows());
            assertThat(
                            SparkDelta.sql(
                                    "SELECT id FROM delta.`"
                                            + table
                                            + "` WHERE day = DATE'2024-02-29' AND hour = 12"))
                    .as("Spark's partition filter finds the partition deltalite created")
                    .singleElement()
                    .satisfies(row -> assertThat(row.getLong(0)).isEqualTo(5L));
        }
    }

    /**
     * Spark writes timestamp partition values in its session time zone's wall-clock form or as UTC
     * instants, depending on its settings; either way deltalite must find the partition Spark
     * wrote, not create a second one.
     */
    @ParameterizedTest(name = "Spark session time zone {0}")
    @ValueSource(strings = {"UTC", "America/Los_Angeles"})
    void upsertsIntoTimestampPartitionsOfASparkTable(String sessionZone) {
        String table = dir.resolve("events-" + sessionZone.replace('/', '-')).toString();
        SparkDelta.sql("SET spark.sql.session.timeZone = " + sessionZone);
        try {
            SparkDelta.sql(
                    "CREATE TABLE delta.`"
                            + table
                            + "` (id BIGINT, at TIMESTAMP, value STRING)"
                            + " USING delta PARTITIONED BY (at)");
            SparkDelta.sql(
                    "INSERT INTO delta.`"
                            + table
                            + "` VALUES (1, TIMESTAMP'2024-01-01 10:00:00', 'a'),"
                            + " (2, TIMESTAMP'2024-01-01 10:00:00.123456', 'b'), (3, NULL, 'c')");
        } finally {
            SparkDelta.sql("SET spark.sql.session.timeZone = UTC");
        }
        TableDefinition events =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", BIGINT, true),
                                new ValueType.Field(
                                        "at", ValueType.of(ValueType.Kind.TIMESTAMP), true),
                                new ValueType.Field("value", STRING, true)),
                        List.of("id"),
                        List.of("at"),
                        Map.of());
        try (UpsertHarness deltalite = open(table, events)) {
            ExpectedTable expected = expectedFromSpark(deltalite, table, events);
            assertThat(expected.rows()).hasSize(3);
            java.time.ZoneId zone = java.time.ZoneId.of(sessionZone);
            long first = micros(java.time.LocalDateTime.parse("2024-01-01T10:00:00"), zone);
            long second = micros(java.time.LocalDateTime.parse("2024-01-01T10:00:00.123456"), zone);
            expected.upsert(1L, first, "a updated");
            expected.upsert(2L, second, "b updated");
            expected.upsert(3L, null, "c updated");
            expected.commit();

            ExpectedTable.assertReadByBothEngines(table, expected.rows());
            assertThat(KernelTableReader.liveFiles(table)).hasSize(3);
        }
    }

    private static long micros(java.time.LocalDateTime wallClock, java.time.ZoneId zone) {
        java.time.Instant instant = wallClock.atZone(zone).toInstant();
        return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
    }

    private String createOrders(String properties) {
        String table = dir.resolve("orders").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, day STRING, amount INT) USING delta PARTITIONED BY (day) "
                        + properties);
        return table;
    }

    private static ExpectedTable expectedFromSpark(
            UpsertHarness deltalite, String table, TableDefinition definition) {
        return new ExpectedTable(deltalite, definition.toSchema(), SparkRows.readTable(table));
    }

    private static List<String> logFiles(String table, String suffix) {
        try (Stream<Path> files = Files.list(Path.of(table, "_delta_log"))) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(suffix))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static UpsertHarness open(String table, TableDefinition definition) {
        return UpsertHarness.open(table, definition, MergeOptions.DEFAULTS);
    }
}
