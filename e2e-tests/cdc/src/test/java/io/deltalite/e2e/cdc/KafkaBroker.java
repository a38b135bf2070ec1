package io.deltalite.e2e.cdc;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A real Apache Kafka broker (4.1, KRaft: one node that is broker and controller) in a process of
 * its own, on the class path that the {@code kafka-broker} module resolves: the broker's jars never
 * meet the Flink Kafka connector's on the test class path. Its data and log live in a work
 * directory; {@link #close()} stops it (SIGTERM, as Kafka's scripts do).
 */
final class KafkaBroker implements AutoCloseable {
    private static final String READY = "Kafka Server started";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final Path log;
    private final String bootstrapServers;

    private KafkaBroker(Process process, Path log, String bootstrapServers) {
        this.process = process;
        this.log = log;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Formats the storage in {@code workDirectory} and starts the broker; returns when it serves.
     */
    static KafkaBroker start(Path workDirectory) throws IOException, InterruptedException {
        String classPath = brokerClassPath();
        int brokerPort = freePort();
        int controllerPort = freePort();
        Path config = workDirectory.resolve("server.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "process.roles=broker,controller",
                        "node.id=1",
                        "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                        "listeners=PLAINTEXT://127.0.0.1:"
                                + brokerPort
                                + ",CONTROLLER://127.0.0.1:"
                                + controllerPort,
                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + brokerPort,
                        "controller.listener.names=CONTROLLER",
                        "inter.broker.listener.name=PLAINTEXT",
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                        "log.dirs=" + workDirectory.resolve("data"),
                        "num.partitions=1",
                        "auto.create.topics.enable=false",
                        "offsets.topic.replication.factor=1",
                        "offsets.topic.num.partitions=1",
                        "transaction.state.log.replication.factor=1",
                        "transaction.state.log.min.isr=1",
                        "transaction.state.log.num.partitions=1",
                        "share.coordinator.state.topic.replication.factor=1",
                        "share.coordinator.state.topic.min.isr=1",
                        "group.initial.rebalance.delay.ms=0",
                        ""),
                StandardCharsets.UTF_8);
        Path logConfig = workDirectory.resolve("log4j2.properties");
        Files.writeString(
                logConfig,
                String.join(
                        "\n",
                        "status = warn",
                        "appender.console.type = Console",
                        "appender.console.name = STDOUT",
                        "appender.console.layout.type = PatternLayout",
                        "appender.console.layout.pattern = [%d] %p %m (%c)%n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.stdout.ref = STDOUT",
                        ""),
                StandardCharsets.UTF_8);
        Path log = workDirectory.resolve("broker.log");

        String clusterId = newClusterId();
        Process format =
                new ProcessBuilder(
                                java(
                                        classPath,
                                        logConfig,
                                        "kafka.tools.StorageTool",
                                        "format",
                                        "-t",
                                        clusterId,
                                        "-c",
                                        config.toString()))
                        .redirectErrorStream(true)
                        .redirectOutput(workDirectory.resolve("format.log").toFile())
                        .start();
        if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
            format.destroyForcibly();
            throw new IllegalStateException(
                    "Formatting the Kafka broker's storage failed:\n"
                            + Files.readString(workDirectory.resolve("format.log")));
        }

        Process broker =
                new ProcessBuilder(java(classPath, logConfig, "kafka.Kafka", config.toString()))
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        KafkaBroker started = new KafkaBroker(broker, log, "127.0.0.1:" + brokerPort);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!Files.readString(log).contains(READY)) {
            if (!broker.isAlive() || System.nanoTime() > deadline) {
                started.close();
                throw new IllegalStateException(
                        "The Kafka broker did not start within "
                                + START_TIMEOUT.toSeconds()
                                + " s; its output:\n"
                                + Files.readString(log));
            }
            Thread.sleep(100);
        }
        return started;
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    /** Creates a topic of one partition: its records keep the order they were sent in. */
    void createTopic(String topic) throws Exception {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(properties)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    /** Sends the records in order and waits until the broker has them all. */
    void send(String topic, List<Record> records) throws Exception {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer())) {
            for (Record record : records) {
                ProducerRecord<String, String> sent =
                        new ProducerRecord<>(topic, record.key(), record.value());
                record.headers()
                        .forEach(
                                (name, value) ->
                                        sent.headers()
                                                .add(name, value.getBytes(StandardCharsets.UTF_8)));
                producer.send(sent);
            }
            producer.flush();
        }
    }

    /** A Kafka record: key, value ({@code null} for a tombstone) and headers. */
    record Record(String key, String value, Map<String, String> headers) {
        static Record of(String key, String value) {
            return new Record(key, value, Map.of());
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Override
    public String toString() {
        return "Kafka broker at " + bootstrapServers + " (log " + log + ")";
    }

    private static List<String> java(String classPath, Path logConfig, String... mainAndArgs) {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(
                List.of(
                        "-Xms128m",
                        "-Xmx512m",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-Djava.awt.headless=true",
                        "-Dlog4j2.configurationFile=" + logConfig.toUri(),
                        "-cp",
                        classPath));
        command.addAll(List.of(mainAndArgs));
        return command;
    }

    private static String brokerClassPath() throws IOException {
        String file = System.getProperty("kafka.broker.classpath");
        if (file == null || !Files.isRegularFile(Paths.get(file))) {
            throw new IllegalStateException(
                    "The Kafka broker's class path file is missing ("
                            + file
                            + "): the build writes it in e2e-tests/cdc/kafka-broker; run the tests"
                            + " through Maven (mvn -pl e2e-tests/cdc -am verify).");
        }
        return Files.readString(Paths.get(file)).trim();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * A new KRaft cluster id, as {@code kafka-storage random-uuid} makes it: 16 random bytes in
     * URL-safe Base64. Kafka's {@link Uuid#randomUuid()} never gives one that starts with '-',
     * which the storage tool's argument parser would take for an option (one id in 64 did that).
     */
    static String newClusterId() {
        return Uuid.randomUuid().toString();
    }
}
