package io.deltalite.flink.testing.s3;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link CommitterMain} running in a JVM of its own, on the test class path: start it, wait until
 * it opened the table, let it go, and collect what it committed.
 */
public final class CommitterProcess implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private final String appId;
    private final Process process;
    private final List<String> output = new ArrayList<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();

    private CommitterProcess(String appId, Process process) {
        this.appId = appId;
        this.process = process;
        Thread reader = new Thread(this::readOutput, "output of " + appId);
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts writer {@code writer} committing {@code commits} times as {@code appId}. */
    public static CommitterProcess start(
            String table,
            String appId,
            int writer,
            int commits,
            Map<String, String> hadoopOptions) {
        List<String> command = new ArrayList<>();
        command.add(S3ProxyServer.javaExecutable());
        command.add("-Xmx512m");
        // a short-lived JVM: quick compilation beats peak performance
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("--add-opens")) {
                command.add(argument);
            }
        }
        command.add("-cp");
        command.add(
                System.getProperty(
                        "surefire.test.class.path", System.getProperty("java.class.path")));
        command.add(CommitterMain.class.getName());
        command.add(table);
        command.add(appId);
        command.add(Integer.toString(writer));
        command.add(Integer.toString(commits));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            Writer in = process.outputWriter(StandardCharsets.UTF_8);
            for (Map.Entry<String, String> option : hadoopOptions.entrySet()) {
                in.write(option.getKey() + "=" + option.getValue() + "\n");
            }
            in.write(".\n");
            in.flush();
            return new CommitterProcess(appId, process);
        } catch (IOException e) {
            throw new UncheckedIOException("starting " + appId + " failed", e);
        }
    }

    /** Waits until the process opened the table. */
    public void awaitReady() throws Exception {
        ready.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** Lets the process commit. */
    public void go() {
        try {
            Writer in = process.outputWriter(StandardCharsets.UTF_8);
            in.write("GO\n");
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for the process to end; what each of its commits reported. */
    public List<CommitWorkload.Landed> awaitLanded() throws Exception {
        finished.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(appId + " failed:\n" + output());
        }
        List<CommitWorkload.Landed> landed = new ArrayList<>();
        for (String line : lines()) {
            if (line.startsWith(CommitterMain.PREFIX + "LANDED ")) {
                String[] fields =
                        line.substring((CommitterMain.PREFIX + "LANDED ").length()).split(" ");
                landed.add(
                        new CommitWorkload.Landed(
                                appId,
                                Long.parseLong(fields[0]),
                                Long.parseLong(fields[1]),
                                Integer.parseInt(fields[2])));
            }
        }
        return landed;
    }

    /** Everything the process printed, logs included. */
    public String output() {
        return String.join("\n", lines());
    }

    private List<String> lines() {
        synchronized (output) {
            return new ArrayList<>(output);
        }
    }

    private void readOutput() {
        try (BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                synchronized (output) {
                    output.add(line);
                }
                if (line.equals(CommitterMain.PREFIX + "READY")) {
                    ready.complete(null);
                }
            }
            IllegalStateException ended =
                    new IllegalStateException(appId + " ended before it was ready:\n" + output());
            ready.completeExceptionally(ended);
            finished.complete(null);
        } catch (IOException e) {
            ready.completeExceptionally(e);
            finished.completeExceptionally(e);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
