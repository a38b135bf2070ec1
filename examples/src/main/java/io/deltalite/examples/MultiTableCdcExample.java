package io.deltalite.examples;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;

/**
 * Mirrors three tables of one database into three Delta tables with one job: the SQL script {@code
 * sql/multi-table-cdc-to-delta.sql} declares a Debezium change stream and a deltalite table per
 * source table, and its INSERTs run together as one statement set (one job, one sink per table).
 * Then prints how many rows each table holds.
 *
 * <pre>
 *   mvn -B -ntp install -DskipTests &amp;&amp; mvn -B -ntp -pl examples exec:exec -Dexample.main=io.deltalite.examples.MultiTableCdcExample
 * </pre>
 */
public final class MultiTableCdcExample {
    /** The source tables, each mirrored into a Delta table of the same name. */
    public static final List<String> TABLES = List.of("orders", "customers", "payments");

    private MultiTableCdcExample() {}

    public static void main(String[] args) throws Exception {
        Path base =
                args.length == 0 || args[0].equals(CdcUpsertExample.DEFAULT_TABLE)
                        ? Paths.get("deltalite-multi-table-example").toAbsolutePath()
                        : Paths.get(args[0]);
        SqlCdcExample.deleteLocalTable(base.toString());
        for (Map.Entry<String, List<Object[]>> table : run(base).entrySet()) {
            System.out.printf(
                    "The table %s at %s now holds %d rows.%n",
                    table.getKey(), base.resolve(table.getKey()), table.getValue().size());
        }
    }

    /** Runs the script with the Delta tables under {@code base}; returns each table's rows. */
    public static Map<String, List<Object[]>> run(Path base) throws Exception {
        Path events = Files.createTempDirectory("multi-table-events");
        String script =
                new String(
                        SqlCdcExample.resource("sql/multi-table-cdc-to-delta.sql").readAllBytes(),
                        StandardCharsets.UTF_8);
        for (String table : TABLES) {
            Path file = events.resolve(table + "-debezium.json");
            try (InputStream in = SqlCdcExample.resource("sql/" + table + "-debezium.json")) {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            }
            script =
                    script.replace("${events." + table + "}", file.toString())
                            .replace("${table." + table + "}", base.resolve(table).toString());
        }
        TableEnvironment tables = SqlCdcExample.streamingTables(Duration.ofSeconds(1));
        StatementSet inserts = tables.createStatementSet();
        for (String statement : SqlCdcExample.statements(script)) {
            if (statement.regionMatches(true, 0, "INSERT", 0, 6)) {
                inserts.addInsertSql(statement);
            } else {
                tables.executeSql(statement).await();
            }
        }
        inserts.execute().await();
        Map<String, List<Object[]>> rows = new LinkedHashMap<>();
        for (String table : TABLES) {
            rows.put(
                    table, new ArrayList<>(TableReadBack.readRows(base.resolve(table).toString())));
        }
        try (var files = Files.list(events)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(events);
        return rows;
    }
}
