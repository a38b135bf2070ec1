package io.deltalite.peers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a write or read job in a fresh JVM on one system's class path (written by the build to
 * {@code target/classpaths/<name>.txt}) and returns what it reported. Every system gets the same
 * JVM flags.
 */
final class ChildJvm {
    private static final List<String> JVM_FLAGS =
            List.of(
                    "-XX:+UseG1GC",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.net=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                    "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
                    "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
                    "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
                    "-Djdk.reflect.useDirectMethodHandle=false",
                    "-Dio.netty.tryReflectionSetAccessible=true");

    private final Path classPaths;
    private final Path classes;
    private final String heap;

    /**
     * @param heap the {@code -Xmx} of every child, for example {@code 4g}
     */
    ChildJvm(Path classPaths, Path classes, String heap) {
        this.classPaths = classPaths;
        this.classes = classes;
        this.heap = heap;
    }

    /**
     * The deltalite jars of class path {@code classPath} and when each was built, for the report:
     * the build writes the class path from the local Maven repository, so a benchmark measures the
     * connector last installed there, not the sources beside it.
     */
    String deltaliteJars(String classPath) {
        StringBuilder jars = new StringBuilder();
        try {
            for (String entry :
                    Files.readString(classPaths.resolve(classPath + ".txt"))
                            .trim()
                            .split(java.io.File.pathSeparator)) {
                Path jar = Path.of(entry);
                if (jar.getFileName().toString().startsWith("deltalite-")) {
                    jars.append(jars.length() == 0 ? "" : ", ")
                            .append(jar.getFileName())
                            .append(" built ")
                            .append(
                                    Files.getLastModifiedTime(jar)
                                            .toInstant()
                                            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
                }
            }
        } catch (java.io.IOException e) {
            return "unknown (" + e + ")";
        }
        return jars.toString();
    }

    /** The build's class path files and test classes, as surefire passes them in. */
    static ChildJvm fromBuild(String heap) {
        return new ChildJvm(
                Path.of(System.getProperty("peers.classpaths", "target/classpaths")),
                Path.of(System.getProperty("peers.classes", "target/test-classes")),
                heap);
    }

    /**
     * Runs {@code mainClass} with {@code arguments} plus {@code result=<file>} and returns the
     * file's contents; a failed child fails with its log's last lines.
     */
    JobArguments run(String classPath, Class<?> mainClass, JobArguments arguments, Path work) {
        try {
            Files.createDirectories(work);
            Path result = Files.createTempFile(work, mainClass.getSimpleName(), ".properties");
            Path log = Path.of(result.toString().replace(".properties", ".log"));
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx" + heap);
            command.addAll(JVM_FLAGS);
            // For profiling (a flight recording, say); empty in every published run.
            String extra = System.getProperty("bench.childFlags", "").trim();
            if (!extra.isEmpty()) {
                command.addAll(List.of(extra.split("\\s+")));
            }
            command.add("-cp");
            command.add(
                    classes
                            + java.io.File.pathSeparator
                            + Files.readString(classPaths.resolve(classPath + ".txt")).trim());
            command.add(mainClass.getName());
            command.addAll(arguments.with("result", result).toArgs());
            Process process =
                    new ProcessBuilder(command)
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile())
                            .start();
            if (!process.waitFor(60, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(mainClass.getSimpleName() + " timed out: " + log);
            }
            if (process.exitValue() != 0 || Files.size(result) == 0) {
                List<String> lines = Files.readAllLines(log);
                throw new IllegalStateException(
                        String.format(
                                "%s %s failed (exit %d); last lines of %s:%n%s",
                                mainClass.getSimpleName(),
                                arguments.toArgs(),
                                process.exitValue(),
                                log,
                                String.join(
                                        "\n",
                                        lines.subList(
                                                Math.max(0, lines.size() - 40), lines.size()))));
            }
            return JobArguments.readReport(result);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
