package io.deltalite.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.KernelTableReader;
import io.deltalite.flink.testing.Rows;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
        Path script = dir.resolve("script.sql");
        Files.writeString(
                script,
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
                        ""),
                StandardCharsets.UTF_8);
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(
                conf.resolve("config.yaml"),
                "execution:\n  target: local\nparallelism:\n  default: 2\n"
                        + "rest:\n  address: 127.0.0.1\n  bind-address: 127.0.0.1\n");

        List<String> command = new ArrayList<>();
        command.add(FlinkDistribution.javaBinary());
        command.addAll(FlinkDistribution.jvmOptions());
        command.addAll(
                List.of(
                        "-cp",
                        flink.classPath("flink-python"),
                        "org.apache.flink.table.client.SqlClient",
                        "-hist",
                        dir.resolve("history").toString(),
                        "-f",
                        script.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("FLINK_CONF_DIR", conf.toString());
        Path output = dir.resolve("sql-client.log");
        builder.redirectOutput(output.toFile());
        Process client = builder.start();
        boolean finished = client.waitFor(4, TimeUnit.MINUTES);
        String log = Files.readString(output);
        if (!finished) {
            client.destroyForcibly();
        }
        assertThat(finished).as("the SQL client finished; its output:%n%s", log).isTrue();
        assertThat(client.exitValue()).as("exit code; output:%n%s", log).isZero();
        assertThat(log).doesNotContain("[ERROR]");

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
