package io.deltalite.e2e.cdc.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.cdc.DeltaLiteDataSinkFactory;
import io.deltalite.flink.cdc.PipelineTopology;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.sink.DeltaLiteSink;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.TableWaits;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.factories.FactoryHelper;
import org.apache.flink.cdc.connectors.postgres.source.PostgresSourceBuilder;
import org.apache.flink.cdc.debezium.table.RowDataDebeziumDeserializeSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Mirror a PostgreSQL table into Delta": a real PostgreSQL server with {@code wal_level=logical},
 * a table snapshotted by Flink CDC's {@code postgres-cdc} source and then changed by SQL
 * transactions (inserts, updates that move rows between day partitions, deletes, primary-key
 * changes) while the job streams, its TaskManagers killed in the middle; at the end the Delta table
 * equals {@code SELECT * FROM} the database table, row by row.
 */
class PostgresMirrorTest {
    /** Rows of the snapshot: thousands in the build, a million with -Dcdc.rows=1000000. */
    private static final int ROWS = Integer.getInteger("cdc.rows", 5_000);

    private static final int TRANSACTIONS = Integer.getInteger("cdc.transactions", 300);

    /** Snapshot chunks: small in the build, so that several chunks and splits are exercised. */
    private static final int CHUNK = Math.max(1_000, ROWS / 100);

    /** Five minutes, and a minute more for every 100,000 rows of the snapshot. */
    private static final Duration CONVERGE = Duration.ofMinutes(5 + ROWS / 100_000);

    private static final String[] DAYS = {"2024-06-01", "2024-06-02", "2024-06-03", "2024-06-04"};

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static EmbeddedPostgres postgres;

    @TempDir Path dir;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres =
                EmbeddedPostgres.builder()
                        .setServerConfig("wal_level", "logical")
                        .setServerConfig("max_replication_slots", "8")
                        .setServerConfig("max_wal_senders", "8")
                        .start();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void aPostgresTableIsMirroredThroughTaskManagerFailures(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        createTable("orders", ROWS);

        Path table = dir.resolve("orders");
        StreamTableEnvironment tables = tables();
        tables.executeSql(
                postgresSource(
                        "orders_cdc",
                        "id BIGINT, `day` STRING, amount INT, note STRING",
                        "orders",
                        ", 'scan.incremental.snapshot.chunk.size' = '" + CHUNK + "'"));
        tables.executeSql(
                "CREATE TABLE orders (id BIGINT, `day` STRING, amount INT, note STRING,"
                        + " PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (`day`) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + table
                        + "')");
        JobClient job =
                tables.executeSql("INSERT INTO orders SELECT * FROM orders_cdc")
                        .getJobClient()
                        .orElseThrow();
        AtomicBoolean killed = new AtomicBoolean();
        try {
            TableWaits.awaitCommits(table, 1, CONVERGE);
            CompletableFuture<Void> writes =
                    CompletableFuture.runAsync(
                            () ->
                                    runTransactions(
                                            "orders",
                                            TRANSACTIONS,
                                            () -> killWhileStreaming(cluster, killed, table)));
            writes.get();
            assertThat(killed).as("the TaskManagers were killed mid-run").isTrue();

            TableWaits.awaitRows(table, databaseRows("orders"), CONVERGE, () -> stopped(job));
        } finally {
            job.cancel().get();
        }
        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(Rows.sorted(databaseRows("orders")));
    }

