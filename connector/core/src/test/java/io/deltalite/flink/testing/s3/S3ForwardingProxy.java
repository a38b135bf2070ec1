package io.deltalite.flink.testing.s3;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback HTTP proxy in front of a real S3 server that notes every request it forwards, and may
 * play an S3 endpoint that ignores conditional writes, as some S3-compatible stores do, by dropping
 * the {@code If-None-Match} header on the way ({@link #droppingIfNoneMatch}), or a store in
 * trouble: throttling, refusing, or gone for a while ({@link #inject}).
 *
 * <p>The client signs {@code If-None-Match} (SigV4 signs every header it sends), so the server
 * behind a dropping proxy must not check signatures ({@link S3ProxyServer#start(boolean)} with
 * {@code false}).
 */
public final class S3ForwardingProxy implements AutoCloseable {
    /** Headers the JDK's HTTP client sets itself, and hop-by-hop headers. */
    private static final Set<String> NOT_FORWARDED =
            Set.of(
                    "connection",
                    "content-length",
                    "date",
                    "expect",
                    "from",
                    "host",
                    "keep-alive",
                    "te",
                    "trailer",
                    "transfer-encoding",
                    "upgrade",
                    "via",
                    "warning");

    private final HttpServer server;
    private final ExecutorService executor;
    private final HttpClient client;
    private final String target;
    private final AtomicInteger dropped = new AtomicInteger();
    private final boolean dropConditions;

    /** One request forwarded: method, URI (path and query), status and response body size. */
    public record Forwarded(String method, String uri, int status, int responseBytes) {
        /** Whether it lists objects (ListObjectsV2) under {@code prefix}. */
        public boolean listsUnder(String prefix) {
            return method.equals("GET")
                    && uri.contains("list-type=2")
                    && java.net.URLDecoder.decode(uri, java.nio.charset.StandardCharsets.UTF_8)
                            .contains("prefix=" + prefix);
        }
    }

    private final List<Forwarded> requests = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * What the proxy answers instead of forwarding a request, as a store in trouble would: an S3
     * error, or a connection closed without an answer.
     *
     * @param status the HTTP status, or 0 to close the connection without answering
     * @param code the S3 error code of the answer's body (for example {@code SlowDown})
     */
    public record Answer(int status, String code) {
        public static Answer dropConnection() {
            return new Answer(0, "");
        }

        public static Answer slowDown() {
            return new Answer(503, "SlowDown");
        }

        public static Answer accessDenied() {
            return new Answer(403, "AccessDenied");
        }
    }

    /** Decides per request (method, URI) whether to answer it with a fault; null forwards it. */
    @FunctionalInterface
    public interface Fault {
        Answer answer(String method, String uri);
    }

    private volatile Fault fault;
    private final AtomicInteger faulted = new AtomicInteger();

    /** From now on, answers the requests {@code fault} picks itself; null forwards all again. */
    public void inject(Fault fault) {
        this.fault = fault;
    }

    /** How many requests were answered with a fault. */
    public int faulted() {
        return faulted.get();
    }

    private S3ForwardingProxy(String target, boolean dropConditions) throws IOException {
        this.target = target;
        this.dropConditions = dropConditions;
        this.client =
                HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(10))
                        .build();
        this.executor = Executors.newFixedThreadPool(8);
        this.server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/", this::forward);
        server.setExecutor(executor);
        server.start();
    }

    /**
     * Starts a proxy in front of {@code target} (for example {@code http://127.0.0.1:9000}) that
     * drops {@code If-None-Match}.
     */
    public static S3ForwardingProxy droppingIfNoneMatch(String target) {
        return start(target, true);
    }

    /** Starts a proxy in front of {@code target} that forwards requests as they are. */
    public static S3ForwardingProxy recording(String target) {
        return start(target, false);
    }

    private static S3ForwardingProxy start(String target, boolean dropConditions) {
        try {
            return new S3ForwardingProxy(target, dropConditions);
        } catch (IOException e) {
            throw new UncheckedIOException("starting the proxy failed", e);
        }
    }

    /** The requests forwarded so far, in arrival order. */
    public List<Forwarded> requests() {
        return List.copyOf(requests);
    }

    /** Forgets the requests noted so far. */
    public void clearRequests() {
        requests.clear();
    }

    /** {@code http://127.0.0.1:PORT}. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** How many requests arrived with the header this proxy drops. */
    public int droppedConditions() {
        return dropped.get();
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Fault current = fault;
            Answer answer =
                    current == null
                            ? null
                            : current.answer(
                                    exchange.getRequestMethod(),
                                    exchange.getRequestURI().toString());
            if (answer != null) {
                faulted.incrementAndGet();
                if (answer.status() == 0) {
                    return; // closed without an answer
                }
                byte[] error =
                        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
                                        + answer.code()
                                        + "</Code><Message>injected by the test proxy</Message>"
                                        + "</Error>")
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/xml");
                if (exchange.getRequestMethod().equalsIgnoreCase("HEAD")) {
                    exchange.sendResponseHeaders(answer.status(), -1);
                } else {
                    exchange.sendResponseHeaders(answer.status(), error.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(error);
                    }
                }
                return;
            }
            HttpRequest.Builder request =
                    HttpRequest.newBuilder(URI.create(target + exchange.getRequestURI()))
                            .timeout(Duration.ofSeconds(60))
                            .method(
                                    exchange.getRequestMethod(),
                                    body.length == 0
                                            ? HttpRequest.BodyPublishers.noBody()
                                            : HttpRequest.BodyPublishers.ofByteArray(body));
            for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
                String name = header.getKey().toLowerCase(Locale.ROOT);
                if (dropConditions && name.equals("if-none-match")) {
                    dropped.incrementAndGet();
                } else if (!NOT_FORWARDED.contains(name)) {
                    header.getValue().forEach(value -> request.header(header.getKey(), value));
                }
            }
            HttpResponse<byte[]> response;
            try {
                response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exchange.sendResponseHeaders(503, -1);
                return;
            }
            response.headers()
                    .map()
                    .forEach(
                            (name, values) -> {
                                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
                                    exchange.getResponseHeaders().put(name, values);
                                }
                            });
            boolean head = exchange.getRequestMethod().equalsIgnoreCase("HEAD");
            byte[] responseBody = response.body();
            requests.add(
                    new Forwarded(
                            exchange.getRequestMethod(),
                            exchange.getRequestURI().toString(),
                            response.statusCode(),
                            responseBody.length));
            if (head) {
                response.headers()
                        .firstValue("content-length")
                        .ifPresent(
                                length ->
                                        exchange.getResponseHeaders()
                                                .set("Content-Length", length));
                exchange.sendResponseHeaders(response.statusCode(), -1);
            } else if (responseBody.length == 0) {
                exchange.sendResponseHeaders(response.statusCode(), -1);
            } else {
                exchange.sendResponseHeaders(response.statusCode(), responseBody.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(responseBody);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
