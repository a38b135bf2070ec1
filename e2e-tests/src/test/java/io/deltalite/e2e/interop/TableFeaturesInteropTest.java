package io.deltalite.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Table features Spark and Databricks turn on, on tables Spark 4.2 + Delta 4.4 create: v2
 * checkpoints (UUID-named, with sidecars) with in-commit timestamps, and the change data feed. The
 * sink writes across several log checkpoints and log cleanup; Spark reads the rows, the history and
 * the feed as its own writes would leave them.
 */
class TableFeaturesInteropTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ValueType.Field ID =
            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), true);
    private static final ValueType.Field P =
            new ValueType.Field("p", ValueType.of(ValueType.Kind.STRING), true);
    private static final ValueType.Field V =
            new ValueType.Field("v", ValueType.of(ValueType.Kind.INT), true);
    private static final TableDefinition KEYED =
            new TableDefinition(List.of(ID, P, V), List.of("id"), List.of("p"), Map.of());

    @TempDir Path dir;

    /**
     * Spark writes v2 checkpoints with sidecars; the sink reads them, commits through many log
     * checkpoints of its own (Kernel writes classic ones, which v2 tables allow) and log cleanup
     * (retention of a second); every commit carries an in-commit timestamp, later than the one
     * before; Spark reads the rows, and time travel by a timestamp of the history lands on the
     * version of that timestamp.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void v2CheckpointsAndInCommitTimestampsHoldThroughTheSinksCommits(WriteMode mode)
            throws IOException {
        String table = dir.resolve("t").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, p STRING, v INT) USING delta PARTITIONED BY (p)"
                        + " TBLPROPERTIES ('delta.checkpointPolicy' = 'v2',"
                        + " 'delta.enableInCommitTimestamps' = 'true',"
                        + " 'delta.enableDeletionVectors' = 'true',"
                        + " 'delta.checkpointInterval' = '3',"
                        + " 'delta.logRetentionDuration' = 'interval 1 seconds',"
                        + " 'delta.deletedFileRetentionDuration' = 'interval 1 seconds')");
        for (int batch = 0; batch < 3; batch++) {
            SparkDelta.sql(
                    "INSERT INTO delta.`"
                            + table
                            + "` SELECT id, IF(id % 2 = 0, 'a', 'b'), CAST(id AS INT) FROM range("
                            + batch * 10
                            + ", "
                            + (batch * 10 + 10)
                            + ")");
        }
        Path log = Path.of(table, "_delta_log");
        assertThat(listNames(log))
                .as("Spark's v2 checkpoint, UUID-named")
                .anyMatch(
                        name -> name.matches("0+3\\.checkpoint\\.[0-9a-f-]{36}\\.(json|parquet)"));
        assertThat(log.resolve("_sidecars")).isDirectory();

        Random random = new Random(mode.ordinal());
        try (UpsertHarness deltalite =
                UpsertHarness.open(table, KEYED, MergeOptions.DEFAULTS.withWriteMode(mode))) {
            ExpectedTable expected =
                    new ExpectedTable(deltalite, KEYED.toSchema(), SparkRows.readTable(table));
            for (int checkpoint = 0; checkpoint < 10; checkpoint++) {
                for (int change = 0; change < 8; change++) {
                    long id = random.nextInt(40);
                    String p = id % 2 == 0 ? "a" : "b";
                    if (random.nextInt(4) == 0) {
                        expected.delete(id, p, null);
                    } else {
                        expected.upsert(id, p, random.nextInt(1000));
                    }
                }
                expected.commit();
                if (checkpoint == 6) {
                    // the sink's first versions (4 to 10) age past the retention before the log
                    // checkpoint at version 12, after which its cleanup deletes them
                    sleepPastTheRetention();
                }
            }
            ExpectedTable.assertReadByBothEngines(table, expected.rows());
        }
        assertThat(listNames(log))
                .as("the sink's log cleanup ran: its first commit (version 4) is gone")
                .doesNotContain("00000000000000000004.json")
                .contains("00000000000000000013.json");

        // Spark time-travels only within the deleted-file retention: back to a week.
        SparkDelta.sql(
                "ALTER TABLE delta.`"
                        + table
                        + "` SET TBLPROPERTIES ("
                        + "'delta.logRetentionDuration' = 'interval 30 days',"
                        + " 'delta.deletedFileRetentionDuration' = 'interval 7 days')");

        // Every commit kept carries an in-commit timestamp, each later than the one before.
        TreeMap<Long, Long> timestamps = inCommitTimestamps(log);
        assertThat(timestamps).hasSizeGreaterThan(3);
        long previous = Long.MIN_VALUE;
        for (long timestamp : timestamps.values()) {
            assertThat(timestamp).isGreaterThan(previous);
            previous = timestamp;
        }
        // Spark's history shows them, and time travel by one lands on its version.
        long version = timestamps.lastKey() - 1; // the sink's last commit
        List<Row> history =
                SparkDelta.session()
                        .sql("DESCRIBE HISTORY delta.`" + table + "`")
                        .where("version = " + version)
                        .select("timestamp")
                        .collectAsList();
        assertThat(history).hasSize(1);
        java.sql.Timestamp at = history.get(0).getTimestamp(0);
        assertThat(at.getTime()).isEqualTo(timestamps.get(version));
        assertThat(
                        Rows.sorted(
                                SparkRows.collect(
                                        SparkDelta.session()
                                                .read()
                                                .format("delta")
                                                .option(
                                                        "timestampAsOf",
                                                        java.time.format.DateTimeFormatter
                                                                .ofPattern(
                                                                        "yyyy-MM-dd HH:mm:ss.SSS")
                                                                .withZone(java.time.ZoneOffset.UTC)
                                                                .format(at.toInstant()))
                                                .load(table))))
                .isEqualTo(Rows.sorted(SparkRows.readVersion(table, version)));

        // Spark writes on after the sink's checkpoints.
        SparkDelta.sql("INSERT INTO delta.`" + table + "` VALUES (1000, 'a', 1)");
        assertThat(SparkDelta.sql("SELECT count(*) FROM delta.`" + table + "` WHERE id = 1000"))
                .singleElement()
                .hasToString("[1]");
    }

    /**
     * A table with the change data feed takes an append-only sink (Kernel commits add-only
     * versions, and compactions with {@code dataChange = false}, which the feed skips): Spark's
     * feed shows exactly the appended rows, as inserts.
     */
    @Test
    void anAppendOnlySinkWritesAChangeDataFeedTableWhoseFeedShowsItsRows() {
        String table = dir.resolve("events").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, p STRING, v INT) USING delta PARTITIONED BY (p)"
                        + " TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')");
        TableDefinition events =
                new TableDefinition(List.of(ID, P, V), List.of(), List.of("p"), Map.of());
        List<Object[]> appended = new ArrayList<>();
        try (UpsertHarness deltalite = UpsertHarness.open(table, events, MergeOptions.DEFAULTS)) {
            for (long checkpoint = 0; checkpoint < 12; checkpoint++) {
                for (long i = 0; i < 3; i++) {
                    Object[] row = {checkpoint * 10 + i, i % 2 == 0 ? "a" : "b", (int) checkpoint};
                    deltalite.upsert(row);
                    appended.add(row);
                }
                deltalite.commit();
            }
        }
        assertThat(KernelTableReader.liveFiles(table))
                .as("compacted: fewer files than commits")
                .hasSizeLessThan(24);
        assertThat(Rows.sorted(SparkRows.readTable(table))).isEqualTo(Rows.sorted(appended));
        List<Row> changes =
                SparkDelta.sql(
                        "SELECT id, p, v, _change_type FROM table_changes_by_path('"
                                + table
                                + "', 1)");
        assertThat(changes)
                .hasSize(appended.size())
                .allMatch(row -> row.getString(3).equals("insert"));
        assertThat(
                        Rows.sorted(
                                changes.stream()
                                        .map(
                                                row ->
                                                        new Object[] {
                                                            row.get(0), row.get(1), row.get(2)
                                                        })
                                        .toList()))
                .isEqualTo(Rows.sorted(appended));
    }

    /**
     * A table with liquid clustering ({@code CLUSTER BY}) that indexes only its first column's
     * statistics by count ({@code delta.dataSkippingNumIndexedCols = 1}, the clustering column's by
     * name, which Kernel does not read): the sink's files carry statistics for the clustering
     * column, the clustering stays the table's, and Spark's {@code OPTIMIZE} runs beside the sink.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aClusteredTableKeepsItsClusteringAndStatisticsBesideSparksOptimize(WriteMode mode)
            throws IOException {
        String table = dir.resolve("clustered").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, v INT, c STRING) USING delta CLUSTER BY (c)"
                        + " TBLPROPERTIES ('delta.dataSkippingNumIndexedCols' = '1',"
                        + " 'delta.dataSkippingStatsColumns' = 'id,c',"
                        + " 'delta.enableDeletionVectors' = 'true')");
        SparkDelta.sql(
                "INSERT INTO delta.`"
                        + table
                        + "` SELECT id, CAST(id AS INT), concat('c', id % 5) FROM range(0, 40)");
        TableDefinition clustered =
                new TableDefinition(
                        List.of(
                                ID,
                                V,
                                new ValueType.Field(
                                        "c", ValueType.of(ValueType.Kind.STRING), true)),
                        List.of("id"),
                        List.of(),
                        Map.of());
        Random random = new Random(mode.ordinal() + 7);
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        for (int run = 0; run < 2; run++) {
            try (UpsertHarness deltalite = UpsertHarness.open(table, clustered, options)) {
                ExpectedTable expected =
                        new ExpectedTable(
                                deltalite, clustered.toSchema(), SparkRows.readTable(table));
                for (int checkpoint = 0; checkpoint < 5; checkpoint++) {
                    for (int change = 0; change < 8; change++) {
                        long id = random.nextInt(60);
                        if (random.nextInt(5) == 0) {
                            expected.delete(id, null, null);
                        } else {
                            expected.upsert(id, random.nextInt(100), "c" + random.nextInt(5));
                        }
                    }
                    expected.commit();
                }
                ExpectedTable.assertReadByBothEngines(table, expected.rows());
            }
            if (run == 0) {
                // Spark clusters the files, the sink's included; the sink then writes on.
                SparkDelta.sql("OPTIMIZE delta.`" + table + "`");
            }
        }
        Row detail = SparkDelta.sql("DESCRIBE DETAIL delta.`" + table + "`").get(0);
        assertThat(detail.getList(detail.fieldIndex("clusteringColumns")))
                .as("the table's clustering, kept")
                .containsExactly("c");
        for (JsonNode add : io.deltalite.flink.testing.DeltaHistory.liveAdds(Path.of(table))) {
            JsonNode stats = JSON.readTree(add.get("stats").asText());
            assertThat(stats.get("minValues").has("c"))
                    .as("statistics of the clustering column in %s", add.get("path"))
                    .isTrue();
        }
        assertThat(io.deltalite.flink.testing.DeltaHistory.liveAdds(Path.of(table)))
                .as("the sink's files are among those checked")
                .anySatisfy(add -> assertThat(add.get("path").asText()).doesNotStartWith("part-"));
    }

    /**
     * The files the sink writes into a clustered table — new rows, the files inline compaction
     * merges small ones into, and in deletion-vector mode the folds of small files that hold
     * changed rows — hold their rows in the order of the clustering column, then of the key, so
     * that each covers a narrow range of it; Spark reads the table as the sink wrote it.
     * (Copy-on-write rewrites of files that hold changed rows keep each file's order but append the
     * files' survivors one after the other: copy-on-write inserts only here.)
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void theSinksFilesOfAClusteredTableAreInTheOrderOfItsClusteringColumn(WriteMode mode)
            throws IOException {
        String table = dir.resolve("clustered-order").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, v INT, c STRING) USING delta CLUSTER BY (c)"
                        + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
        TableDefinition clustered =
                new TableDefinition(
                        List.of(
                                ID,
                                V,
                                new ValueType.Field(
                                        "c", ValueType.of(ValueType.Kind.STRING), true)),
                        List.of("id"),
                        List.of(),
                        Map.of());
        Random random = new Random(mode.ordinal() + 11);
        int checkpoints = 14;
        try (UpsertHarness deltalite =
                UpsertHarness.open(table, clustered, MergeOptions.DEFAULTS.withWriteMode(mode))) {
            ExpectedTable expected = new ExpectedTable(deltalite, clustered.toSchema(), List.of());
            for (int checkpoint = 0; checkpoint < checkpoints; checkpoint++) {
                for (int change = 0; change < 30; change++) {
                    boolean earlier = change >= 25 && mode == WriteMode.DELETION_VECTORS;
                    long id =
                            earlier ? random.nextInt(25 * checkpoints) : checkpoint * 25L + change;
                    if (earlier && random.nextBoolean()) {
                        expected.delete(id, null, null);
                    } else {
                        int c = random.nextInt(7);
                        expected.upsert(id, c, c == 6 ? null : "c" + c);
                    }
                }
                expected.commit();
            }
            ExpectedTable.assertReadByBothEngines(table, expected.rows());
        }
        List<JsonNode> live = io.deltalite.flink.testing.DeltaHistory.liveAdds(Path.of(table));
        assertThat(live).as("files: small ones merged").hasSizeLessThan(checkpoints / 2);
        int checked = 0;
        for (JsonNode add : live) {
            String file = Path.of(table).resolve(add.get("path").asText()).toString();
            List<Row> rows = SparkDelta.sql("SELECT c, id FROM parquet.`" + file + "`");
            List<Row> ordered = new ArrayList<>(rows);
            ordered.sort(
                    java.util.Comparator.comparing(
                                    (Row row) -> row.getString(0),
                                    java.util.Comparator.nullsLast(
                                            java.util.Comparator.<String>naturalOrder()))
                            .thenComparing(row -> row.getLong(1)));
            assertThat(rows)
                    .as("the rows of %s, in file order", add.get("path"))
                    .isEqualTo(ordered);
            if (rows.stream().map(row -> row.get(0)).distinct().count() > 1) {
                checked++;
            }
        }
        assertThat(checked).as("files holding several clustering values").isPositive();
    }

    /**
     * Column defaults as Spark applies them: a row Spark inserts without the defaulted columns and
     * one deltalite writes from an input without them read back with the same values.
     */
    @Test
    void literalDefaultsAreStoredAsSparkStoresThem() {
        String table = dir.resolve("defaults").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, status STRING DEFAULT 'it\\'s new', qty INT DEFAULT -1,"
                        + " amount DECIMAL(10,2) DEFAULT 1.5, ratio DOUBLE DEFAULT 0.1,"
                        + " since DATE DEFAULT DATE '2024-02-29', flag BOOLEAN DEFAULT true,"
                        + " note STRING DEFAULT NULL) USING delta TBLPROPERTIES"
                        + " ('delta.feature.allowColumnDefaults' = 'supported')");
        SparkDelta.sql("INSERT INTO delta.`" + table + "` (id) VALUES (1)");
        TableDefinition onlyId =
                new TableDefinition(List.of(ID), List.of("id"), List.of(), Map.of());
        try (UpsertHarness deltalite = UpsertHarness.open(table, onlyId, MergeOptions.DEFAULTS)) {
            io.deltalite.flink.internal.merge.schema.InputProjection projection =
                    io.deltalite.flink.internal.merge.schema.InputProjection.plan(
                            onlyId.columns(),
                            deltalite.table().schema(),
                            deltalite.table().columnDefaults(),
                            table);
            deltalite.upsert(projection.project(new Object[] {2L}));
            deltalite.commit();
        }
        List<Row> rows =
                SparkDelta.sql(
                        "SELECT status, qty, amount, ratio, since, flag, note FROM delta.`"
                                + table
                                + "` ORDER BY id");
        assertThat(rows).hasSize(2);
        assertThat(rows.get(1)).as("deltalite's row against Spark's").isEqualTo(rows.get(0));
        assertThat(rows.get(0).getString(0)).isEqualTo("it's new");
    }

    private static TreeMap<Long, Long> inCommitTimestamps(Path log) throws IOException {
        TreeMap<Long, Long> timestamps = new TreeMap<>();
        for (String name : listNames(log)) {
            if (!name.matches("\\d{20}\\.json")) {
                continue;
            }
            long version = Long.parseLong(name.substring(0, 20));
            String first = Files.readAllLines(log.resolve(name)).get(0);
            JsonNode commitInfo = JSON.readTree(first).get("commitInfo");
            assertThat(commitInfo).as("version %d begins with its commitInfo", version).isNotNull();
            assertThat(commitInfo.has("inCommitTimestamp"))
                    .as("version %d has an in-commit timestamp", version)
                    .isTrue();
            timestamps.put(version, commitInfo.get("inCommitTimestamp").asLong());
        }
        return timestamps;
    }

    private static List<String> listNames(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(path -> path.getFileName().toString()).sorted().toList();
        }
    }

    /** Log files older than the table's retention (a second) are what cleanup may delete. */
    private static void sleepPastTheRetention() {
        try {
            Thread.sleep(1_100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