    /**
     * A schema change in PostgreSQL reaching Delta: the job is stopped with a savepoint, the
     * database table gets a new column and a wider type ({@code ALTER TABLE}), and the job is
     * started again from its savepoint with the new DDL and {@code 'sink.schema-evolution'}: the
     * Delta table gets the column and the type in one metadata commit, the rows written before keep
     * their values (null in the new column), and the table equals the database again.
     */
    @Test
    void aColumnAddedInPostgresReachesDeltaAfterARestartFromASavepoint(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        createTable("orders_evolving", 1_000);
        Path table = dir.resolve("orders_evolving");
        Path savepoints = dir.resolve("savepoints");
        String v1 = "id BIGINT, `day` STRING, amount INT, note STRING";
        StreamTableEnvironment before = tables();
        createEvolvingPipeline(before, v1, table, "");
        JobClient first =
                before.executeSql("INSERT INTO orders_evolving SELECT * FROM orders_evolving_cdc")
                        .getJobClient()
                        .orElseThrow();
        String savepoint;
        try {
            TableWaits.awaitCommits(table, 1, CONVERGE);
            runTransactions("orders_evolving", 40, () -> {});
            TableWaits.awaitRows(
                    table, databaseRows("orders_evolving"), CONVERGE, () -> stopped(first));
        } finally {
            savepoint =
                    first.stopWithSavepoint(
                                    false,
                                    savepoints.toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get();
        }
        List<Object[]> mirroredBefore = KernelTableReader.readAll(table.toString());

        try (Connection db = postgres.getPostgresDatabase().getConnection();
                Statement sql = db.createStatement()) {
            sql.execute(
                    "ALTER TABLE orders_evolving ADD COLUMN channel TEXT,"
                            + " ALTER COLUMN amount TYPE BIGINT");
            sql.execute(
                    "UPDATE orders_evolving SET channel = 'web', amount = amount + 5000000000"
                            + " WHERE id % 7 = 0");
            sql.execute(
                    "INSERT INTO orders_evolving VALUES (100001, '2024-06-02', 6000000000,"
                            + " 'after-alter', 'app'), (100002, '2024-06-03', 1, 'no-channel', NULL)");
            sql.execute("DELETE FROM orders_evolving WHERE id % 11 = 0");
        }

        String v2 = "id BIGINT, `day` STRING, amount BIGINT, note STRING, channel STRING";
        StreamTableEnvironment after = tables();
        after.getConfig().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        createEvolvingPipeline(
                after, v2, table, ", 'sink.schema-evolution' = 'add-columns-and-widen-types'");
        JobClient second =
                after.executeSql("INSERT INTO orders_evolving SELECT * FROM orders_evolving_cdc")
                        .getJobClient()
                        .orElseThrow();
        List<Object[]> expected = databaseRows("orders_evolving", "id, day, amount, note, channel");
        try {
            TableWaits.awaitRows(table, expected, CONVERGE, () -> stopped(second));
            // The source and the sink went on from the savepoint, not from a new snapshot.
            assertThat(
                            cluster.getExecutionGraph(second.getJobID())
                                    .get()
                                    .getCheckpointStatsSnapshot()
                                    .getLatestRestoredCheckpoint())
                    .as("the checkpoint the second job restored")
                    .isNotNull()
                    .satisfies(
                            restored ->
                                    assertThat(savepoint)
                                            .endsWith(
                                                    restored.getExternalPath()
                                                            .replaceFirst("^file:", "")));
        } finally {
            second.cancel().get();
        }
        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .as("read by Delta Kernel")
                .isEqualTo(Rows.sorted(expected));
        assertThat(
                        Rows.sorted(
                                SparkReader.readAll(
                                        table, dir, "id", "day", "amount", "note", "channel")))
                .as("read by Spark with Delta")
                .isEqualTo(Rows.sorted(expected));
        // Rows no statement after the savepoint touched: as the first job wrote them, widened.
        List<String> untouched = new ArrayList<>();
        for (Object[] row : mirroredBefore) {
            long id = (Long) row[0];
            if (id % 7 != 0 && id % 11 != 0) {
                Object[] widened = {row[0], row[1], ((Integer) row[2]).longValue(), row[3], null};
                untouched.add(Rows.sorted(List.<Object[]>of(widened)).get(0));
            }
        }
        assertThat(untouched).isNotEmpty();
        assertThat(Rows.sorted(expected)).containsAll(untouched);
    }

    private static void createEvolvingPipeline(
            StreamTableEnvironment tables, String columns, Path table, String sinkOptions) {
        tables.executeSql(
                postgresSource(
                        "orders_evolving_cdc",
                        columns,
                        "orders_evolving",
                        ", 'scan.incremental.snapshot.chunk.size' = '500'"));
        tables.executeSql(
                "CREATE TABLE orders_evolving ("
                        + columns
                        + ", PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (`day`) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + table
                        + "'"
                        + sinkOptions
                        + ")");
    }

    /**
     * A table left at PostgreSQL's REPLICA IDENTITY DEFAULT: a delete names only the key, so the
     * sink of a table partitioned by another column cannot tell where the row is. The job fails
     * with an error that says so and what to do, and the Delta table keeps what it had.
     */
    @Test
    void aKeyOnlyDeleteFromReplicaIdentityDefaultFailsTheJobAndLosesNothing() throws Exception {
        createTable("orders_default_identity", 200);
        try (Connection db = postgres.getPostgresDatabase().getConnection();
                Statement sql = db.createStatement()) {
            sql.execute("ALTER TABLE orders_default_identity REPLICA IDENTITY DEFAULT");
        }
        Path table = dir.resolve("orders_default_identity");
        // Restarts ride out a transient failure of a loaded machine while the snapshot is read;
        // the key-only delete fails every attempt again, so the job still ends failed.
        StreamTableEnvironment tables = StreamTableEnvironment.create(environment(3));
        tables.executeSql(
                postgresSource(
                        "source_cdc",
                        "id BIGINT, `day` STRING, amount INT, note STRING",
                        "orders_default_identity",
                        ""));
        tables.executeSql(
                "CREATE TABLE delta_orders (id BIGINT, `day` STRING, amount INT, note STRING,"
                        + " PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (`day`) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + table
                        + "')");
        JobClient job =
                tables.executeSql("INSERT INTO delta_orders SELECT * FROM source_cdc")
                        .getJobClient()
                        .orElseThrow();
        List<Object[]> snapshot = databaseRows("orders_default_identity");
        TableWaits.awaitRows(table, snapshot, CONVERGE, () -> stopped(job));

        try (Connection db = postgres.getPostgresDatabase().getConnection();
                Statement sql = db.createStatement()) {
            sql.execute("DELETE FROM orders_default_identity WHERE id = 17");
        }
        // Debezium sends the delete with the key and, for the NOT NULL day, its fallback '' (an
        // empty partition value is null in Delta).
        Throwable failure;
        try {
            failure =
                    org.assertj.core.api.Assertions.catchThrowable(
                            () -> job.getJobExecutionResult().get(2, TimeUnit.MINUTES));
        } finally {
            if (!job.getJobStatus().get().isTerminalState()) {
                job.cancel().get();
            }
        }
        assertThat(failure).as("the job's failure").isNotNull();
        assertThat(causes(failure))
                .contains("A delete of key (id=17) carries nothing but its key")
                .contains("names partition day=null")
                .contains("while partition day='2024-06-02' holds that key")
                .contains("REPLICA IDENTITY FULL");
        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .as("the Delta table as the snapshot left it")
                .isEqualTo(Rows.sorted(snapshot));
    }

    /**
     * The same source under {@code distribution = key}: every change of a key reaches one writer,
     * so a delete that names only the key deletes the row in whatever partition holds it — rows of
     * the snapshot, rows inserted while the job streams (also when deleted in the same checkpoint),
     * and a key deleted and inserted again into another day.
     */
    @Test
    void aKeyOnlyDeleteFromReplicaIdentityDefaultDeletesTheRowUnderDistributionByKey()
            throws Exception {
        createTable("orders_by_key", 200);
        try (Connection db = postgres.getPostgresDatabase().getConnection();
                Statement sql = db.createStatement()) {
            sql.execute("ALTER TABLE orders_by_key REPLICA IDENTITY DEFAULT");
        }
        Path table = dir.resolve("orders_by_key");
        StreamTableEnvironment tables = tables();
        tables.executeSql(
                postgresSource(
                        "by_key_cdc",
                        "id BIGINT, `day` STRING, amount INT, note STRING",
                        "orders_by_key",
                        ""));
        tables.executeSql(
                "CREATE TABLE delta_by_key (id BIGINT, `day` STRING, amount INT, note STRING,"
                        + " PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (`day`) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + table
                        + "', 'sink.distribution' = 'key', 'sink.parallelism' = '2')");
        JobClient job =
                tables.executeSql("INSERT INTO delta_by_key SELECT * FROM by_key_cdc")
                        .getJobClient()
                        .orElseThrow();
        try {
            TableWaits.awaitRows(
                    table, databaseRows("orders_by_key"), CONVERGE, () -> stopped(job));
            try (Connection db = postgres.getPostgresDatabase().getConnection();
                    Statement sql = db.createStatement()) {
                sql.execute("DELETE FROM orders_by_key WHERE id % 10 = 3");
                sql.execute(
                        "INSERT INTO orders_by_key VALUES (1001, '2024-06-02', 1, 'new'),"
                                + " (1002, '2024-06-03', 2, 'short-lived')");
                sql.execute("DELETE FROM orders_by_key WHERE id IN (1002, 17)");
                sql.execute("INSERT INTO orders_by_key VALUES (17, '2024-06-04', 17, 'again')");
            }
            TableWaits.awaitRows(
                    table, databaseRows("orders_by_key"), CONVERGE, () -> stopped(job));
        } finally {
            job.cancel().get();
        }
        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .as("the Delta table after the deletes")
                .isEqualTo(Rows.sorted(databaseRows("orders_by_key")));
    }

    /**
     * A source column of a type Delta has no equivalent for (PostgreSQL's {@code time}, which Flink
     * CDC reads as TIME) is refused when the job is built, naming the column; nothing starts.
     */
    @Test
    void aSourceColumnOfATypeDeltaLacksIsRefusedWhenTheJobIsBuilt() throws Exception {
        try (Connection db = postgres.getPostgresDatabase().getConnection();
                Statement sql = db.createStatement()) {
            sql.execute(
                    "CREATE TABLE shifts (id BIGINT PRIMARY KEY, day TEXT NOT NULL, starts TIME)");
        }
        Path table = dir.resolve("shifts");
        StreamTableEnvironment tables = tables();
        tables.executeSql(
                postgresSource("shifts_cdc", "id BIGINT, `day` STRING, starts TIME", "shifts", ""));
        tables.executeSql(
                "CREATE TABLE shifts (id BIGINT, `day` STRING, starts TIME,"
                        + " PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (`day`) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + table
                        + "')");
        Throwable refused =
                org.assertj.core.api.Assertions.catchThrowable(
                        () -> tables.executeSql("INSERT INTO shifts SELECT * FROM shifts_cdc"));
        assertThat(refused).as("the refusal").isNotNull();
        assertThat(causes(refused)).contains("'starts'").contains("TIME");
        assertThat(table).doesNotExist();
    }

    /** Why the job stopped, with its failure's messages, or null while it runs. */
    /**
     * The whole schema into Delta through deltalite's Flink CDC pipeline sink: Flink CDC's
     * PostgreSQL source read as a pipeline source ({@link PostgresPipelineEvents}), the pipeline's
     * topology as its composer wires it ({@link PipelineTopology}), two tables snapshotted and then
     * streamed — one partitioned by day, so that updates move rows between partitions — both
     * TaskManagers replaced mid-run. Each Delta table, read by Delta Kernel and by Spark, equals
     * its database table.
     */
    @Test
    void aWholeSchemaIsSyncedByThePipelineSinkThroughTaskManagerFailures(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        createTable("pipe_orders", 2_000);
        createTable("pipe_returns", 500);
        Path root = dir.resolve("lake");
        Path orders = root.resolve("public").resolve("pipe_orders");
        Path returns = root.resolve("public").resolve("pipe_returns");
        PostgresSourceBuilder.PostgresIncrementalSource<Event> source =
                incrementalSource(
                        "deltalite_pipeline",
                        new PostgresPipelineEvents(),
                        "public.pipe_orders",
                        "public.pipe_returns");
        StreamExecutionEnvironment env = environment();
        DataStream<Event> events =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "postgres")
                        .uid("postgres");
        PipelineTopology.sinkTo(
                events,
                new DeltaLiteDataSinkFactory()
                        .createDataSink(
                                new FactoryHelper.DefaultContext(
                                        org.apache.flink.cdc.common.configuration.Configuration
                                                .fromMap(
                                                        Map.of(
                                                                "table.root",
                                                                root.toString(),
                                                                "partition.key",
                                                                "public.pipe_orders:day")),
                                        new org.apache.flink.cdc.common.configuration
                                                .Configuration(),
                                        getClass().getClassLoader())));
        JobClient job = env.executeAsync("sync schema public");
        AtomicBoolean killed = new AtomicBoolean();
        try {
            TableWaits.awaitCommits(orders, 1, CONVERGE);
            runTransactions(
                    "pipe_orders",
                    TRANSACTIONS / 3,
                    () -> killWhileStreaming(cluster, killed, orders, "pipe_orders"));
            runTransactions("pipe_returns", TRANSACTIONS / 6, () -> {});
            assertThat(killed).as("the TaskManagers were killed mid-run").isTrue();
            TableWaits.awaitRows(orders, databaseRows("pipe_orders"), CONVERGE, () -> stopped(job));
            TableWaits.awaitRows(
                    returns, databaseRows("pipe_returns"), CONVERGE, () -> stopped(job));
        } finally {
            job.cancel().get();
        }
        for (String table : List.of("pipe_orders", "pipe_returns")) {
            assertThat(
                            Rows.sorted(
                                    KernelTableReader.readAll(
                                            root.resolve("public").resolve(table).toString())))
                    .as("%s read by Delta Kernel", table)
                    .isEqualTo(Rows.sorted(databaseRows(table)));
        }
        // Spark reads the table whose updates moved rows between partitions; its reader prints
        // rows as JSON, whose integers read back as Long.
        List<Object[]> asJson = new ArrayList<>();
        for (Object[] row : databaseRows("pipe_orders")) {
            Long amount = row[2] == null ? null : ((Integer) row[2]).longValue();
            asJson.add(new Object[] {row[0], row[1], amount, row[3]});
        }
        assertThat(Rows.sorted(SparkReader.readAll(orders, dir, "id", "day", "amount", "note")))
                .as("pipe_orders read by Spark with Delta")
                .isEqualTo(Rows.sorted(asJson));
    }

