package io.deltalite.e2e.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.e2e.FlinkDistribution;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.testing.Rows;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the README tells a cluster user to do: Flink CDC's {@code flink-sql-connector-postgres-cdc}
 * jar and deltalite's drop-in jar side by side in Flink 1.20's {@code lib/}, a PostgreSQL table
 * mirrored into Delta from Flink's own SQL client. Nothing else of either is on the class path;
 * their bundled libraries must not clash.
 */
class PostgresCdcDropInJarTest {
    @TempDir Path dir;

    @Test
    void theSqlClientMirrorsAPostgresTableWithBothDropInJarsInLib() throws Exception {
        FlinkDistribution flink = FlinkDistribution.assembledByTheBuild();
        assertThat(flink.jars(flink.lib()))
                .extracting(jar -> jar.getFileName().toString())
                .contains("deltalite-connector-sql.jar", "flink-sql-connector-postgres-cdc.jar");

        try (EmbeddedPostgres postgres =
                EmbeddedPostgres.builder()
                        .setServerConfig("wal_level", "logical")
                        .setServerConfig("max_replication_slots", "4")
                        .setServerConfig("max_wal_senders", "4")
                        .start()) {
            List<Object[]> expected = new ArrayList<>();
            try (Connection db = postgres.getPostgresDatabase().getConnection();
                    Statement sql = db.createStatement()) {
                sql.execute(
                        "CREATE TABLE orders (id BIGINT PRIMARY KEY, day TEXT NOT NULL,"
                                + " amount INT, note TEXT)");
                sql.execute("ALTER TABLE orders REPLICA IDENTITY FULL");
                sql.execute(
                        "INSERT INTO orders SELECT i, '2024-06-0' || (1 + i % 3), i * 10,"
                                + " 'row-' || i FROM generate_series(1, 2000) AS i");
                try (ResultSet rows =
                        sql.executeQuery("SELECT id, day, amount, note FROM orders")) {
                    while (rows.next()) {
                        expected.add(
                                new Object[] {
                                    rows.getLong(1),
                                    rows.getString(2),
                                    rows.getObject(3),
                                    rows.getString(4)
                                });
                    }
                }
            }
            Path table = dir.resolve("orders");
            // The snapshot alone ('scan.startup.mode' = 'snapshot') is a bounded job: the client
            // waits for it and exits, the table then holds every row of the database table.
            String script =
                    String.join(
                            "\n",
                            "SET 'table.dml-sync' = 'true';",
                            "SET 'execution.checkpointing.interval' = '2s';",
                            "CREATE TABLE source_orders (id BIGINT, `day` STRING, amount INT,"
                                    + " note STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (",
                            "  'connector' = 'postgres-cdc', 'hostname' = 'localhost',"
                                    + " 'port' = '"
                                    + postgres.getPort()
                                    + "',",
                            "  'username' = 'postgres', 'password' = 'postgres',"
                                    + " 'database-name' = 'postgres',",
                            "  'schema-name' = 'public', 'table-name' = 'orders',"
                                    + " 'slot.name' = 'deltalite_drop_in',",
                            "  'decoding.plugin.name' = 'pgoutput',"
                                    + " 'scan.incremental.snapshot.enabled' = 'true',",
                            "  'scan.incremental.snapshot.chunk.size' = '500',"
                                    + " 'scan.startup.mode' = 'snapshot');",
                            "CREATE TABLE delta_orders (id BIGINT, `day` STRING, amount INT,"
                                    + " note STRING, PRIMARY KEY (id) NOT ENFORCED)"
                                    + " PARTITIONED BY (`day`)",
                            "  WITH ('connector' = 'deltalite', 'path' = '" + table + "');",
                            "INSERT INTO delta_orders SELECT * FROM source_orders;",
                            "");
            FlinkDistribution.SqlClientRun run =
                    flink.runSqlScript(dir, script, Duration.ofMinutes(4));
            assertThat(run.finished())
                    .as("the SQL client finished; its output:%n%s", run.output())
                    .isTrue();
            assertThat(run.exitCode()).as("exit code; output:%n%s", run.output()).isZero();
            assertThat(run.output()).doesNotContain("[ERROR]");
            assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                    .isEqualTo(Rows.sorted(expected));
        }
    }
}
