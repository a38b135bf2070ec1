package io.deltalite.flink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.deltalite.flink.internal.compat.FlinkLine;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.warmup.MergeWarmUp;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.NoKeyIndexDisagreements;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.planner.factories.TestValuesTableFactory;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code 'connector' = 'deltalite'} in Flink SQL: changelogs, updating aggregations and Debezium
 * CDC records written through the planner, read back with an independent Kernel scan.
 */
@ExtendWith(NoKeyIndexDisagreements.class)
class DeltaLiteSqlITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    @TempDir Path dir;
    private StreamTableEnvironment tables;
    private StreamExecutionEnvironment env;

    @BeforeEach
    void environment() {
        env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        tables = StreamTableEnvironment.create(env);
    }

    private String createOrders(String name, Path path, String extraOptions) {
        tables.executeSql(
                "CREATE TABLE "
                        + name
                        + " ("
                        + " id BIGINT, `day` STRING, amount INT, note STRING,"
                        + " PRIMARY KEY (id) NOT ENFORCED"
                        + ") PARTITIONED BY (`day`) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + path
                        + "',"
                        + " 'sink.target-file-size' = '64kb'"
                        + extraOptions
                        + ")");
        return name;
    }

    /*
     * The change scripts are upsert changelogs (an update may come without its before image). On
     * Flink 2.x their sources declare no key and the sink gets them as they are. Flink 1.20's
     * planner would put its upsert materializer before the sink for a source without a key, and
     * it reads such a stream as a multiset (an update after an update without a before image
     * brings an older row back), so on 1.20 the sources declare their key, as CDC sources do
     * (README, "Upsert materialization").
     */
    private static final boolean LINE_1_20 = FlinkLine.ARTIFACT.endsWith("-flink-1.20");

    private static final String SOURCE_KEY = LINE_1_20 ? ", PRIMARY KEY (id) NOT ENFORCED" : "";

    @Test
    void changelogStreamFromDataStreamEqualsTheModel() throws Exception {
        ChangeScript script = ChangeScript.generate(3, 3_000, 500, 4, false);
        List<Row> rows = new ArrayList<>();
        for (ChangeScript.Change change : script.changes()) {
            rows.add(Row.ofKind(change.kind(), change.values()));
        }
        DataStream<Row> changes =
                env.fromData(
                                rows,
                                Types.ROW_NAMED(
                                        new String[] {"id", "day", "amount", "note"},
                                        Types.LONG,
                                        Types.STRING,
                                        Types.INT,
                                        Types.STRING))
                        .setParallelism(1);
        Schema.Builder schema = Schema.newBuilder();
        if (LINE_1_20) {
            schema.primaryKey("id");
        }
        Table changelog =
                tables.fromChangelogStream(
                        changes,
                        schema.column("id", "BIGINT NOT NULL")
                                .column("day", "STRING")
                                .column("amount", "INT")
                                .column("note", "STRING")
                                .build());
        Path table = dir.resolve("from-changelog");
        createOrders("orders", table, "");
        changelog.executeInsert("orders").await();

        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(Rows.sorted(script.expected()));
    }

    /** Table {@code source_changes}: the changes of {@code script}, bounded, as a changelog. */
    private void createSourceChanges(ChangeScript script) {
        List<Row> rows = new ArrayList<>();
        for (ChangeScript.Change change : script.changes()) {
            rows.add(Row.ofKind(change.kind(), change.values()));
        }
        String dataId = TestValuesTableFactory.registerData(rows);
        tables.executeSql(
                "CREATE TABLE source_changes (id BIGINT NOT NULL, `day` STRING, amount INT, note STRING"
                        + SOURCE_KEY
                        + ") WITH ('connector' = 'values', 'data-id' = '"
                        + dataId
                        + "',"
                        + " 'changelog-mode' = 'I,UB,UA,D', 'bounded' = 'true')");
    }

    @Test
    void valuesSourceInChangelogModeEqualsTheModel() throws Exception {
        ChangeScript script = ChangeScript.generate(4, 2_000, 300, 3, false);
        createSourceChanges(script);
        Path table = dir.resolve("from-values");
        createOrders("orders", table, "");
        tables.executeSql("INSERT INTO orders SELECT * FROM source_changes").await();

        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(Rows.sorted(script.expected()));
    }

    /**
     * A table created with {@code 'delta.columnMapping.mode' = 'name'} among its options: Kernel
     * gives its columns physical names, by which deltalite writes its files, and the table reads
     * back as the model.
     */
    @Test
    void aTableCreatedWithColumnMappingEqualsTheModel() throws Exception {
        ChangeScript script = ChangeScript.generate(6, 1_000, 200, 3, false);
        createSourceChanges(script);
        Path table = dir.resolve("column-mapped");
        createOrders("orders", table, ", 'delta.columnMapping.mode' = 'name'");
        tables.executeSql("INSERT INTO orders SELECT * FROM source_changes").await();

        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(Rows.sorted(script.expected()));
        io.delta.kernel.types.StructType schema = KernelTableReader.schema(table.toString());
        assertThat(schema.fields())
                .allSatisfy(
                        field ->
                                assertThat(
                                                field.getMetadata()
                                                        .getString(
                                                                "delta.columnMapping.physicalName"))
                                        .startsWith("col-"));
    }

    /**
     * A source renamed a column and dropped another: the new DDL names them so, and the table
     * follows through 'sink.schema-evolution.renames' and 'sink.schema-evolution.drop-columns' —
     * the renamed column keeps the values written before.
     */
    @Test
    void sqlOptionsRenameAndDropColumnsOfAColumnMappedTable() throws Exception {
        Path table = dir.resolve("renamed");
        createOrders("orders", table, ", 'delta.columnMapping.mode' = 'name'");
        tables.executeSql("INSERT INTO orders VALUES (1, 'd1', 10, 'n'), (2, 'd1', 20, 'm')")
                .await();

        tables.executeSql(
                "CREATE TABLE orders_v2 (id BIGINT, `day` STRING, total INT,"
                        + " PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (`day`) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + table
                        + "', 'sink.schema-evolution.renames' = 'amount:total',"
                        + " 'sink.schema-evolution.drop-columns' = 'true')");
        tables.executeSql("INSERT INTO orders_v2 VALUES (2, 'd1', 21), (3, 'd2', 30)").await();

        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(
                        Rows.sorted(
                                List.of(
                                        new Object[] {1L, "d1", 10},
                                        new Object[] {2L, "d1", 21},
                                        new Object[] {3L, "d2", 30})));
        assertThat(KernelTableReader.schema(table.toString()).fieldNames())
                .containsExactly("id", "day", "total");
    }

    /**
     * A table Spark created with column defaults (Delta's allowColumnDefaults): a DDL without those
     * columns writes their literal defaults, as Spark's INSERT without them does — not null.
     */
    @Test
    void columnsTheDdlLacksGetTheTablesLiteralDefaults() throws Exception {
        Path table = dir.resolve("defaults");
        io.deltalite.flink.internal.delta.table.TestTables.writeVersionZero(
                table,
                "{\"type\":\"struct\",\"fields\":["
                        + "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},"
                        + "{\"name\":\"status\",\"type\":\"string\",\"nullable\":true,"
                        + "\"metadata\":{\"CURRENT_DEFAULT\":\"'new'\",\"EXISTS_DEFAULT\":\"'new'\"}},"
                        + "{\"name\":\"qty\",\"type\":\"integer\",\"nullable\":false,"
                        + "\"metadata\":{\"CURRENT_DEFAULT\":\"1\",\"EXISTS_DEFAULT\":\"1\"}}]}",
                "{\"delta.feature.allowColumnDefaults\":\"supported\"}",
                "{\"minReaderVersion\":1,\"minWriterVersion\":7,"
                        + "\"writerFeatures\":[\"allowColumnDefaults\"]}");
        tables.executeSql(
                "CREATE TABLE with_defaults (id BIGINT NOT NULL, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('connector' = 'deltalite', 'path' = '"
                        + table
                        + "')");
        tables.executeSql("INSERT INTO with_defaults VALUES (1), (2)").await();

        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(
                        Rows.sorted(
                                List.of(new Object[] {1L, "new", 1}, new Object[] {2L, "new", 1})));
    }

    /** 'sink.distribution' = 'key': every writer shares the partitions; the table is the model. */
    @Test
    void distributedByKeyEveryWriterWritesItsOwnKeysIntoEveryPartition() throws Exception {
        ChangeScript script = ChangeScript.generate(13, 2_000, 300, 2, false);
        List<Row> rows = new ArrayList<>();
        for (ChangeScript.Change change : script.changes()) {
            rows.add(Row.ofKind(change.kind(), change.values()));
        }
        String dataId = TestValuesTableFactory.registerData(rows);
        tables.executeSql(
                "CREATE TABLE keyed_changes (id BIGINT NOT NULL, `day` STRING, amount INT, note STRING"
                        + SOURCE_KEY
                        + ") WITH ('connector' = 'values', 'data-id' = '"
                        + dataId
                        + "',"
                        + " 'changelog-mode' = 'I,UB,UA,D', 'bounded' = 'true')");
        Path table = dir.resolve("by-key");
        createOrders("orders", table, ", 'sink.distribution' = 'key', 'sink.parallelism' = '2'");
        tables.executeSql("INSERT INTO orders SELECT * FROM keyed_changes").await();

        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(Rows.sorted(script.expected()));
        // Both writers wrote files of their own key range into the partitions.
        assertThat(KernelTableReader.liveFiles(table.toString()).keySet())
                .anySatisfy(
                        path -> assertThat(path).matches(".*/keys-[0-9a-f]{8}-0-63-of-128/[^/]+"))
                .anySatisfy(
                        path ->
                                assertThat(path)
                                        .matches(".*/keys-[0-9a-f]{8}-64-127-of-128/[^/]+"));
    }

    @Test
    void anUpdatingAggregationIsKeptCurrent() throws Exception {
        Random random = new Random(8);
        List<Row> orders = new ArrayList<>();
        Map<String, long[]> expected = new LinkedHashMap<>();
        for (int i = 0; i < 2_000; i++) {
            String customer = "c" + random.nextInt(50);
            long amount = random.nextInt(1_000);
            orders.add(Row.of(customer, amount));
            long[] totals = expected.computeIfAbsent(customer, c -> new long[2]);
            totals[0] += amount;
            totals[1]++;
        }
        String dataId = TestValuesTableFactory.registerData(orders);
        tables.executeSql(
                "CREATE TABLE placed (customer STRING, amount BIGINT) WITH ("
                        + " 'connector' = 'values', 'data-id' = '"
                        + dataId
                        + "', 'bounded' = 'true')");
        Path table = dir.resolve("totals");
        tables.executeSql(
                "CREATE TABLE totals (customer STRING, total BIGINT, orders BIGINT,"
                        + " PRIMARY KEY (customer) NOT ENFORCED) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + table
                        + "')");
        tables.executeSql(
                        "INSERT INTO totals SELECT customer, SUM(amount), COUNT(*) FROM placed"
                                + " GROUP BY customer")
                .await();

        List<Object[]> rows = new ArrayList<>();
        expected.forEach(
                (customer, totals) -> rows.add(new Object[] {customer, totals[0], totals[1]}));
        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(Rows.sorted(rows));
    }

    @Test
    void debeziumChangeEventsAreApplied() throws Exception {
        // A copy on disk: the filesystem connector needs a path, and the test may run from a jar.
        Path events = dir.resolve("debezium-orders.json");
        try (java.io.InputStream in = getClass().getResourceAsStream("/debezium/orders.json")) {
            java.nio.file.Files.copy(in, events);
        }
        tables.executeSql(
                "CREATE TABLE orders_cdc (id BIGINT, `day` STRING, amount INT, note STRING) WITH ("
                        + " 'connector' = 'filesystem', 'path' = '"
                        + events
                        + "',"
                        + " 'format' = 'debezium-json')");
        Path table = dir.resolve("from-debezium");
        createOrders("orders", table, "");
        tables.executeSql("INSERT INTO orders SELECT * FROM orders_cdc").await();

        List<Object[]> actual = KernelTableReader.readAll(table.toString());
        assertThat(Rows.sorted(actual)).isEqualTo(Rows.sorted(applyDebezium(events)));
        // Order 4 moved from 2024-06-02 to -03 and back to -01: exactly one row, in -01.
        assertThat(actual)
                .filteredOn(row -> row[0].equals(4L))
                .singleElement()
                .satisfies(row -> assertThat(row[1]).isEqualTo("2024-06-01"));
    }

    /** The table Debezium events describe: c/r insert, u replaces before by after, d deletes. */
    private static List<Object[]> applyDebezium(Path events) throws Exception {
        ObjectMapper json = new ObjectMapper();
        Map<List<Object>, Object[]> table = new LinkedHashMap<>();
        for (String line : Files.readAllLines(events)) {
            JsonNode event = json.readTree(line);
            JsonNode before = event.get("before");
            JsonNode after = event.get("after");
            if (before != null && !before.isNull()) {
                table.remove(List.of(before.get("day").asText(), before.get("id").asLong()));
            }
            if (after != null && !after.isNull()) {
                table.put(
                        List.of(after.get("day").asText(), after.get("id").asLong()),
                        new Object[] {
                            after.get("id").asLong(), after.get("day").asText(),
                            after.get("amount").asInt(), after.get("note").asText()
                        });
            }
        }
        return new ArrayList<>(table.values());
    }

    @Test
    void aTableWithoutPrimaryKeyIsAppendOnly() throws Exception {
        Path table = dir.resolve("events");
        tables.executeSql(
                "CREATE TABLE events (id BIGINT, kind STRING) WITH ("
                        + " 'connector' = 'deltalite', 'sink.warm-up' = 'true', 'path' = '"
                        + table
                        + "')");
        tables.executeSql("INSERT INTO events VALUES (1, 'a'), (1, 'a'), (2, 'b')").await();
        assertThat(KernelTableReader.readAll(table.toString())).hasSize(3);
        // off by default, and no other test of this JVM turns it on
        assertThat(MergeWarmUp.started()).as("the warm-up the SQL option asked for").isTrue();

        tables.executeSql(
                "CREATE TABLE clicks (customer STRING, amount BIGINT) WITH ("
                        + " 'connector' = 'values', 'bounded' = 'true')");
        tables.executeSql(
                "CREATE TABLE totals (customer STRING, total BIGINT) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + dir.resolve("nokey")
                        + "')");
        assertThatThrownBy(
                        () ->
                                tables.executeSql(
                                        "INSERT INTO totals SELECT customer, SUM(amount) FROM clicks"
                                                + " GROUP BY customer"))
                .hasMessageContaining("doesn't support consuming update");
    }

    @Test
    void unknownOptionsAreRefusedBeforeTheJobStarts() {
        createOrders("orders", dir.resolve("t"), ", 'sink.max-paralel-files' = '3'");
        assertThatThrownBy(() -> tables.executeSql("INSERT INTO orders VALUES (1, 'd', 1, 'n')"))
                .satisfies(
                        e ->
                                assertThat(allMessages(e))
                                        .contains("sink.max-paralel-files")
                                        .contains("sink.max-parallel-files"));
    }

    @Test
    void unsupportedTypesAreRefusedWithTheColumn() {
        tables.executeSql(
                "CREATE TABLE timed (id BIGINT, at_time TIME, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + dir.resolve("timed")
                        + "')");
        assertThatThrownBy(() -> tables.executeSql("INSERT INTO timed VALUES (1, TIME '10:00:00')"))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(allMessages(e)).contains("at_time").contains("TIME"));
    }

    @Test
    void anExistingTableMustMatchTheDdl() throws Exception {
        Path table = dir.resolve("existing");
        createOrders("orders", table, "");
        tables.executeSql("INSERT INTO orders VALUES (1, 'd1', 1, 'n')").await();

        tables.executeSql(
                "CREATE TABLE orders_by_note (id BIGINT, `day` STRING, amount INT, note STRING,"
                        + " PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (note) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + table
                        + "')");
        assertThatThrownBy(
                        () ->
                                tables.executeSql(
                                        "INSERT INTO orders_by_note VALUES (2, 'd1', 2, 'n')"))
                .isInstanceOf(ValidationException.class)
                .satisfies(
                        e ->
                                assertThat(allMessages(e))
                                        .contains("partitioned by [day]")
                                        .contains("[note]"));

        tables.executeSql(
                "CREATE TABLE orders_by_text (id BIGINT, `day` STRING, amount STRING, note STRING,"
                        + " PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (`day`) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + table
                        + "')");
        assertThatThrownBy(
                        () ->
                                tables.executeSql(
                                        "INSERT INTO orders_by_text VALUES (2, 'd1', 'x', 'n')"))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(allMessages(e)).contains("'amount'").contains("string"));
    }

    /**
     * A new DDL over an existing table: refused without 'sink.schema-evolution'; with it, the new
     * column is added and a widened type is the table's from then on (written by a job distributed
     * by key); a job with the old DDL still writes the table (its narrower values widened, the new
     * column null in the rows it writes).
     */
    @Test
    // The environment restarts without end: a failure that comes back at every restart (an index
    // that disagrees with the files again) must fail the test, not hang it.
    @org.junit.jupiter.api.Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
    void schemaEvolutionAddsTheDdlsNewColumnsAndWidensTypes() throws Exception {
        Path table = dir.resolve("evolving");
        // Each job's key index reads files of the old schema and of the evolved one, validated.
        String validatedIndex = ", 'sink.key-index' = 'on', 'sink.key-index.validate' = 'true'";
        createOrders("orders", table, validatedIndex);
        tables.executeSql("INSERT INTO orders VALUES (1, 'd1', 1, 'n'), (2, 'd1', 2, 'm')").await();

        String newDdl =
                " (id BIGINT, `day` STRING, amount BIGINT, note STRING, channel STRING,"
                        + " PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (`day`) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + table
                        + "'";
        tables.executeSql("CREATE TABLE orders_strict" + newDdl + ")");
        assertThatThrownBy(
                        () ->
                                tables.executeSql(
                                        "INSERT INTO orders_strict VALUES (3, 'd2', 3, 'o', 'app')"))
                .isInstanceOf(ValidationException.class)
                .satisfies(
                        e ->
                                assertThat(allMessages(e))
                                        .contains("'channel'")
                                        .contains("schema-evolution = add-columns"));

        // Distributed by key: two writers share the partitions that jobs of whole partitions
        // wrote in the old schema, and the next job of whole partitions follows theirs.
        tables.executeSql(
                "CREATE TABLE orders_v2"
                        + newDdl
                        + ", 'sink.schema-evolution' = 'add-columns-and-widen-types'"
                        + ", 'sink.distribution' = 'key', 'sink.parallelism' = '2'"
                        + validatedIndex
                        + ")");
        tables.executeSql(
                        "INSERT INTO orders_v2 VALUES (1, 'd1', 5000000000, 'n2', 'web'),"
                                + " (3, 'd2', 3, 'o', 'app')")
                .await();
        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(
                        Rows.sorted(
                                List.of(
                                        new Object[] {1L, "d1", 5_000_000_000L, "n2", "web"},
                                        new Object[] {2L, "d1", 2L, "m", null},
                                        new Object[] {3L, "d2", 3L, "o", "app"})));

        // The old DDL (amount INT, no channel) still fits the evolved table.
        tables.executeSql("INSERT INTO orders VALUES (2, 'd1', 22, 'm2')").await();
        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(
                        Rows.sorted(
                                List.of(
                                        new Object[] {1L, "d1", 5_000_000_000L, "n2", "web"},
                                        new Object[] {2L, "d1", 22L, "m2", null},
                                        new Object[] {3L, "d2", 3L, "o", "app"})));
    }

    private static String allMessages(Throwable error) {
        StringBuilder messages = new StringBuilder();
        for (Throwable e = error; e != null; e = e.getCause()) {
            messages.append(e.getMessage()).append('\n');
        }
        return messages.toString();
    }

    static RowKind kindOf(Row row) {
        return row.getKind();
    }
}