    /**
     * Flink CDC's incremental PostgreSQL source of {@code tables}, on replication slot {@code
     * slot}.
     */
    private static <T> PostgresSourceBuilder.PostgresIncrementalSource<T> incrementalSource(
            String slot,
            org.apache.flink.cdc.debezium.DebeziumDeserializationSchema<T> deserializer,
            String... tables) {
        return PostgresSourceBuilder.PostgresIncrementalSource.<T>builder()
                .hostname("localhost")
                .port(postgres.getPort())
                .database("postgres")
                .schemaList("public")
                .tableList(tables)
                .username("postgres")
                .password("postgres")
                .slotName(slot)
                .decodingPluginName("pgoutput")
                .splitSize(500)
                .deserializer(deserializer)
                .build();
    }

    private static String stopped(JobClient job) throws Exception {
        if (!job.getJobStatus().get().isTerminalState()) {
            return null;
        }
        try {
            job.getJobExecutionResult().get();
            return "it finished";
        } catch (ExecutionException e) {
            return "it failed: " + causes(e);
        }
    }

    private static String causes(Throwable error) {
        StringBuilder messages = new StringBuilder();
        for (Throwable e = error; e != null; e = e.getCause()) {
            messages.append(e.getMessage()).append('\n');
        }
        return messages.toString();
    }

