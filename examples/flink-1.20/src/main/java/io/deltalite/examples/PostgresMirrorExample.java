package io.deltalite.examples;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;

/**
 * Mirrors a PostgreSQL table into a Delta table (Flink 1.20, Flink CDC's {@code postgres-cdc}
 * source): the table is snapshotted, then every committed transaction lands in Delta at the next
 * checkpoint. The database needs {@code wal_level = logical}, and the table {@code REPLICA IDENTITY
 * FULL} when the Delta table is partitioned by a column outside the key (README, "Mirror a
 * PostgreSQL table into Delta"). The example mirrors {@code orders(id BIGINT PRIMARY KEY, day TEXT,
 * amount INT, note TEXT)} for {@code --seconds}, then stops.
 *
 * <pre>
 *   mvn -B -ntp install -DskipTests &amp;&amp; mvn -B -ntp -pl examples/flink-1.20 exec:exec \
 *     -Dexample.main=io.deltalite.examples.PostgresMirrorExample \
 *     -Dexample.table="--hostname localhost --port 5432 --database shop --user postgres --password secret --path /tmp/orders"
 * </pre>
 */
public final class PostgresMirrorExample {
    private static final List<String> ARGUMENTS =
            List.of(
                    "hostname",
                    "port",
                    "database",
                    "schema",
                    "table",
                    "user",
                    "password",
                    "path",
                    "seconds");

    private PostgresMirrorExample() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> options = parse(args);
        JobClient job = start(options);
        long seconds = Long.parseLong(options.getOrDefault("seconds", "60"));
        System.out.printf(
                "Mirroring %s.%s into %s for %d s...%n",
                options.getOrDefault("schema", "public"),
                options.getOrDefault("table", "orders"),
                options.get("path"),
                seconds);
        Thread.sleep(Duration.ofSeconds(seconds).toMillis());
        job.cancel().get();
        System.out.printf(
                "The Delta table at %s holds %d rows.%n",
                options.get("path"), TableReadBack.readRows(options.get("path")).size());
    }

    /** Starts the mirroring job; it runs until cancelled. */
    public static JobClient start(Map<String, String> options) throws Exception {
        TableEnvironment tables = SqlCdcExample.streamingTables(Duration.ofSeconds(2));
        String table = options.getOrDefault("table", "orders");
        tables.executeSql(
                "CREATE TABLE source_orders (id BIGINT, `day` STRING, amount INT, note STRING,"
                        + " PRIMARY KEY (id) NOT ENFORCED) WITH ("
                        + " 'connector' = 'postgres-cdc',"
                        + " 'hostname' = '"
                        + required(options, "hostname")
                        + "',"
                        + " 'port' = '"
                        + options.getOrDefault("port", "5432")
                        + "',"
                        + " 'username' = '"
                        + required(options, "user")
                        + "',"
                        + " 'password' = '"
                        + options.getOrDefault("password", "")
                        + "',"
                        + " 'database-name' = '"
                        + required(options, "database")
                        + "',"
                        + " 'schema-name' = '"
                        + options.getOrDefault("schema", "public")
                        + "',"
                        + " 'table-name' = '"
                        + table
                        + "',"
                        + " 'slot.name' = 'deltalite_"
                        + table
                        + "',"
                        + " 'decoding.plugin.name' = 'pgoutput',"
                        + " 'scan.incremental.snapshot.enabled' = 'true')");
        tables.executeSql(
                "CREATE TABLE delta_orders (id BIGINT, `day` STRING, amount INT, note STRING,"
                        + " PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (`day`) WITH ("
                        + " 'connector' = 'deltalite', 'path' = '"
                        + required(options, "path")
                        + "')");
        return tables.executeSql("INSERT INTO delta_orders SELECT * FROM source_orders")
                .getJobClient()
                .orElseThrow();
    }

    /** {@code --name value} pairs. */
    static Map<String, String> parse(String[] args) {
        String[] words = args.length == 1 ? args[0].trim().split("\\s+") : args;
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < words.length; i += 2) {
            String name = words[i].startsWith("--") ? words[i].substring(2) : "";
            if (!ARGUMENTS.contains(name) || i + 1 == words.length) {
                throw new IllegalArgumentException(
                        "Unexpected argument '"
                                + words[i]
                                + "'; the example takes --"
                                + String.join(" VALUE, --", ARGUMENTS)
                                + " VALUE");
            }
            options.put(name, words[i + 1]);
        }
        return options;
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }
}
