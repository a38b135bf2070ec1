package io.deltalite.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.testing.Rows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user puts deltalite's one drop-in jar into Flink's {@code lib/} and writes to a deltalite table
 * from Flink's own SQL client: no other deltalite, Delta, Parquet or Hadoop jar exists on the class
 * path.
 */
class DropInSqlJarTest {
    @TempDir Path dir;

    @Test
    void theSqlClientWritesThroughTheDropInJarAlone() throws Exception {
        FlinkDistribution flink = FlinkDistribution.assembledByTheBuild();
        List<String> deltaliteJars =
                flink.jars(flink.lib()).stream()
                        .map(jar -> jar.getFileName().toString())
                        .filter(name -> !name.startsWith("flink-"))
                        .filter(
                                name ->
                                        name.contains("deltalite")
                                                || name.contains("delta-kernel")
                                                || name.contains("parquet")
                                                || name.contains("hadoop"))
                        .toList();
        assertThat(deltaliteJars).containsExactly("deltalite-connector-sql.jar");

        Path orders = dir.resolve("orders");
        Path totals = dir.resolve("totals");
        String script =
                String.join(
                        "\n",
                        "SET 'table.dml-sync' = 'true';",
                        "CREATE TABLE orders (id BIGINT, `day` STRING, amount INT,",
                        "  PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (`day`)",
                        "  WITH ('connector' = 'deltalite', 'path' = '" + orders + "');",
                        "INSERT INTO orders VALUES (1, 'd1', 10), (2, 'd1', 20), (3, 'd2', 30);",
                        "INSERT INTO orders VALUES (1, 'd1', 11), (3, 'd2', 33), (4, 'd3', 40);",
                        "CREATE TABLE totals (`day` STRING, total INT, PRIMARY KEY (`day`) NOT ENFORCED)",
                        "  WITH ('connector' = 'deltalite', 'path' = '" + totals + "');",
                        "INSERT INTO totals SELECT `day`, SUM(amount) FROM (VALUES",
                        "  ('d1', 1), ('d1', 2), ('d2', 5), ('d1', 4)) AS t(`day`, amount) GROUP BY `day`;",
                        "");
        FlinkDistribution.SqlClientRun run = flink.runSqlScript(dir, script, Duration.ofMinutes(4));
        assertThat(run.finished())
                .as("the SQL client finished; its output:%n%s", run.output())
                .isTrue();
        assertThat(run.exitCode()).as("exit code; output:%n%s", run.output()).isZero();
        assertThat(run.output()).doesNotContain("[ERROR]");

        assertThat(Rows.sorted(KernelTableReader.readAll(orders.toString())))
                .isEqualTo(
                        Rows.sorted(
                                List.of(
                                        new Object[] {1L, "d1", 11},
                                        new Object[] {2L, "d1", 20},
                                        new Object[] {3L, "d2", 33},
                                        new Object[] {4L, "d3", 40})));
        assertThat(Rows.sorted(KernelTableReader.readAll(totals.toString())))
                .isEqualTo(Rows.sorted(List.of(new Object[] {"d1", 7}, new Object[] {"d2", 5})));
    }
}