    /**
     * The same pipeline as a DataStream job: Flink CDC's incremental PostgreSQL source, Debezium
     * records turned into RowData, and {@code DeltaLiteSink.forTable(...)}.
     */
    @Test
    void aDataStreamJobMirrorsAPostgresTable() throws Exception {
        createTable("orders_ds", 2_000);
        RowType rowType =
                RowType.of(
                        new LogicalType[] {
                            new BigIntType(false),
                            new VarCharType(false, VarCharType.MAX_LENGTH),
                            new IntType(),
                            new VarCharType(VarCharType.MAX_LENGTH)
                        },
                        new String[] {"id", "day", "amount", "note"});
        PostgresSourceBuilder.PostgresIncrementalSource<RowData> source =
                incrementalSource(
                        "deltalite_orders_ds",
                        RowDataDebeziumDeserializeSchema.newBuilder()
                                .setPhysicalRowType(rowType)
                                .setResultTypeInfo(InternalTypeInfo.of(rowType))
                                .build(),
                        "public.orders_ds");
        Path table = dir.resolve("orders_ds");
        StreamExecutionEnvironment env = environment();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders_ds changes")
                .sinkTo(
                        DeltaLiteSink.forTable(table.toString())
                                .rowType(rowType)
                                .primaryKey("id")
                                .partitionKey("day")
                                .build())
                .uid("orders_ds-delta");
        JobClient job = env.executeAsync("mirror orders_ds");
        try {
            TableWaits.awaitCommits(table, 1, CONVERGE);
            runTransactions("orders_ds", 100, () -> {});
            TableWaits.awaitRows(table, databaseRows("orders_ds"), CONVERGE, () -> stopped(job));
        } finally {
            job.cancel().get();
        }
    }

