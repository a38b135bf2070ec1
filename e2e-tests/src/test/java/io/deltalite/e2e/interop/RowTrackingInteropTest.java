package io.deltalite.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Row tracking ({@code delta.enableRowTracking = true}) on a table Spark 4.2 + Delta 4.4 created
 * and filled: the sink keeps every row's stable id and commit version as Spark's own {@code MERGE}
 * would. Spark itself is the oracle: a byte-identical twin of the table gets, per checkpoint, the
 * same net changes through one {@code MERGE INTO}, and Spark reads {@code _metadata.row_id} and
 * {@code _metadata.row_commit_version} from both.
 */
class RowTrackingInteropTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ValueType.Field ID =
            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), true);
    private static final ValueType.Field P =
            new ValueType.Field("p", ValueType.of(ValueType.Kind.STRING), true);
    private static final ValueType.Field V =
            new ValueType.Field("v", ValueType.of(ValueType.Kind.INT), true);
    private static final TableDefinition KEYED =
            new TableDefinition(List.of(ID, P, V), List.of("id"), List.of("p"), Map.of());
    private static final StructType CHANGES =
            new StructType()
                    .add("id", DataTypes.LongType, false)
                    .add("p", DataTypes.StringType, false)
                    .add("v", DataTypes.IntegerType, true)
                    .add("op", DataTypes.StringType, false);

    /** Rows Spark inserted: ids 0 to 59, in three INSERTs of 20; changes touch ids 0 to 79. */
    private static final int INSERTS = 3;

    private static final int ROWS_PER_INSERT = 20;
    private static final int KEY_RANGE = 80;
    private static final int CHECKPOINTS = 8;
    private static final int CHANGES_PER_CHECKPOINT = 12;

    @TempDir Path dir;

    /**
     * Spark creates a row-tracking table and inserts 60 rows in three commits; the table is copied
     * to a twin (same log, same files, so the same row ids). For eight checkpoints the sink upserts
     * and deletes random keys — updates, inserts of new keys, deletes, some keys changed twice —
     * and the twin takes each checkpoint's net change per key in one Spark {@code MERGE INTO}
     * (matched: update, or delete; not matched: insert). After each checkpoint both tables are at
     * the same version and Spark reads from them the same rows, where:
     *
     * <ul>
     *   <li>a row Spark inserted and no checkpoint deleted has the same row id in both tables,
     *       whether the sink updated it, rewrote it (copy-on-write, deletion-vector folds) or
     *       compacted it;
     *   <li>every row has the same row commit version in both tables: an updated or inserted row
     *       the version of its checkpoint, a copied one the version it had;
     *   <li>row ids are unique in the sink's table, and a key the sink holds at two consecutive
     *       checkpoints keeps its row id, rows the sink inserted itself included;
     * </ul>
     *
     * <p>The run crosses log checkpoints of the sink, and the table's {@code delta.rowTracking}
     * high-water mark stays at or above every row id assigned.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void rowIdsAndCommitVersionsAreThoseSparksMergeLeaves(WriteMode mode) throws IOException {
        String table = dir.resolve("deltalite").toString();
        String twin = dir.resolve("spark").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, p STRING, v INT) USING delta PARTITIONED BY (p)"
                        + " TBLPROPERTIES ('delta.enableRowTracking' = 'true',"
                        + " 'delta.enableDeletionVectors' = 'true',"
                        + " 'delta.checkpointInterval' = '3')");
        for (int insert = 0; insert < INSERTS; insert++) {
            SparkDelta.sql(
                    "INSERT INTO delta.`"
                            + table
                            + "` SELECT id, IF(id % 2 = 0, 'a', 'b'), CAST(id AS INT) FROM range("
                            + insert * ROWS_PER_INSERT
                            + ", "
                            + (insert + 1) * ROWS_PER_INSERT
                            + ")");
        }
        copyDirectory(Path.of(table), Path.of(twin));

        Map<Long, Tracked> initial = readTracked(table);
        assertThat(initial).hasSize(INSERTS * ROWS_PER_INSERT);
        assertThat(readTracked(twin)).as("the twin, as copied").isEqualTo(initial);
        assertThat(latestVersion(table)).isEqualTo(INSERTS);

        // The keys whose row is still the one Spark inserted: the same row id in both tables.
        Set<Long> sparksRows = new HashSet<>(initial.keySet());
        Map<Long, Integer> model = new TreeMap<>();
        initial.forEach((id, row) -> model.put(id, row.v()));
        Map<Long, Tracked> previous = initial;
        Map<Long, Tracked> previousTwin = initial;
        Random random = new Random(31 + mode.ordinal());

        // Inline compaction is on by default, and every file here is small (below a sixteenth of
        // the target size): once a partition holds four files of a size tier the sink merges them
        // (checked at the end), copying rows no checkpoint changed.
        try (UpsertHarness deltalite =
                UpsertHarness.open(table, KEYED, MergeOptions.DEFAULTS.withWriteMode(mode))) {
            assertThat(latestVersion(table))
                    .as("opening the table commits nothing")
                    .isEqualTo(INSERTS);
            ExpectedTable expected =
                    new ExpectedTable(deltalite, KEYED.toSchema(), SparkRows.readTable(table));
            int committed = 0;
            int skipped = 0;
            while (committed < CHECKPOINTS) {
                List<Change> changes = randomChanges(random);
                // The net change of each key: its last one. The sink's change buffer keeps the last
                // change of a key too, so a key deleted and upserted again within a checkpoint is
                // updated, as the MERGE updates it.
                Map<Long, Change> net = new LinkedHashMap<>();
                changes.forEach(change -> net.put(change.id(), change));
                boolean changesAnything =
                        net.values().stream()
                                .anyMatch(
                                        change ->
                                                !change.delete() || model.containsKey(change.id()));
                if (!changesAnything) {
                    // Only deletes of absent keys: neither side would change a row; neither gets
                    // the checkpoint, so that the versions keep lining up.
                    skipped++;
                    assertThat(skipped).as("checkpoints without a net change").isLessThan(10);
                    continue;
                }

                for (Change change : changes) {
                    if (change.delete()) {
                        expected.delete(change.id(), change.p(), null);
                    } else {
                        expected.upsert(change.id(), change.p(), change.v());
                    }
                }
                long twinBefore = latestVersion(twin);
                CommitOutcome outcome = expected.commit();
                merge(twin, net.values());
                committed++;

                Set<Long> netDeleted = new HashSet<>();
                for (Change change : net.values()) {
                    if (change.delete()) {
                        model.remove(change.id());
                        netDeleted.add(change.id());
                        sparksRows.remove(change.id());
                    } else {
                        model.put(change.id(), change.v());
                    }
                }

                // One MERGE is one version, and the sink's checkpoint one version (its inline
                // compaction rides along in the checkpoint's commit): the versions line up.
                assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
                assertThat(latestVersion(twin)).as("the MERGE's commits").isEqualTo(twinBefore + 1);
                assertThat(outcome.version())
                        .as("checkpoint %d: the sink's version against the MERGE's", committed)
                        .isEqualTo(latestVersion(twin))
                        .isEqualTo(latestVersion(table));

                Map<Long, Tracked> rows = readTracked(table);
                Map<Long, Tracked> twinRows = readTracked(twin);
                assertSameRows(committed, rows, twinRows, model);
                assertSparksRowIds(committed, rows, twinRows, sparksRows);
                assertThat(differences(commitVersions(rows), commitVersions(twinRows)))
                        .as(
                                "checkpoint %d (version %d): row commit versions that differ, key"
                                        + " -> [the sink's, the MERGE's]",
                                committed, outcome.version())
                        .isEmpty();
                assertUniqueRowIds(committed, "the sink's table", rows);
                assertUniqueRowIds(committed, "the twin (Spark)", twinRows);
                assertKeptRowIds(committed, "the sink's table", previous, rows, netDeleted);
                assertKeptRowIds(committed, "the twin (Spark)", previousTwin, twinRows, netDeleted);
                previous = rows;
                previousTwin = twinRows;
            }
            ExpectedTable.assertReadByBothEngines(table, expected.rows());
        }

        assertThat(DeltaHistory.compactedFiles(Path.of(table)))
                .as("files the sink compacted (removed with dataChange = false)")
                .isPositive();
        assertThat(sparksRows).as("rows Spark inserted that the sink kept").isNotEmpty();
        assertThat(checkpointVersions(Path.of(table)))
                .as("log checkpoints written after Spark's inserts")
                .filteredOn(version -> version > INSERTS)
                .hasSizeGreaterThanOrEqualTo(2);
        long largestRowId =
                previous.values().stream().mapToLong(Tracked::rowId).max().orElseThrow();
        assertThat(rowIdHighWaterMark(Path.of(table)))
                .as("the table's rowIdHighWaterMark, against the largest row id Spark reads")
                .isGreaterThanOrEqualTo(largestRowId);
    }

    /**
     * In column mapping {@code id} mode every field of a data file has a Parquet field id: the
     * sink's files give the row tracking columns Iceberg's reserved ids, and Spark still reads the
     * ids they keep. Spark inserts 20 rows; the sink updates five, deletes one and inserts one,
     * then updates one of its own rows and one it updated; Spark's {@code MERGE} updates a row the
     * sink wrote last. Every row keeps its id throughout.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE"}) // copies and new rows; RowTrackingTest has both modes
    void inColumnMappingIdModeRowsKeepTheirIds(WriteMode mode) throws IOException {
        String table = dir.resolve("mapped").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, p STRING, v INT) USING delta PARTITIONED BY (p)"
                        + " TBLPROPERTIES ('delta.columnMapping.mode' = 'id',"
                        + " 'delta.enableRowTracking' = 'true',"
                        + " 'delta.enableDeletionVectors' = 'true')");
        SparkDelta.sql(
                "INSERT INTO delta.`"
                        + table
                        + "` SELECT id, IF(id % 2 = 0, 'a', 'b'), CAST(id AS INT) FROM range(0, 20)");
        Map<Long, Tracked> spark = readTracked(table);
        Map<Long, Tracked> first;
        try (UpsertHarness deltalite =
                UpsertHarness.open(table, KEYED, MergeOptions.DEFAULTS.withWriteMode(mode))) {
            for (long id = 0; id < 5; id++) {
                deltalite.upsert(id, id % 2 == 0 ? "a" : "b", 100 + (int) id);
            }
            deltalite.delete(5L, "b", null);
            deltalite.upsert(100L, "a", 100);
            long version = deltalite.commit().version();

            first = readTracked(table);
            assertThat(first).hasSize(20);
            for (long id = 0; id < 20; id++) {
                if (id == 5) {
                    assertThat(first).doesNotContainKey(5L);
                } else if (id < 5) {
                    assertThat(first.get(id).rowId())
                            .as("row %d", id)
                            .isEqualTo(spark.get(id).rowId());
                    assertThat(first.get(id).commitVersion()).isEqualTo(version);
                    assertThat(first.get(id).v()).isEqualTo(100 + (int) id);
                } else {
                    assertThat(first.get(id)).as("row %d", id).isEqualTo(spark.get(id));
                }
            }
            assertThat(spark.values().stream().map(Tracked::rowId))
                    .doesNotContain(first.get(100L).rowId());

            deltalite.upsert(100L, "a", 101);
            deltalite.upsert(2L, "a", 202);
            deltalite.commit();
        }
        Map<Long, Tracked> second = readTracked(table);
        assertThat(second.get(100L).rowId()).isEqualTo(first.get(100L).rowId());
        assertThat(second.get(2L).rowId()).isEqualTo(spark.get(2L).rowId());
        assertThat(second.get(3L)).isEqualTo(first.get(3L));

        SparkDelta.sql("UPDATE delta.`" + table + "` SET v = 303 WHERE id = 100");
        Map<Long, Tracked> afterSpark = readTracked(table);
        assertThat(afterSpark.get(100L).rowId()).isEqualTo(first.get(100L).rowId());
        assertThat(afterSpark.get(100L).v()).isEqualTo(303);
        assertThat(afterSpark.get(2L)).isEqualTo(second.get(2L));
    }

    /**
     * Between a checkpoint's merge and its commit Spark moves a row the checkpoint updates to
     * another partition — its {@code UPDATE} keeps the row's id. The commit merges the partition
     * again and finds the key gone: the sink's row must not keep the id it read, which the moved
     * row still has. (The key is then in both partitions, as any concurrent change of a key's
     * partition by another writer leaves it; the ids stay unique.)
     */
    @org.junit.jupiter.api.Test
    void aRowSparkMovesBeforeTheCommitKeepsItsIdAlone() throws IOException {
        String table = dir.resolve("moved").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, p STRING, v INT) USING delta PARTITIONED BY (p)"
                        + " TBLPROPERTIES ('delta.enableRowTracking' = 'true')");
        SparkDelta.sql(
                "INSERT INTO delta.`"
                        + table
                        + "` SELECT id, IF(id % 2 = 0, 'a', 'b'), CAST(id AS INT) FROM range(0, 10)");
        long moved = readTracked(table).get(4L).rowId();
        try (UpsertHarness deltalite =
                UpsertHarness.open(
                        table,
                        KEYED,
                        MergeOptions.DEFAULTS.withWriteMode(WriteMode.COPY_ON_WRITE))) {
            deltalite.upsert(4L, "a", 40);
            deltalite.upsert(6L, "a", 60);
            List<io.deltalite.flink.internal.merge.result.PartitionWriteResult> prepared =
                    deltalite.prepare();
            SparkDelta.sql("UPDATE delta.`" + table + "` SET p = 'c' WHERE id = 4");
            CommitOutcome outcome = deltalite.commitPrepared(deltalite.lastCheckpoint(), prepared);
            assertThat(outcome.remergedPartitions()).isPositive();
        }
        Map<String, Long> ids = new TreeMap<>();
        for (Row row :
                SparkDelta.sql("SELECT id, p, _metadata.row_id FROM delta.`" + table + "`")) {
            ids.put(row.getLong(0) + "/" + row.getString(1), row.getLong(2));
        }
        assertThat(ids).containsKeys("4/a", "4/c", "6/a").hasSize(11);
        assertThat(ids.get("4/c")).as("the row Spark moved").isEqualTo(moved);
        assertThat(new HashSet<>(ids.values())).as("row ids are unique").hasSize(ids.size());
    }

    /** One change of a checkpoint: an upsert of {@code v}, or a delete when {@code v} is null. */
    private record Change(long id, Integer v) {
        String p() {
            return id % 2 == 0 ? "a" : "b";
        }

        boolean delete() {
            return v == null;
        }
    }

    /** A row as Spark reads it, with its row tracking metadata. */
    private record Tracked(String p, int v, long rowId, long commitVersion) {}

    private static List<Change> randomChanges(Random random) {
        List<Change> changes = new ArrayList<>();
        for (int i = 0; i < CHANGES_PER_CHECKPOINT; i++) {
            long id =
                    !changes.isEmpty() && random.nextInt(5) == 0
                            // a key changed a second time in the same checkpoint
                            ? changes.get(random.nextInt(changes.size())).id()
                            : random.nextInt(KEY_RANGE);
            changes.add(new Change(id, random.nextInt(4) == 0 ? null : random.nextInt(1000)));
        }
        return changes;
    }

    /** Applies the net changes of a checkpoint to {@code table} with one Spark MERGE. */
    private static void merge(String table, Iterable<Change> net) {
        List<Row> source = new ArrayList<>();
        for (Change change : net) {
            source.add(
                    RowFactory.create(
                            change.id(), change.p(), change.v(), change.delete() ? "D" : "U"));
        }
        SparkDelta.session()
                .createDataFrame(source, CHANGES)
                .createOrReplaceTempView("row_tracking_changes");
        SparkDelta.sql(
                "MERGE INTO delta.`"
                        + table
                        + "` t USING row_tracking_changes s ON t.p = s.p AND t.id = s.id"
                        + " WHEN MATCHED AND s.op = 'D' THEN DELETE"
                        + " WHEN MATCHED THEN UPDATE SET t.v = s.v"
                        + " WHEN NOT MATCHED AND s.op <> 'D' THEN INSERT (id, p, v)"
                        + " VALUES (s.id, s.p, s.v)");
    }

    /** Every row of the table by key, with the row id and commit version Spark reads. */
    private static Map<Long, Tracked> readTracked(String table) {
        Map<Long, Tracked> rows = new TreeMap<>();
        for (Row row :
                SparkDelta.sql(
                        "SELECT id, p, v, _metadata.row_id AS row_id,"
                                + " _metadata.row_commit_version AS row_commit_version"
                                + " FROM delta.`"
                                + table
                                + "`")) {
            Tracked previous =
                    rows.put(
                            row.getLong(0),
                            new Tracked(
                                    row.getString(1),
                                    row.getInt(2),
                                    row.getLong(3),
                                    row.getLong(4)));
            assertThat(previous).as("a second row of key %d in %s", row.getLong(0), table).isNull();
        }
        return rows;
    }

    private static void assertSameRows(
            int checkpoint,
            Map<Long, Tracked> rows,
            Map<Long, Tracked> twinRows,
            Map<Long, Integer> model) {
        Map<Long, Integer> values = new TreeMap<>();
        rows.forEach(
                (id, row) -> {
                    assertThat(row.p()).isEqualTo(id % 2 == 0 ? "a" : "b");
                    values.put(id, row.v());
                });
        Map<Long, Integer> twinValues = new TreeMap<>();
        twinRows.forEach((id, row) -> twinValues.put(id, row.v()));
        assertThat(values).as("checkpoint %d: the sink's rows", checkpoint).isEqualTo(model);
        assertThat(twinValues).as("checkpoint %d: the MERGE's rows", checkpoint).isEqualTo(model);
    }

    /** The rows Spark inserted and nothing deleted since carry Spark's row ids in both tables. */
    private static void assertSparksRowIds(
            int checkpoint,
            Map<Long, Tracked> rows,
            Map<Long, Tracked> twinRows,
            Set<Long> sparksRows) {
        Map<Long, Long> ids = new TreeMap<>();
        Map<Long, Long> twinIds = new TreeMap<>();
        for (long id : sparksRows) {
            ids.put(id, rows.get(id).rowId());
            twinIds.put(id, twinRows.get(id).rowId());
        }
        assertThat(differences(ids, twinIds))
                .as(
                        "checkpoint %d: row ids that differ, of the %d rows Spark inserted and"
                                + " nothing deleted since, key -> [the sink's, the MERGE's]",
                        checkpoint, ids.size())
                .isEmpty();
    }

    private static void assertUniqueRowIds(int checkpoint, String which, Map<Long, Tracked> rows) {
        Map<Long, List<Long>> keysByRowId = new TreeMap<>();
        rows.forEach(
                (id, row) ->
                        keysByRowId.computeIfAbsent(row.rowId(), k -> new ArrayList<>()).add(id));
        keysByRowId.values().removeIf(keys -> keys.size() == 1);
        assertThat(keysByRowId)
                .as("checkpoint %d: row ids in %s that several keys have", checkpoint, which)
                .isEmpty();
    }

    /** A key present before and after a checkpoint (so not deleted by it) keeps its row id. */
    private static void assertKeptRowIds(
            int checkpoint,
            String which,
            Map<Long, Tracked> before,
            Map<Long, Tracked> after,
            Set<Long> netDeleted) {
        Map<Long, Long> idsBefore = new TreeMap<>();
        Map<Long, Long> idsAfter = new TreeMap<>();
        for (Map.Entry<Long, Tracked> entry : after.entrySet()) {
            long id = entry.getKey();
            if (before.containsKey(id) && !netDeleted.contains(id)) {
                idsBefore.put(id, before.get(id).rowId());
                idsAfter.put(id, entry.getValue().rowId());
            }
        }
        assertThat(differences(idsAfter, idsBefore))
                .as(
                        "checkpoint %d: row ids in %s that changed, of the %d keys it held before"
                                + " too, key -> [after, before]",
                        checkpoint, which, idsBefore.size())
                .isEmpty();
    }

    /** The keys whose values differ, each with {@code [actual, expected]}. */
    private static Map<Long, List<Long>> differences(
            Map<Long, Long> actual, Map<Long, Long> expected) {
        assertThat(actual.keySet()).isEqualTo(expected.keySet());
        Map<Long, List<Long>> differences = new TreeMap<>();
        actual.forEach(
                (id, value) -> {
                    if (!value.equals(expected.get(id))) {
                        differences.put(id, List.of(value, expected.get(id)));
                    }
                });
        return differences;
    }

    private static Map<Long, Long> commitVersions(Map<Long, Tracked> rows) {
        Map<Long, Long> versions = new TreeMap<>();
        rows.forEach((id, row) -> versions.put(id, row.commitVersion()));
        return versions;
    }

    /** The latest version in the table's log (its newest commit file). */
    private static long latestVersion(String table) throws IOException {
        return listNames(Path.of(table, "_delta_log")).stream()
                .filter(name -> name.matches("\\d{20}\\.json"))
                .mapToLong(name -> Long.parseLong(name.substring(0, 20)))
                .max()
                .orElseThrow();
    }

    /** The versions that have a log checkpoint (classic, multi-part or v2). */
    private static List<Long> checkpointVersions(Path table) throws IOException {
        return listNames(table.resolve("_delta_log")).stream()
                .filter(name -> name.matches("\\d{20}\\.checkpoint\\..*parquet"))
                .map(name -> Long.parseLong(name.substring(0, 20)))
                .distinct()
                .toList();
    }

    /** The high-water mark of the latest {@code delta.rowTracking} domain metadata in the log. */
    private static long rowIdHighWaterMark(Path table) throws IOException {
        JsonNode latest = null;
        for (JsonNode action : DeltaHistory.actions(table)) {
            JsonNode domain = action.get("domainMetadata");
            if (domain != null && "delta.rowTracking".equals(domain.get("domain").asText())) {
                latest = domain;
            }
        }
        assertThat(latest).as("a delta.rowTracking domain metadata in the log").isNotNull();
        assertThat(latest.get("removed").asBoolean()).isFalse();
        return JSON.readTree(latest.get("configuration").asText())
                .get("rowIdHighWaterMark")
                .asLong();
    }

    private static void copyDirectory(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            paths.forEach(
                    path -> {
                        try {
                            Files.copy(path, to.resolve(from.relativize(path).toString()));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        }
    }

    private static List<String> listNames(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(path -> path.getFileName().toString()).sorted().toList();
        }
    }
}
