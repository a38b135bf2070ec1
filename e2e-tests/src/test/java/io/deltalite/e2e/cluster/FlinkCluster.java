package io.deltalite.e2e.cluster;

import io.deltalite.e2e.FlinkDistribution;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A standalone Flink session cluster of separate JVM processes, started with Flink's own entry
 * points on the class path of the distribution the build assembles: one JobManager and any number
 * of TaskManagers with one slot each, everything bound to 127.0.0.1 on free ports. Its
 * configuration, checkpoints and Flink's temporary files live in a work directory; the output of
 * every process goes to a log file in a log directory. Closing the cluster kills every process it
 * started.
 *
 * <p>Jobs restart with a fixed delay, checkpoint to the work directory with the heap state backend,
 * and a lost TaskManager is noticed within seconds (short heartbeats).
 */
final class FlinkCluster implements AutoCloseable {
    private static final String JOB_MANAGER =
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    private static final String TASK_MANAGER =
            "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
    private static final String DROP_IN_SQL_JAR = "deltalite-connector-sql.jar";
    private static final Duration STARTUP = Duration.ofMinutes(2);
    private static final Duration POLL = Duration.ofMillis(250);
    private static final int LOG_TAIL_LINES = 40;
    private static final List<String> JOB_MANAGER_MEMORY = List.of("-Xmx512m");
    // As the TaskManager's configuration divides it (see writeConfiguration).
    private static final List<String> TASK_MANAGER_MEMORY =
            List.of("-Xmx512m", "-XX:MaxDirectMemorySize=256m", "-XX:MaxMetaspaceSize=256m");

    private final Path configDirectory;
    private final Path logDirectory;
    private final String classPath;
    private final ClusterRestApi restApi;
    private final List<FlinkProcess> processes = new ArrayList<>();
    private final List<FlinkProcess> taskManagers = new ArrayList<>();
    private FlinkProcess jobManager;

    private FlinkCluster(Path configDirectory, Path logDirectory, String classPath, URI rest) {
        this.configDirectory = configDirectory;
        this.logDirectory = logDirectory;
        this.classPath = classPath;
        this.restApi = new ClusterRestApi(rest);
    }

    /**
     * Starts a JobManager and {@code taskManagerCount} TaskManagers and waits until all of them are
     * registered.
     */
    static FlinkCluster start(Path workDirectory, Path logDirectory, int taskManagerCount)
            throws IOException, InterruptedException {
        Files.createDirectories(logDirectory);
        Path configDirectory = Files.createDirectories(workDirectory.resolve("conf"));
        int restPort = freePort();
        writeConfiguration(configDirectory, workDirectory, restPort);
        FlinkCluster cluster =
                new FlinkCluster(
                        configDirectory,
                        logDirectory,
                        classPathWithoutDeltalite(),
                        URI.create("http://127.0.0.1:" + restPort));
        try {
            cluster.jobManager =
                    cluster.startProcess(
                            "jobmanager",
                            cluster.javaCommand(
                                    JOB_MANAGER,
                                    JOB_MANAGER_MEMORY,
                                    List.of("--configDir", configDirectory.toString())));
            for (int i = 0; i < taskManagerCount; i++) {
                cluster.startTaskManager();
            }
            cluster.await(
                    taskManagerCount + " TaskManagers registered at the JobManager",
                    STARTUP,
                    () -> cluster.restApi.registeredTaskManagers().orElse(-1) >= taskManagerCount);
            return cluster;
        } catch (Throwable e) {
            cluster.close();
            throw e;
        }
    }

    ClusterRestApi restApi() {
        return restApi;
    }

    /** The TaskManagers started so far, in start order, killed ones included. */
    List<FlinkProcess> taskManagers() {
        return List.copyOf(taskManagers);
    }

    /**
     * Starts one more TaskManager, named {@code taskmanager-N}; the name is also its resource id,
     * which the JobManager's messages about it quote.
     */
    FlinkProcess startTaskManager() throws IOException {
        String name = "taskmanager-" + (taskManagers.size() + 1);
        FlinkProcess taskManager =
                startProcess(
                        name,
                        javaCommand(
                                TASK_MANAGER,
                                TASK_MANAGER_MEMORY,
                                List.of(
                                        "--configDir",
                                        configDirectory.toString(),
                                        "-D",
                                        "taskmanager.resource-id=" + name)));
        taskManagers.add(taskManager);
        return taskManager;
    }

    /**
     * Starts a JVM with Flink's class path and the cluster's configuration, as Flink's scripts do.
     */
    FlinkProcess startProcess(String name, List<String> command) throws IOException {
        FlinkProcess process =
                FlinkProcess.start(
                        name,
                        command,
                        Map.of("FLINK_CONF_DIR", configDirectory.toString()),
                        logDirectory.resolve(name + ".log"));
        processes.add(process);
        return process;
    }

