package io.deltalite.examples;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Upserts a CDC stream of 100,000 orders in 8 day-partitions into a Delta table, checkpointing
 * every 2 seconds, then reads the table back and checks it equals the expected final state.
 *
 * <pre>
 *   mvn -B -ntp install -DskipTests && mvn -B -ntp -pl examples exec:exec [-Dexample.table=PATH]
 * </pre>
 *
 * The table goes to {@code ./deltalite-example-table} unless a path (local, file:// or s3a://) is
 * given; a given local path must not exist yet or be empty. To submit the same job to a Flink
 * cluster, see {@link CdcUpsertJob}.
 */
public final class CdcUpsertExample {
    static final String DEFAULT_TABLE = "deltalite-example-table";

    private CdcUpsertExample() {}

    public static void main(String[] args) throws Exception {
        String table =
                args.length == 0 || args[0].equals(DEFAULT_TABLE)
                        ? prepareDefaultTable()
                        : requireFreshTable(args[0]);
        int orders = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        System.exit(run(table, orders) == 0 ? 0 : 1);
    }

    /**
     * Runs the job on a local cluster and checks the table.
     *
     * @return the number of rows that differ from the expected final state
     */
    public static int run(String table, int orders) throws Exception {
        CdcUpsertJob job = CdcUpsertJob.withDefaults(table, orders);
        OrderChanges changes = job.changes();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        job.addTo(env);

        System.out.printf(
                "Upserting %,d changes of %,d orders into %s ...%n",
                changes.size() / 2, orders, table);
        env.execute(CdcUpsertJob.NAME);

        return verify(table, changes);
    }

    static int verify(String table, OrderChanges changes) throws Exception {
        Map<Long, Object[]> expected = changes.expectedTable();
        List<Object[]> actual = TableReadBack.readRows(table);
        Map<Long, Object[]> byId = new HashMap<>();
        int mismatches = 0;
        for (Object[] row : actual) {
            if (byId.put((Long) row[0], row) != null) {
                mismatches++;
                System.out.println("duplicate order " + row[0]);
            }
        }
        for (Map.Entry<Long, Object[]> entry : expected.entrySet()) {
            Object[] row = byId.get(entry.getKey());
            if (row == null || !Arrays.equals(row, entry.getValue())) {
                if (mismatches++ < 10) {
                    System.out.println(
                            "order "
                                    + entry.getKey()
                                    + ": expected "
                                    + Arrays.toString(entry.getValue())
                                    + " but the table has "
                                    + Arrays.toString(row));
                }
            }
        }
        mismatches += Math.max(0, byId.size() - expected.size());
        if (mismatches > 0 || actual.size() != expected.size()) {
            System.out.printf(
                    "FAILED: the table at %s has %,d rows, %,d expected, %,d mismatches.%n",
                    table, actual.size(), expected.size(), mismatches);
            return Math.max(1, mismatches);
        }
        System.out.printf(
                "OK: the table at %s equals the expected final state (%,d rows).%n",
                table, actual.size());
        return 0;
    }

    /** A table the user named must be new: the example's checks assume it starts empty. */
    private static String requireFreshTable(String table) throws IOException {
        if (!table.contains("://") || table.startsWith("file:")) {
            Path path = Paths.get(table.replaceFirst("^file:(//)?", ""));
            if (Files.isDirectory(path)) {
                try (Stream<Path> entries = Files.list(path)) {
                    if (entries.findAny().isPresent()) {
                        System.err.println(
                                "The example writes a new table, but "
                                        + path
                                        + " is not empty."
                                        + " Choose another path or remove it.");
                        System.exit(2);
                    }
                }
            }
        }
        return table;
    }

    /** The default table is the example's own: start it afresh on every run. */
    private static String prepareDefaultTable() throws IOException {
        Path path = Paths.get(DEFAULT_TABLE).toAbsolutePath();
        if (Files.exists(path)) {
            try (Stream<Path> files = Files.walk(path)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
        return path.toString();
    }
}
