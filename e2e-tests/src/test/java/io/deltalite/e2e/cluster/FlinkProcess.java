package io.deltalite.e2e.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One JVM process of a test cluster — a JobManager, a TaskManager or a client — with its output
 * (stdout and stderr) captured in a log file. The process is killed when {@link #close() closed},
 * and when the test JVM exits normally before that.
 */
final class FlinkProcess implements AutoCloseable {
    private static final Duration EXIT_AFTER_KILL = Duration.ofSeconds(30);

    private final String name;
    private final Process process;
    private final Path log;
    private final Thread killAtExit;

    private FlinkProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.killAtExit = new Thread(process::destroyForcibly, "kill " + name);
        Runtime.getRuntime().addShutdownHook(killAtExit);
    }

    static FlinkProcess start(
            String name, List<String> command, Map<String, String> environment, Path log)
            throws IOException {
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        return new FlinkProcess(name, builder.start(), log);
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to end by itself; false if it still runs after {@code timeout}. */
    boolean endsWithin(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    int exitValue() {
        return process.exitValue();
    }

    /**
     * Kills the process with {@code SIGKILL} — no shutdown hooks, nothing flushed, as when a
     * machine dies — and waits until it is gone.
     */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(EXIT_AFTER_KILL.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(
                    name + " (pid " + pid() + ") still runs " + EXIT_AFTER_KILL + " after SIGKILL");
        }
    }

    /** Everything the process wrote so far. */
    String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The process's state and the last {@code lines} lines of its output, for failure messages. */
    String tail(int lines) {
        List<String> all = output().lines().toList();
        String state = process.isAlive() ? "running" : "exited with " + process.exitValue();
        return String.format(
                "---- %s (pid %d, %s), last %d lines of %s ----%n%s%n",
                name,
                pid(),
                state,
                Math.min(lines, all.size()),
                log,
                String.join(
                        System.lineSeparator(),
                        all.subList(Math.max(0, all.size() - lines), all.size())));
    }

    @Override
    public void close() throws InterruptedException {
        try {
            if (process.isAlive()) {
                kill();
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(killAtExit);
            } catch (IllegalStateException jvmIsShuttingDown) {
                // the hook runs anyway
            }
        }
    }
}
