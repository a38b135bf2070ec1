package io.deltalite.e2e.upgrade;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code FlinkUpgradeJob} run in a JVM of its own on one Flink line: that line's Flink and
 * connector artifact are the whole class path, read from the file the build wrote for it.
 */
enum FlinkLineJob {
    FLINK_1_20("flink-1.20.classpath"),
    FLINK_2_3("flink-2.3.classpath");

    /** What a run printed and how it ended. */
    record Run(String line, int exitCode, List<String> output, Path log) {
        /** The savepoint the run took, from its {@code SAVEPOINT <path>} line. */
        Optional<String> savepoint() {
            return output.stream()
                    .filter(text -> text.startsWith("SAVEPOINT "))
                    .map(text -> text.substring("SAVEPOINT ".length()).trim())
                    .findFirst();
        }

        /** Everything the run printed. */
        String outputText() {
            return String.join("\n", output);
        }

        String tail() {
            return line
                    + " exited with "
                    + exitCode
                    + "; the end of its output ("
                    + log
                    + "):\n"
                    + String.join(
                            "\n", output.subList(Math.max(0, output.size() - 60), output.size()));
        }
    }

    private final String classPathProperty;

    FlinkLineJob(String classPathProperty) {
        this.classPathProperty = classPathProperty;
    }

    /**
     * Runs the job with {@code arguments} (see {@code FlinkUpgradeJob}) and waits for its JVM to
     * end, at most three minutes; its output goes to {@code log}.
     */
    Run run(Path log, String... arguments) throws IOException, InterruptedException {
        String property = System.getProperty(classPathProperty);
        if (property == null) {
            throw new IllegalStateException(
                    "System property "
                            + classPathProperty
                            + " is not set: run this test through Maven (e2e-tests/flink-upgrade),"
                            + " which writes the class path of each Flink line.");
        }
        String classPath = Files.readString(Paths.get(property)).trim();
        List<String> command =
                new ArrayList<>(
                        List.of(
                                Paths.get(System.getProperty("java.home"), "bin", "java")
                                        .toString(),
                                "-Xmx768m",
                                "-XX:+UseSerialGC",
                                // A short run: starting quickly matters more than peak speed.
                                "-XX:TieredStopAtLevel=1",
                                // The mini cluster's folders, which a halted JVM leaves.
                                "-Djava.io.tmpdir=" + temporaryFolder(log),
                                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                                "--add-opens=java.base/java.util=ALL-UNNAMED",
                                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                                "-cp",
                                classPath,
                                "io.deltalite.flink.testing.FlinkUpgradeJob"));
        command.addAll(List.of(arguments));
        Files.createDirectories(log.getParent());
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
        }
        return new Run(name(), process.exitValue(), Files.readAllLines(log), log);
    }

    private static Path temporaryFolder(Path log) throws IOException {
        return Files.createDirectories(log.resolveSibling("tmp"));
    }
}