    /**
     * The DDL of a {@code postgres-cdc} source named {@code name} over the database table {@code
     * table} (keyed by {@code id}, its own replication slot), with {@code moreOptions} (", 'k' =
     * 'v'", or "").
     */
    private static String postgresSource(
            String name, String columns, String table, String moreOptions) {
        return "CREATE TABLE "
                + name
                + " ("
                + columns
                + ", PRIMARY KEY (id) NOT ENFORCED) WITH ("
                + " 'connector' = 'postgres-cdc', 'hostname' = 'localhost', 'port' = '"
                + postgres.getPort()
                + "', 'username' = 'postgres', 'password' = 'postgres',"
                + " 'database-name' = 'postgres', 'schema-name' = 'public',"
                + " 'table-name' = '"
                + table
                + "', 'slot.name' = 'deltalite_"
                + table
                + "', 'decoding.plugin.name' = 'pgoutput',"
                + " 'scan.incremental.snapshot.enabled' = 'true'"
                + moreOptions
                + ")";
    }

    private static void createTable(String table, int rows) throws SQLException {
        try (Connection db = postgres.getPostgresDatabase().getConnection();
                Statement sql = db.createStatement()) {
            sql.execute(
                    "CREATE TABLE "
                            + table
                            + " (id BIGINT PRIMARY KEY, day TEXT NOT NULL,"
                            + " amount INT, note TEXT)");
            // Updates and deletes carry their whole before image (see the README).
            sql.execute("ALTER TABLE " + table + " REPLICA IDENTITY FULL");
            sql.execute(
                    "INSERT INTO "
                            + table
                            + " SELECT i, '2024-06-0' || (1 + i % 4),"
                            + " ((i::bigint * 7919) % 100000)::int, 'snapshot-' || i FROM generate_series(1, "
                            + rows
                            + ") AS i");
        }
    }

