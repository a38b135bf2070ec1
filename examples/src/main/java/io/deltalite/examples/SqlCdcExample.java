package io.deltalite.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;

/**
 * Runs the SQL script {@code sql/cdc-to-delta.sql} in a local table environment: Debezium change
 * events of an orders table, read with the filesystem connector, mirrored into a deltalite table.
 * Then prints the table.
 *
 * <pre>
 *   mvn -B -ntp install -DskipTests &amp;&amp; mvn -B -ntp -pl examples exec:exec -Dexample.main=io.deltalite.examples.SqlCdcExample
 * </pre>
 */
public final class SqlCdcExample {
    private SqlCdcExample() {}

    public static void main(String[] args) throws Exception {
        String table;
        if (args.length == 0 || args[0].equals(CdcUpsertExample.DEFAULT_TABLE)) {
            table = Paths.get("deltalite-sql-example-table").toAbsolutePath().toString();
            deleteLocalTable(table);
        } else {
            table = args[0];
        }
        List<Object[]> rows = run(table);
        System.out.printf("The table at %s now holds %d orders:%n", table, rows.size());
        rows.sort((a, b) -> Long.compare((Long) a[0], (Long) b[0]));
        for (Object[] row : rows) {
            System.out.printf(
                    "  order %-3d day %s amount %-5d %s%n", row[0], row[1], row[2], row[3]);
        }
    }

    /**
     * Runs the script against {@code table} and returns the table's rows (id, day, amount, note).
     */
    public static List<Object[]> run(String table) throws Exception {
        Path events = Files.createTempFile("orders-debezium", ".json");
        try (InputStream in = resource("sql/orders-debezium.json")) {
            Files.copy(in, events, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        TableEnvironment tables = streamingTables(java.time.Duration.ofSeconds(1));
        String script =
                new String(resource("sql/cdc-to-delta.sql").readAllBytes(), StandardCharsets.UTF_8)
                        .replace("${events}", events.toString())
                        .replace("${table}", table);
        for (String statement : statements(script)) {
            TableResult result = tables.executeSql(statement);
            result.await();
        }
        Files.deleteIfExists(events);
        return readTable(table);
    }

    private static List<Object[]> readTable(String table) throws Exception {
        return new ArrayList<>(TableReadBack.readRows(table));
    }

    /** A local streaming table environment that checkpoints (what deltalite commits) so often. */
    static TableEnvironment streamingTables(java.time.Duration checkpointInterval) {
        Configuration configuration = new Configuration();
        configuration.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval);
        return TableEnvironment.create(
                EnvironmentSettings.newInstance()
                        .inStreamingMode()
                        .withConfiguration(configuration)
                        .build());
    }

    /** Statements of a script: separated by semicolons, comment lines dropped. */
    static List<String> statements(String script) {
        StringBuilder text = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.trim().startsWith("--")) {
                text.append(line).append('\n');
            }
        }
        List<String> statements = new ArrayList<>();
        for (String statement : text.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.trim());
            }
        }
        return statements;
    }

    static InputStream resource(String name) {
        InputStream in = SqlCdcExample.class.getClassLoader().getResourceAsStream(name);
        if (in == null) {
            throw new IllegalStateException("missing resource " + name);
        }
        return in;
    }

    static void deleteLocalTable(String table) {
        Path path = Paths.get(table);
        if (!Files.exists(path)) {
            return;
        }
        try (var files = Files.walk(path)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
