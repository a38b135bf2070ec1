package io.deltalite.e2e;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Flink "distribution" the build assembles under {@code target/flink-dist} from Maven Central:
 * Flink's own jars in {@code lib/} (plus deltalite's drop-in SQL jar) and {@code opt/}, as in a
 * downloaded Flink.
 */
public final class FlinkDistribution {
    private final Path home;

    private FlinkDistribution(Path home) {
        this.home = home;
    }

    public static FlinkDistribution assembledByTheBuild() {
        String dist = System.getProperty("flink.dist");
        if (dist == null || !Files.isDirectory(Paths.get(dist, "lib"))) {
            throw new IllegalStateException(
                    "No Flink distribution at "
                            + dist
                            + "; run the tests through Maven ("
                            + "the build assembles it in generate-test-resources).");
        }
        return new FlinkDistribution(Paths.get(dist));
    }

    public Path lib() {
        return home.resolve("lib");
    }

    Path opt() {
        return home.resolve("opt");
    }

    public List<Path> jars(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The class path of lib/ and of the given opt/ jars. */
    String classPath(String... optJarPrefixes) {
        List<String> entries = new ArrayList<>();
        jars(lib()).forEach(jar -> entries.add(jar.toString()));
        for (Path jar : jars(opt())) {
            for (String prefix : optJarPrefixes) {
                if (jar.getFileName().toString().startsWith(prefix)) {
                    entries.add(jar.toString());
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    public static String javaBinary() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * JIT and collector of the Flink processes the tests start (SQL client, JobManager,
     * TaskManagers, the command-line client): each lives a minute or less and handles test-sized
     * data, so the optimizing compiler and G1's concurrent threads cost more CPU than they save.
     */
    public static final List<String> SHORT_LIVED_JVM =
            List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    public static List<String> jvmOptions() {
        List<String> options = new ArrayList<>(SHORT_LIVED_JVM);
        options.addAll(
                List.of(
                        "-Xmx1g",
                        "--add-opens=java.base/java.lang=ALL-UNNAMED",
                        "--add-opens=java.base/java.util=ALL-UNNAMED",
                        "--add-opens=java.base/java.nio=ALL-UNNAMED",
                        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"));
        return options;
    }

    /** What Flink's SQL client printed for a script, and how it ended. */
    public record SqlClientRun(boolean finished, int exitCode, String output) {}

    /**
     * Runs {@code script} (SQL statements) in Flink's own SQL client, its jobs on a local cluster
     * in the client's process, with this distribution's class path (lib/ and the flink-python jar
     * of opt/); its files go to {@code workDir}.
     */
    public SqlClientRun runSqlScript(Path workDir, String script, Duration timeout)
            throws IOException, InterruptedException {
        Path file = workDir.resolve("script.sql");
        Files.writeString(file, script, StandardCharsets.UTF_8);
        Path conf = Files.createDirectories(workDir.resolve("conf"));
        Files.writeString(
                conf.resolve("config.yaml"),
                "execution:\n  target: local\nparallelism:\n  default: 2\n"
                        + "rest:\n  address: 127.0.0.1\n  bind-address: 127.0.0.1\n");
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(jvmOptions());
        command.addAll(
                List.of(
                        "-cp",
                        classPath("flink-python"),
                        "org.apache.flink.table.client.SqlClient",
                        "-hist",
                        workDir.resolve("history").toString(),
                        "-f",
                        file.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("FLINK_CONF_DIR", conf.toString());
        Path output = workDir.resolve("sql-client.log");
        builder.redirectOutput(output.toFile());
        Process client = builder.start();
        boolean finished = client.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!finished) {
            client.destroyForcibly().waitFor();
        }
        return new SqlClientRun(
                finished, finished ? client.exitValue() : -1, Files.readString(output));
    }
}
