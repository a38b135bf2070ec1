package io.deltalite.e2e.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.TableWaits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database's change log on a real Kafka broker, in the shapes Debezium and Canal write, read by
 * Flink SQL's {@code kafka} source and mirrored into a Delta table with {@code 'connector' =
 * 'deltalite'}: the table ends equal to the database the test modelled, through a TaskManager
 * failure in the middle of the stream.
 */
class KafkaCdcPipelineTest {
    private static final Duration CONVERGE = Duration.ofMinutes(3);

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir static Path brokerDirectory;
    private static KafkaBroker kafka;

    @TempDir Path dir;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = KafkaBroker.start(brokerDirectory);
    }

    @AfterAll
    static void stopKafka() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    /**
     * Snapshot reads, inserts, updates (some moving a row to another day partition), deletes with
     * their tombstones and primary-key changes; a TaskManager is killed after the first commits,
     * while the second half of the changes is still to come.
     */
    @Test
    void aDebeziumTopicIsMirroredThroughATaskManagerFailure(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        OrdersDatabase database = new OrdersDatabase(16);
        String topic = "shop.public.orders";
        kafka.createTopic(topic);
        List<OrdersDatabase.Event> firstHalf = new ArrayList<>(database.snapshot(2_000));
        firstHalf.addAll(database.changes(2_000));
        kafka.send(topic, ChangeTopics.debezium(firstHalf));

        Path table = dir.resolve("orders");
        StreamTableEnvironment tables = tables();
        createSource(tables, topic, "debezium-json", "'scan.startup.mode' = 'earliest-offset'");
        createMirror(tables, table);
        TableResult insert = tables.executeSql("INSERT INTO orders SELECT * FROM changes");
        JobClient job = insert.getJobClient().orElseThrow();
        try {
            TableWaits.awaitCommits(table, 1, CONVERGE);
            // The second half goes to the topic while the TaskManagers die, so changes are in
            // flight (read, buffered in writers, in a checkpoint not yet committed) when they do.
            List<KafkaBroker.Record> secondHalf = ChangeTopics.debezium(database.changes(2_000));
            CompletableFuture<Void> sending =
                    CompletableFuture.runAsync(
                            () -> {
                                try {
                                    kafka.send(topic, secondHalf);
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            });
            // Both TaskManagers the job runs on die; two fresh ones take over.
            cluster.startTaskManager();
            cluster.startTaskManager();
            cluster.terminateTaskManager(0).get();
            cluster.terminateTaskManager(1).get();
            sending.get();

            TableWaits.awaitRows(table, database.rows(), CONVERGE);
        } finally {
            job.cancel().get();
        }
        assertMirrors(table, database.rows());
    }

    /**
     * One job mirrors three source tables into three Delta tables: a sink per table, in one
     * statement set, each committing its own checkpoints (one partitioned by day, two not).
     */
    @Test
    void oneJobMirrorsThreeTablesIntoThreeDeltaTables() throws Exception {
        String[] regions = {"eu", "us", "apac"};
        List<OrdersDatabase> databases = new ArrayList<>();
        StreamTableEnvironment tables = tables();
        StatementSet inserts = tables.createStatementSet();
        for (int i = 0; i < regions.length; i++) {
            OrdersDatabase database = new OrdersDatabase(100 + i);
            databases.add(database);
            String topic = "shop.public.orders_" + regions[i];
            kafka.createTopic(topic);
            List<OrdersDatabase.Event> events = new ArrayList<>(database.snapshot(500));
            events.addAll(database.changes(1_000));
            kafka.send(topic, ChangeTopics.debezium(events));
            tables.executeSql(
                    sourceDdl(
                            "changes_" + regions[i],
                            topic,
                            "debezium-json",
                            "'scan.startup.mode' = 'earliest-offset',"
                                    + " 'scan.bounded.mode' = 'latest-offset'"));
            tables.executeSql(
                    mirrorDdl(
                            "orders_" + regions[i],
                            dir.resolve("orders_" + regions[i]),
                            i == 0 ? "PARTITIONED BY (`day`)" : ""));
            inserts.addInsertSql(
                    "INSERT INTO orders_" + regions[i] + " SELECT * FROM changes_" + regions[i]);
        }
        inserts.execute().await();

        for (int i = 0; i < regions.length; i++) {
            assertMirrors(dir.resolve("orders_" + regions[i]), databases.get(i).rows());
        }
    }

    /** Canal's shape: string values, and an update carries only the old values it changed. */
    @Test
    void aCanalTopicIsMirrored() throws Exception {
        OrdersDatabase database = new OrdersDatabase(17);
        String topic = "canal.shop.orders";
        kafka.createTopic(topic);
        List<OrdersDatabase.Event> events = new ArrayList<>(database.snapshot(1_000));
        events.addAll(database.changes(2_000));
        kafka.send(topic, ChangeTopics.canal(events));

        Path table = dir.resolve("orders");
        StreamTableEnvironment tables = tables();
        createSource(
                tables,
                topic,
                "canal-json",
                "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'");
        createMirror(tables, table);
        tables.executeSql("INSERT INTO orders SELECT * FROM changes").await();

        assertMirrors(table, database.rows());
    }

    /**
     * An update without its before image (PostgreSQL's replica identity DEFAULT) cannot say which
     * partition the old row is in: Flink's debezium-json format fails the job, saying to set
     * REPLICA IDENTITY FULL; nothing of the bad record is committed, and the table keeps what the
     * database held before it.
     */
    @Test
    void anUpdateWithoutItsBeforeImageFailsTheJobAndCommitsNothingOfIt() throws Exception {
        OrdersDatabase database = new OrdersDatabase(18);
        String topic = "shop.public.orders_default_identity";
        kafka.createTopic(topic);
        List<OrdersDatabase.Event> snapshot = database.snapshot(100);
        kafka.send(topic, ChangeTopics.debezium(snapshot));
        Path table = dir.resolve("orders");
        String bounded =
                "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'";
        StreamTableEnvironment first = tables(0);
        createSource(first, topic, "debezium-json", bounded);
        createMirror(first, table);
        first.executeSql("INSERT INTO orders SELECT * FROM changes").await();
        assertMirrors(table, database.rows());

        OrdersDatabase.Order changed = ((OrdersDatabase.Read) snapshot.get(0)).row();
        kafka.send(
                topic,
                List.of(
                        ChangeTopics.debeziumUpdateWithoutBefore(
                                new OrdersDatabase.Order(
                                        changed.id(), "2024-06-04", -1, "no-before"))));
        StreamTableEnvironment second = tables(0);
        createSource(second, topic, "debezium-json", bounded);
        createMirror(second, table);

        assertThatThrownBy(
                        () -> second.executeSql("INSERT INTO orders SELECT * FROM changes").await())
                .hasStackTraceContaining("REPLICA IDENTITY");
        // The second job may commit what it read before the bad record (the same rows again),
        // never the bad record: the table holds what the database held before it.
        assertMirrors(table, database.rows());
    }

    /** The Delta table, read by Delta Kernel and by Spark with Delta, equals the database. */
    private static void assertMirrors(Path table, List<Object[]> databaseRows) {
        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .as("%s read by Delta Kernel", table.getFileName())
                .isEqualTo(Rows.sorted(databaseRows));
        assertThat(Rows.sorted(SparkRows.readTable(table.toString())))
                .as("%s read by Spark", table.getFileName())
                .isEqualTo(Rows.sorted(databaseRows));
    }

    private static StreamTableEnvironment tables() {
        return tables(10);
    }

    private static StreamTableEnvironment tables(int restarts) {
        Configuration configuration = new Configuration();
        configuration.set(
                RestartStrategyOptions.RESTART_STRATEGY, restarts == 0 ? "none" : "fixed-delay");
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
        configuration.set(
                RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.enableCheckpointing(500);
        env.setParallelism(2);
        return StreamTableEnvironment.create(env);
    }

    private static void createSource(
            StreamTableEnvironment tables, String topic, String format, String scanOptions) {
        tables.executeSql(sourceDdl("changes", topic, format, scanOptions));
    }

    private static void createMirror(StreamTableEnvironment tables, Path table) {
        tables.executeSql(mirrorDdl("orders", table, "PARTITIONED BY (`day`)"));
    }

    private static String sourceDdl(String name, String topic, String format, String scanOptions) {
        return "CREATE TABLE "
                + name
                + " (id BIGINT, `day` STRING, amount INT, note STRING,"
                + " PRIMARY KEY (id) NOT ENFORCED) WITH ("
                + " 'connector' = 'kafka', 'topic' = '"
                + topic
                + "', 'properties.bootstrap.servers' = '"
                + kafka.bootstrapServers()
                + "', 'properties.group.id' = 'deltalite-mirror', "
                + scanOptions
                + ", 'format' = '"
                + format
                + "')";
    }

    private static String mirrorDdl(String name, Path table, String partitioning) {
        return "CREATE TABLE "
                + name
                + " (id BIGINT, `day` STRING, amount INT, note STRING,"
                + " PRIMARY KEY (id) NOT ENFORCED) "
                + partitioning
                + " WITH ('connector' = 'deltalite', 'path' = '"
                + table
                + "')";
    }
}
