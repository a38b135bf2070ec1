package io.deltalite.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's PostgreSQL example against a real PostgreSQL server. */
class PostgresMirrorExampleTest {
    @TempDir Path dir;

    @Test
    void theExampleMirrorsTheSnapshotAndTheChangesAfterIt() throws Exception {
        try (EmbeddedPostgres postgres =
                EmbeddedPostgres.builder().setServerConfig("wal_level", "logical").start()) {
            try (Connection db = postgres.getPostgresDatabase().getConnection();
                    Statement sql = db.createStatement()) {
                sql.execute(
                        "CREATE TABLE orders (id BIGINT PRIMARY KEY, day TEXT, amount INT, note TEXT)");
                sql.execute("ALTER TABLE orders REPLICA IDENTITY FULL");
                sql.execute(
                        "INSERT INTO orders SELECT i, '2024-06-0' || (1 + i % 3), i, 'created'"
                                + " FROM generate_series(1, 200) AS i");
            }
            Path table = dir.resolve("orders");
            JobClient job =
                    PostgresMirrorExample.start(
                            Map.of(
                                    "hostname", "localhost",
                                    "port", String.valueOf(postgres.getPort()),
                                    "database", "postgres",
                                    "user", "postgres",
                                    "password", "postgres",
                                    "path", table.toString()));
            try {
                awaitTable(table, job, postgres, "the snapshot of 200 rows");
                try (Connection db = postgres.getPostgresDatabase().getConnection();
                        Statement sql = db.createStatement()) {
                    sql.execute(
                            "UPDATE orders SET day = '2024-06-09', note = 'moved' WHERE id <= 10");
                    sql.execute("DELETE FROM orders WHERE id > 190");
                    sql.execute("INSERT INTO orders VALUES (500, '2024-06-09', 5, 'new')");
                }
                awaitTable(table, job, postgres, "the changes after the snapshot");
            } finally {
                job.cancel().get();
            }
        }
    }

    @Test
    void argumentsAreNamePairs() {
        assertThat(PostgresMirrorExample.parse(new String[] {"--hostname h --port 1 --path /t"}))
                .containsEntry("hostname", "h")
                .containsEntry("port", "1")
                .containsEntry("path", "/t");
    }

    /**
     * Waits until the table holds the database's rows. Fails at once if the job ends (with the
     * job's own failure), and after two minutes with what the table and the database hold.
     */
    private static void awaitTable(
            Path table, JobClient job, EmbeddedPostgres postgres, String what) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        List<String> rows = List.of();
        List<String> expected = sorted(databaseRows(postgres));
        while (System.nanoTime() < deadline) {
            JobStatus status = job.getJobStatus().get();
            if (status.isTerminalState()) {
                Throwable failure = null;
                try {
                    job.getJobExecutionResult().get();
                } catch (Exception e) {
                    failure = e;
                }
                throw new AssertionError(
                        "The mirror job ended ("
                                + status
                                + ") before the table at "
                                + table
                                + " held "
                                + what,
                        failure);
            }
            if (table.resolve("_delta_log/00000000000000000000.json").toFile().isFile()) {
                rows = sorted(TableReadBack.readRows(table.toString()));
                if (rows.equals(expected)) {
                    return;
                }
            }
            Thread.sleep(300);
        }
        assertThat(rows)
                .as(
                        "rows of the table at %s two minutes after the job started to mirror %s",
                        table, what)
                .isEqualTo(expected);
    }

    private static List<Object[]> databaseRows(EmbeddedPostgres postgres) throws Exception {
        List<Object[]> rows = new ArrayList<>();
        try (Connection db = postgres.getPostgresDatabase().getConnection();
                Statement sql = db.createStatement();
                ResultSet result = sql.executeQuery("SELECT id, day, amount, note FROM orders")) {
            while (result.next()) {
                rows.add(
                        new Object[] {
                            result.getLong(1),
                            result.getString(2),
                            result.getInt(3),
                            result.getString(4)
                        });
            }
        }
        return rows;
    }

    private static List<String> sorted(List<Object[]> rows) {
        return rows.stream().map(java.util.Arrays::toString).sorted().toList();
    }
}
