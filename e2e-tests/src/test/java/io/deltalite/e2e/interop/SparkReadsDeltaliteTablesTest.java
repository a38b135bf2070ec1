package io.deltalite.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.ParquetCompression;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/** Spark reads the tables deltalite writes: each version, the history, the statistics. */
class SparkReadsDeltaliteTablesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final ValueType BIGINT = ValueType.of(ValueType.Kind.BIGINT);
    private static final ValueType INT = ValueType.of(ValueType.Kind.INT);
    private static final ValueType STRING = ValueType.of(ValueType.Kind.STRING);

    @TempDir Path dir;

    @Test
    void everyVersionReadByTimeTravelEqualsWhatDeltaliteCommittedThen() {
        String table = dir.resolve("orders").toString();
        // A log checkpoint every 3 versions: some versions are read from deltalite's checkpoints.
        TableDefinition definition = orders(Map.of("delta.checkpointInterval", "3"));
        Map<Long, List<String>> committed = new LinkedHashMap<>();
        Random random = new Random(51);
        try (UpsertHarness deltalite = open(table, definition)) {
            ExpectedTable expected = new ExpectedTable(deltalite, definition.toSchema(), List.of());
            committed.put(KernelTableReader.latestVersion(table), expected.rows());
            Map<Long, String> dayOf = new LinkedHashMap<>();
            for (int checkpoint = 0; checkpoint < 6; checkpoint++) {
                for (int change = 0; change < 30; change++) {
                    long id = random.nextInt(40);
                    String day = "d" + random.nextInt(3);
                    String stored = dayOf.get(id);
                    if (stored != null && random.nextInt(4) == 0) {
                        expected.delete(id, stored, null, null);
                        dayOf.remove(id);
                    } else {
                        if (stored != null && !stored.equals(day)) {
                            expected.delete(id, stored, null, null);
                        }
                        expected.upsert(id, day, checkpoint, "n" + random.nextInt(100));
                        dayOf.put(id, day);
                    }
                }
                CommitOutcome outcome = expected.commit();
                assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
                committed.put(outcome.version(), expected.rows());
            }
        }
        assertThat(checkpointVersions(table)).as("log checkpoints deltalite wrote").isNotEmpty();

        assertThat(committed.keySet()).hasSize(7);
        committed.forEach(
                (version, rows) ->
                        assertThat(Rows.sorted(SparkRows.readVersion(table, version)))
                                .as("version %d read by Spark with VERSION AS OF", version)
                                .isEqualTo(rows));
    }

    @Test
    void sparkReadsTheLatestVersionFromDeltalitesLogCheckpointAlone() throws IOException {
        String table = dir.resolve("orders").toString();
        TableDefinition definition = orders(Map.of("delta.checkpointInterval", "2"));
        List<String> rows;
        try (UpsertHarness deltalite = open(table, definition)) {
            ExpectedTable expected = new ExpectedTable(deltalite, definition.toSchema(), List.of());
            for (int checkpoint = 1; checkpoint <= 5; checkpoint++) {
                for (long id = 0; id < 20; id += checkpoint) {
                    expected.upsert(id, "d" + (id % 3), checkpoint, "v" + checkpoint);
                }
                expected.delete((long) checkpoint, "d" + (checkpoint % 3), null, null);
                expected.commit();
            }
            rows = expected.rows();
        }
        long checkpoint =
                checkpointVersions(table).stream().mapToLong(Long::longValue).max().orElseThrow();
        // As log cleanup does: the commits before the checkpoint are gone.
        Path log = dir.resolve("orders").resolve("_delta_log");
        for (long version = 0; version < checkpoint; version++) {
            Files.delete(log.resolve(String.format("%020d.json", version)));
        }

        assertThat(Rows.sorted(SparkRows.readTable(table)))
                .as(
                        "the table read by Spark from checkpoint %d and the commits after it",
                        checkpoint)
                .isEqualTo(rows);
        assertThat(Rows.sorted(KernelTableReader.readAll(table)))
                .as(
                        "the table read by Kernel from checkpoint %d and the commits after it",
                        checkpoint)
                .isEqualTo(rows);
    }

    @Test
    void describeHistoryListsEveryDeltaliteCommit() {
        String table = dir.resolve("orders").toString();
        try (UpsertHarness deltalite = open(table, orders(Map.of()))) {
            for (int checkpoint = 1; checkpoint <= 3; checkpoint++) {
                deltalite.upsert((long) checkpoint, "d1", checkpoint, "n");
                deltalite.commit();
            }
        }

        List<Row> history = SparkDelta.sql("DESCRIBE HISTORY delta.`" + table + "`");

        assertThat(history.stream().map(row -> row.getLong(row.fieldIndex("version"))))
                .as("versions in DESCRIBE HISTORY")
                .containsExactly(3L, 2L, 1L, 0L);
        assertThat(history.subList(0, 3))
                .allSatisfy(
                        row -> {
                            assertThat(row.<String>getAs("operation"))
                                    .as("operation of version %s", row.<Long>getAs("version"))
                                    .isEqualTo("STREAMING UPDATE");
                            assertThat(row.<String>getAs("engineInfo"))
                                    .as("engine of version %s", row.<Long>getAs("version"))
                                    .contains("deltalite");
                        });
        assertThat(history.get(3).<String>getAs("operation"))
                .as("operation of version 0")
                .isEqualTo("CREATE TABLE");
    }

    @Test
    void sparkSkipsFilesByDeltaliteStatisticsForAKeyPredicate() throws IOException {
        String table = dir.resolve("events").toString();
        TableDefinition definition =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", BIGINT, false),
                                new ValueType.Field("amount", INT, true)),
                        List.of("id"),
                        List.of(),
                        Map.of());
        // Without compaction, which would merge the six small files into one sorted file.
        try (UpsertHarness deltalite =
                UpsertHarness.open(
                        table,
                        definition,
                        MergeOptions.DEFAULTS.withCompaction(
                                io.deltalite.flink.internal.merge.options.CompactionOptions
                                        .DISABLED))) {
            // Six commits of disjoint key ranges: six files, each with its own key range.
            for (long range = 0; range < 6; range++) {
                for (long id = range * 100; id < range * 100 + 100; id++) {
                    deltalite.upsert(id, (int) id);
                }
                deltalite.commit();
            }
            // An update rewrites the file of range 1.
            deltalite.upsert(150L, -1);
            deltalite.commit();
        }
        Map<String, KernelTableReader.LiveFile> files = KernelTableReader.liveFiles(table);
        assertThat(files).as("live files").hasSizeGreaterThanOrEqualTo(6);
        for (KernelTableReader.LiveFile file : files.values()) {
            JsonNode stats = JSON.readTree(file.stats());
            assertThat(stats.path("minValues").has("id"))
                    .as("statistics of %s: %s", file.path(), file.stats())
                    .isTrue();
        }

        Dataset<Row> query =
                SparkDelta.session().sql("SELECT * FROM delta.`" + table + "` WHERE id = 550");
        assertThat(query.collectAsList()).hasSize(1);
        assertThat(filesScanned(query))
                .as("files Spark read for id = 550, of %d", files.size())
                .isEqualTo(1);

        Dataset<Row> updated =
                SparkDelta.session().sql("SELECT * FROM delta.`" + table + "` WHERE id = 150");
        assertThat(SparkRows.collect(updated))
                .as("the updated row")
                .singleElement()
                .satisfies(row -> assertThat(row).containsExactly(150L, -1));
        assertThat(filesScanned(updated))
                .as("files Spark read for id = 150 (the rest of range 1, the upserted row)")
                .isEqualTo(2);
    }

    /** The number of files the one file scan of an executed query read. */
    private static long filesScanned(Dataset<Row> executed) {
        List<Long> scans = new ArrayList<>();
        collectFileScans(executed.queryExecution().executedPlan(), scans);
        assertThat(scans).as("file scans in the plan").hasSize(1);
        return scans.get(0);
    }

    private static void collectFileScans(SparkPlan plan, List<Long> scans) {
        if (plan instanceof AdaptiveSparkPlanExec adaptive) {
            collectFileScans(adaptive.executedPlan(), scans);
        } else if (plan instanceof QueryStageExec stage) {
            collectFileScans(stage.plan(), scans);
        } else if (plan instanceof FileSourceScanExec scan) {
            scans.add(scan.metrics().apply("numFiles").value());
        } else {
            for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
                collectFileScans(child, scans);
            }
        }
    }

    private static List<Long> checkpointVersions(String table) {
        try (Stream<Path> files = Files.list(Path.of(table, "_delta_log"))) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(".checkpoint.parquet"))
                    .map(name -> Long.parseLong(name.substring(0, 20)))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void sparkReadsTablesWrittenWithEveryCodecAndOneThatMixesThem() {
        String mixed = dir.resolve("mixed").toString();
        TableDefinition definition = orders(Map.of());
        List<String> mixedRows = null;
        Map<Long, Object[]> inMixed = new java.util.TreeMap<>();
        for (ParquetCompression codec : ParquetCompression.values()) {
            String table = dir.resolve("codec-" + codec).toString();
            for (String location : List.of(table, mixed)) {
                try (UpsertHarness deltalite =
                        UpsertHarness.open(
                                location,
                                definition,
                                MergeOptions.DEFAULTS.withCompression(codec),
                                "codec-" + codec)) {
                    boolean isMixed = location.equals(mixed);
                    ExpectedTable expected =
                            new ExpectedTable(
                                    deltalite,
                                    definition.toSchema(),
                                    isMixed ? List.copyOf(inMixed.values()) : List.of());
                    for (long id = codec.ordinal() * 50L; id < codec.ordinal() * 50L + 200; id++) {
                        Object[] row = {id, "d" + (id % 3), (int) id, codec + "-" + id};
                        expected.upsert(row);
                        if (isMixed) {
                            inMixed.put(id, row);
                        }
                    }
                    expected.commit();
                    if (!isMixed) {
                        assertThat(Rows.sorted(SparkRows.readTable(table)))
                                .as("a table written with %s, read by Spark", codec)
                                .isEqualTo(expected.rows());
                    } else {
                        mixedRows = expected.rows();
                    }
                }
            }
        }
        assertThat(Rows.sorted(SparkRows.readTable(mixed)))
                .as("a table whose files mix every codec")
                .isEqualTo(mixedRows);
    }

    private static UpsertHarness open(String table, TableDefinition definition) {
        return UpsertHarness.open(table, definition, MergeOptions.DEFAULTS);
    }

    /** {@code id BIGINT, day STRING, amount INT, note STRING}, key id, partitioned by day. */
    private static TableDefinition orders(Map<String, String> properties) {
        return new TableDefinition(
                List.of(
                        new ValueType.Field("id", BIGINT, true),
                        new ValueType.Field("day", STRING, true),
                        new ValueType.Field("amount", INT, true),
                        new ValueType.Field("note", STRING, true)),
                List.of("id"),
                List.of("day"),
                properties);
    }
}
