package io.deltalite.e2e.cdc.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads a Delta table with Spark 4.2 and delta-spark 4.4 in a JVM of its own (Spark cannot share
 * the Flink 1.20 test class path): {@code PrintDeltaTable.java} from the test resources, run by
 * Java's source launcher on the class path {@code ../spark-reader} writes.
 */
final class SparkReader {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SparkReader() {}

    /**
     * Every row of the table, its {@code columns} in this order: integers as Long, text as String,
     * a missing column as null.
     */
    static List<Object[]> readAll(Path table, Path workDir, String... columns)
            throws IOException, InterruptedException {
        String classPath =
                Files.readString(Paths.get(System.getProperty("spark.reader.classpath")));
        Path source = workDir.resolve("PrintDeltaTable.java");
        try (InputStream resource =
                SparkReader.class.getResourceAsStream("/spark/PrintDeltaTable.java")) {
            Files.copy(resource, source);
        }
        Path log = workDir.resolve("spark-reader.log");
        List<String> command =
                new ArrayList<>(
                        List.of(
                                Paths.get(System.getProperty("java.home"), "bin", "java")
                                        .toString(),
                                "-Xmx1g",
                                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                                "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
                                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                                "--add-opens=java.base/java.util=ALL-UNNAMED",
                                "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                                "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
                                "-cp",
                                classPath.trim(),
                                source.toString(),
                                table.toString()));
        Process spark =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        boolean finished = spark.waitFor(3, TimeUnit.MINUTES);
        if (!finished) {
            spark.destroyForcibly().waitFor();
        }
        List<String> lines = Files.readAllLines(log);
        if (!finished || spark.exitValue() != 0) {
            throw new IllegalStateException(
                    "Spark could not read "
                            + table
                            + " (finished: "
                            + finished
                            + "); its last output:\n"
                            + String.join(
                                    "\n",
                                    lines.subList(Math.max(0, lines.size() - 40), lines.size())));
        }
        List<Object[]> rows = new ArrayList<>();
        for (String line : lines) {
            if (!line.startsWith("ROW ")) {
                continue;
            }
            JsonNode row = JSON.readTree(line.substring(4));
            Object[] values = new Object[columns.length];
            for (int i = 0; i < columns.length; i++) {
                JsonNode value = row.get(columns[i]);
                values[i] =
                        value == null || value.isNull()
                                ? null
                                : value.isIntegralNumber()
                                        ? (Object) value.asLong()
                                        : value.asText();
            }
            rows.add(values);
        }
        return rows;
    }
}