    /**
     * SQL transactions of a few statements each, the way an application changes the table; half way
     * through, {@code midway} runs (the test kills a TaskManager there).
     */
    private static void runTransactions(String table, int count, Runnable midway) {
        Random random = new Random(42);
        long nextId;
        try (Connection db = postgres.getPostgresDatabase().getConnection();
                Statement sql = db.createStatement();
                ResultSet max = sql.executeQuery("SELECT max(id) FROM " + table)) {
            max.next();
            nextId = max.getLong(1) + 1;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        try (Connection db = postgres.getPostgresDatabase().getConnection()) {
            db.setAutoCommit(false);
            try (Statement sql = db.createStatement()) {
                for (int t = 0; t < count; t++) {
                    if (t == count / 2) {
                        midway.run();
                    }
                    for (int s = 0; s < 4; s++) {
                        long id = 1 + random.nextInt((int) nextId - 1);
                        switch (random.nextInt(10)) {
                            case 0, 1 ->
                                    sql.executeUpdate(
                                            "INSERT INTO "
                                                    + table
                                                    + " VALUES ("
                                                    + nextId++
                                                    + ", '"
                                                    + DAYS[random.nextInt(DAYS.length)]
                                                    + "', "
                                                    + random.nextInt(100_000)
                                                    + ", 'inserted-"
                                                    + t
                                                    + "')");
                            case 2, 3, 4 ->
                                    sql.executeUpdate(
                                            "UPDATE "
                                                    + table
                                                    + " SET amount = amount + 1, note = 'updated-"
                                                    + t
                                                    + "' WHERE id = "
                                                    + id);
                            case 5, 6 ->
                                    sql.executeUpdate(
                                            "UPDATE "
                                                    + table
                                                    + " SET day = '"
                                                    + DAYS[random.nextInt(DAYS.length)]
                                                    + "', note = 'moved-"
                                                    + t
                                                    + "' WHERE id = "
                                                    + id);
                            case 7, 8 ->
                                    sql.executeUpdate("DELETE FROM " + table + " WHERE id = " + id);
                            default ->
                                    sql.executeUpdate(
                                            "UPDATE "
                                                    + table
                                                    + " SET id = "
                                                    + nextId++
                                                    + ", note = 'rekeyed-"
                                                    + t
                                                    + "' WHERE id = "
                                                    + id);
                        }
                    }
                    db.commit();
                    Thread.sleep(5);
                }
            }
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException("changing the PostgreSQL table failed", e);
        }
    }

    /**
     * Kills both TaskManagers once the job streams: when the table mirrors the first half of the
     * transactions (the second half is then in flight). Killed during the hand-over from snapshot
     * to stream, Flink CDC 3.5.0's restored readers were once seen with no split at all.
     */
    private static void killWhileStreaming(MiniCluster cluster, AtomicBoolean killed, Path table) {
        killWhileStreaming(cluster, killed, table, "orders");
    }

    private static void killWhileStreaming(
            MiniCluster cluster, AtomicBoolean killed, Path table, String databaseTable) {
        try {
            TableWaits.awaitRows(table, databaseRows(databaseTable), CONVERGE);
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException("waiting for the first half to be mirrored failed", e);
        }
        kill(cluster, killed);
    }

    private static void kill(MiniCluster cluster, AtomicBoolean killed) {
        try {
            // Both TaskManagers the job runs on die; two fresh ones take over.
            cluster.startTaskManager();
            cluster.startTaskManager();
            cluster.terminateTaskManager(0).get();
            cluster.terminateTaskManager(1).get();
            killed.set(true);
        } catch (Exception e) {
            throw new IllegalStateException("killing a TaskManager failed", e);
        }
    }

    private static List<Object[]> databaseRows(String table) throws SQLException {
        return databaseRows(table, "id, day, amount, note");
    }

    /** The rows of {@code table}, its {@code columns} as JDBC reads them (bigint a Long, …). */
    private static List<Object[]> databaseRows(String table, String columns) throws SQLException {
        List<Object[]> rows = new ArrayList<>();
        try (Connection db = postgres.getPostgresDatabase().getConnection();
                Statement sql = db.createStatement();
                ResultSet result = sql.executeQuery("SELECT " + columns + " FROM " + table)) {
            int width = result.getMetaData().getColumnCount();
            while (result.next()) {
                Object[] row = new Object[width];
                for (int i = 0; i < width; i++) {
                    row[i] = result.getObject(i + 1);
                }
                rows.add(row);
            }
        }
        return rows;
    }

    private static StreamTableEnvironment tables() {
        return StreamTableEnvironment.create(environment());
    }

    private static StreamExecutionEnvironment environment() {
        return environment(10);
    }

    private static StreamExecutionEnvironment environment(int restarts) {
        Configuration configuration = new Configuration();
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
        configuration.set(
                RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.enableCheckpointing(1_000);
        env.setParallelism(2);
        return env;
    }
}
