package io.deltalite.flink.testing.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real S3 server for tests: S3Proxy 4.1.0 in a process of its own, on a free loopback port, with
 * a filesystem backend in a temporary directory (a bucket is a directory there). Maven copies its
 * jar to {@code target/s3proxy/s3proxy.jar} before the tests run; another module can name its copy
 * with the system property {@code deltalite.s3proxy.jar}.
 *
 * <p>S3Proxy honours {@code If-None-Match: *} (412 on an existing key), also on multipart
 * completion and under concurrent writers.
 */
public final class S3ProxyServer implements AutoCloseable {
    /**
     * Credentials every test server accepts. The secret is distinctive so that logs can be searched
     * for it.
     */
    public static final String ACCESS_KEY = "deltalite-test-access-key";

    public static final String SECRET_KEY = "dl-S3cr3t-9f4Kq2ZtWv7Xy";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final AtomicInteger BUCKETS = new AtomicInteger();

    private final Process process;
    private final int port;
    private final Path directory;

    private S3ProxyServer(Process process, int port, Path directory) {
        this.process = process;
        this.port = port;
        this.directory = directory;
    }

    /**
     * Starts a server that checks AWS signatures (V2 or V4) against {@link #ACCESS_KEY}/{@link
     * #SECRET_KEY}.
     */
    public static S3ProxyServer start() {
        return start(true);
    }

    /**
     * Starts a server; one that does not check signatures accepts requests a proxy has altered
     * after the client signed them.
     */
    public static S3ProxyServer start(boolean checkSignatures) {
        Path jar = jar();
        try {
            Path directory = Files.createTempDirectory("s3proxy-");
            Files.createDirectories(directory.resolve("data"));
            int port = freePort();
            Path properties = directory.resolve("s3proxy.properties");
            try (Writer out = Files.newBufferedWriter(properties)) {
                out.write("s3proxy.endpoint=http://127.0.0.1:" + port + "\n");
                out.write(
                        "s3proxy.authorization="
                                + (checkSignatures ? "aws-v2-or-v4" : "none")
                                + "\n");
                out.write("s3proxy.identity=" + ACCESS_KEY + "\n");
                out.write("s3proxy.credential=" + SECRET_KEY + "\n");
                out.write("jclouds.provider=filesystem\n");
                out.write("jclouds.filesystem.basedir=" + directory.resolve("data") + "\n");
            }
            Process process =
                    new ProcessBuilder(
                                    List.of(
                                            javaExecutable(),
                                            "-Xmx256m",
                                            "-XX:TieredStopAtLevel=1",
                                            "-XX:+UseSerialGC",
                                            "-jar",
                                            jar.toString(),
                                            "--properties",
                                            properties.toString()))
                            .redirectErrorStream(true)
                            .redirectOutput(directory.resolve("s3proxy.log").toFile())
                            .start();
            // should the test JVM end without closing the server, the server ends with it
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
            S3ProxyServer server = new S3ProxyServer(process, port, directory);
            server.awaitListening();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("starting S3Proxy failed", e);
        }
    }

    /** {@code http://127.0.0.1:PORT}. */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /**
     * Creates a bucket with a name no other server of this JVM uses: Hadoop caches one S3A file
     * system per bucket name, whatever its endpoint.
     */
    public String createBucket() {
        String bucket = "bucket-" + port + "-" + BUCKETS.incrementAndGet();
        try {
            Files.createDirectories(directory.resolve("data").resolve(bucket));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bucket;
    }

    /** The S3A settings that reach this server with the test credentials. */
    public Map<String, String> hadoopOptions() {
        return S3aSettings.forEndpoint(endpoint());
    }

    /** The file holding the object {@code key} of {@code bucket} in the filesystem backend. */
    public Path objectFile(String bucket, String key) {
        return directory.resolve("data").resolve(bucket).resolve(key);
    }

    /** What the server printed. */
    public String log() {
        try {
            return Files.readString(directory.resolve("s3proxy.log"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        deleteRecursively(directory);
    }

    private void awaitListening() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String log = log();
                deleteRecursively(directory);
                throw new IllegalStateException(
                        "S3Proxy exited with " + process.exitValue() + " at start:\n" + log);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            } catch (IOException notYet) {
                sleep(Duration.ofMillis(100));
            }
        }
        close();
        throw new IllegalStateException(
                "S3Proxy did not listen on port " + port + " within " + START_TIMEOUT);
    }

    /**
     * The jar named by the system property {@code deltalite.s3proxy.jar}, else the one Maven copies
     * into this module's {@code target/}.
     */
    private static Path jar() {
        String configured = System.getProperty("deltalite.s3proxy.jar");
        Path jar =
                configured != null
                        ? Path.of(configured)
                        : Path.of(System.getProperty("basedir", "."))
                                .resolve("target")
                                .resolve("s3proxy")
                                .resolve("s3proxy.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    "No S3Proxy jar at "
                            + jar.toAbsolutePath()
                            + ". Maven copies it there in the process-test-resources phase: run"
                            + " 'mvn -pl connector process-test-resources' once.");
        }
        return jar;
    }

    static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for S3Proxy", e);
        }
    }

    private static void deleteRecursively(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }
}