    /** The command line of a JVM that runs {@code mainClass} of Flink's class path. */
    List<String> javaCommand(String mainClass, List<String> memoryOptions, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(FlinkDistribution.javaBinary());
        command.addAll(FlinkDistribution.SHORT_LIVED_JVM);
        command.addAll(memoryOptions);
        command.addAll(
                List.of(
                        "--add-opens=java.base/java.lang=ALL-UNNAMED",
                        "--add-opens=java.base/java.util=ALL-UNNAMED",
                        "--add-opens=java.base/java.nio=ALL-UNNAMED",
                        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"));
        command.add(
                "-Dlog4j.configurationFile=" + configDirectory.resolve("log4j.properties").toUri());
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(arguments);
        return command;
    }

    /**
     * Polls {@code condition} until it holds; fails with every process's recent output when it does
     * not within {@code timeout}, or as soon as the JobManager is gone.
     */
    void await(String what, Duration timeout, Condition condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception lastError = null;
        while (System.nanoTime() < deadline) {
            try {
                if (condition.holds()) {
                    return;
                }
            } catch (IOException | UncheckedIOException e) {
                lastError = e;
            }
            if (!jobManager.isAlive()) {
                throw new AssertionError(
                        "The JobManager died while waiting for " + what + ".\n" + logTails());
            }
            Thread.sleep(POLL.toMillis());
        }
        AssertionError timedOut =
                new AssertionError(
                        "Timed out after " + timeout + " waiting for " + what + ".\n" + logTails());
        if (lastError != null) {
            timedOut.addSuppressed(lastError);
        }
        throw timedOut;
    }

    /** The recent output of every process the cluster started, for failure messages. */
    String logTails() {
        return processes.stream().map(p -> p.tail(LOG_TAIL_LINES)).collect(Collectors.joining());
    }

    @Override
    public void close() throws InterruptedException {
        InterruptedException interrupted = null;
        for (int i = processes.size() - 1; i >= 0; i--) {
            try {
                processes.get(i).close();
            } catch (InterruptedException e) {
                interrupted = e;
            }
        }
        if (interrupted != null) {
            throw interrupted;
        }
    }

    /** A condition to wait for. */
    @FunctionalInterface
    interface Condition {
        boolean holds() throws IOException, InterruptedException;
    }

    /**
     * Flink's jars; deltalite's drop-in SQL jar stays out, because the job jar brings deltalite.
     */
    private static String classPathWithoutDeltalite() {
        FlinkDistribution flink = FlinkDistribution.assembledByTheBuild();
        return flink.jars(flink.lib()).stream()
                .filter(jar -> !jar.getFileName().toString().equals(DROP_IN_SQL_JAR))
                .map(Path::toString)
                .collect(Collectors.joining(File.pathSeparator));
    }

    private static void writeConfiguration(Path configDirectory, Path workDirectory, int restPort)
            throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("jobmanager.rpc.address", "127.0.0.1");
        options.put("jobmanager.rpc.port", String.valueOf(freePort()));
        options.put("jobmanager.bind-host", "127.0.0.1");
        options.put("rest.address", "127.0.0.1");
        options.put("rest.bind-address", "127.0.0.1");
        options.put("rest.port", String.valueOf(restPort));
        options.put("taskmanager.host", "127.0.0.1");
        options.put("taskmanager.bind-host", "127.0.0.1");
        options.put("taskmanager.numberOfTaskSlots", "1");
        // Started without Flink's scripts, a TaskManager needs its memory spelled out; the JVM
        // limits in TASK_MANAGER_MEMORY match: heap 128m + 384m, direct 128m + 64m + 64m.
        options.put("taskmanager.cpu.cores", "1");
        options.put("taskmanager.memory.framework.heap.size", "128m");
        options.put("taskmanager.memory.task.heap.size", "384m");
        options.put("taskmanager.memory.framework.off-heap.size", "128m");
        options.put("taskmanager.memory.task.off-heap.size", "64m");
        options.put("taskmanager.memory.network.min", "64m");
        options.put("taskmanager.memory.network.max", "64m");
        options.put("taskmanager.memory.managed.size", "0m");
        options.put("taskmanager.memory.jvm-metaspace.size", "256m");
        options.put("taskmanager.memory.jvm-overhead.min", "192m");
        options.put("taskmanager.memory.jvm-overhead.max", "192m");
        options.put("parallelism.default", "2");
        options.put("restart-strategy.type", "fixed-delay");
        options.put("restart-strategy.fixed-delay.attempts", "10");
        options.put("restart-strategy.fixed-delay.delay", "1 s");
        options.put("state.backend.type", "hashmap");
        options.put(
                "execution.checkpointing.dir",
                workDirectory.resolve("checkpoints").toUri().toString());
        // Notice a dead TaskManager in seconds, not the default 50; retry registrations quickly.
        options.put("heartbeat.interval", "1 s");
        options.put("heartbeat.timeout", "10 s");
        options.put("cluster.registration.error-delay", "500 ms");
        options.put("io.tmp.dirs", workDirectory.resolve("tmp").toString());
        options.put("web.tmpdir", workDirectory.resolve("web").toString());

        StringBuilder yaml = new StringBuilder();
        options.forEach(
                (key, value) ->
                        yaml.append(key)
                                .append(": '")
                                .append(value.replace("'", "''"))
                                .append("'\n"));
        Files.writeString(configDirectory.resolve("config.yaml"), yaml, StandardCharsets.UTF_8);
        Files.writeString(
                configDirectory.resolve("log4j.properties"),
                String.join(
                        "\n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.console.ref = Console",
                        "appender.console.type = Console",
                        "appender.console.name = Console",
                        "appender.console.layout.type = PatternLayout",
                        "appender.console.layout.pattern = %d{HH:mm:ss,SSS} %-5p %-40c{1} %m%n",
                        "logger.parquet.name = org.apache.parquet",
                        "logger.parquet.level = WARN",
                        "logger.kernel.name = io.delta.kernel",
                        "logger.kernel.level = WARN",
                        ""),
                StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
