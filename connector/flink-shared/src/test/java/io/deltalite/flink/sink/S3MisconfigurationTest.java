package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.deltalite.flink.exceptions.DeltaLiteStorageException;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3ProxyServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The first-day mistakes with S3 — an endpoint with a typo, a port where nothing listens, TLS to a
 * plain-HTTP port, the wrong keys, a bucket that does not exist — fail the job's build at once, in
 * an error that names the table, the setting and what the store answered, and never the secret.
 * (Before, the build sat in S3A's retry loops for many minutes without a word.)
 */
class S3MisconfigurationTest {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    /** Far more than the check needs, far less than S3A's retries without it. */
    private static final Duration BOUND = Duration.ofSeconds(60);

    private static final RowType ROWS =
            (RowType)
                    DataTypes.ROW(
                                    DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                                    DataTypes.FIELD("v", DataTypes.STRING()))
                            .getLogicalType();

    @Test
    void anEndpointWhereNothingListensFailsTheBuild() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String endpoint = "http://127.0.0.1:" + port;
        DeltaLiteStorageException error =
                buildFails("s3a://events/t", options -> options.put("fs.s3a.endpoint", endpoint));
        assertThat(error.getMessage())
                .contains("s3a://events/t")
                .contains("fs.s3a.endpoint")
                .contains(endpoint)
                .contains("refused");
    }

    /** The same check when Flink SQL opens the table, before any job is submitted. */
    @Test
    void anSqlTableWithAnEndpointWhereNothingListensFailsTheStatement() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        org.apache.flink.table.api.TableEnvironment tables =
                org.apache.flink.table.api.TableEnvironment.create(
                        org.apache.flink.table.api.EnvironmentSettings.inStreamingMode());
        StringBuilder with =
                new StringBuilder("'connector' = 'deltalite', 'path' = 's3a://events/t'");
        Map<String, String> options = new java.util.LinkedHashMap<>(S3.server().hadoopOptions());
        options.put("fs.s3a.endpoint", "http://127.0.0.1:" + port);
        options.forEach(
                (key, value) ->
                        with.append(", 'hadoop.")
                                .append(key)
                                .append("' = '")
                                .append(value)
                                .append("'"));
        tables.executeSql(
                "CREATE TABLE events (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                        + with
                        + ")");
        Throwable thrown =
                assertTimeoutPreemptively(
                        BOUND,
                        () -> {
                            try {
                                tables.executeSql("INSERT INTO events VALUES (1, 'one')").await();
                                return null;
                            } catch (Exception e) {
                                return e;
                            }
                        });
        assertThat(thrown).as("the statement failed").isNotNull();
        java.util.Optional<DeltaLiteStorageException> storage =
                org.apache.flink.util.ExceptionUtils.findThrowable(
                        thrown, DeltaLiteStorageException.class);
        assertThat(storage).as("a storage error in " + thrown).isPresent();
        assertThat(storage.get().getMessage())
                .contains("s3a://events/t")
                .contains("refused")
                .doesNotContain(S3ProxyServer.SECRET_KEY);
    }

    @Test
    void anEndpointHostThatDoesNotExistFailsTheBuild() {
        String endpoint = "http://deltalite-no-such-host.invalid:9000";
        DeltaLiteStorageException error =
                buildFails("s3a://events/t", options -> options.put("fs.s3a.endpoint", endpoint));
        assertThat(error.getMessage())
                .contains("fs.s3a.endpoint")
                .contains("deltalite-no-such-host.invalid")
                .contains("unknown host");
    }

    @Test
    void tlsToAPlainHttpPortFailsTheBuild() {
        String endpoint = "https://127.0.0.1:" + S3.server().port();
        DeltaLiteStorageException error =
                buildFails(
                        "s3a://" + S3.server().createBucket() + "/t",
                        options -> {
                            options.put("fs.s3a.endpoint", endpoint);
                            options.put("fs.s3a.connection.ssl.enabled", "true");
                        });
        assertThat(error.getMessage()).contains(endpoint).contains("TLS").contains("http://");
    }

    /**
     * An endpoint that takes the connection but never answers may only be unreachable from the
     * machine that builds the job (a firewall): the build goes on, warning, and the writers meet
     * the store themselves — without the build sitting in S3A's retries.
     */
    @Test
    void anEndpointThatNeverAnswersDoesNotHoldUpTheBuild() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) {
            Thread acceptor =
                    new Thread(
                            () -> {
                                java.util.List<java.net.Socket> held = new java.util.ArrayList<>();
                                try {
                                    while (true) {
                                        held.add(silent.accept());
                                    }
                                } catch (IOException closed) {
                                    held.forEach(
                                            socket -> {
                                                try {
                                                    socket.close();
                                                } catch (IOException e) {
                                                    // closing
                                                }
                                            });
                                }
                            });
            acceptor.setDaemon(true);
            acceptor.start();
            String endpoint = "https://127.0.0.1:" + silent.getLocalPort();
            Map<String, String> options =
                    new java.util.LinkedHashMap<>(S3.server().hadoopOptions());
            options.put("fs.s3a.endpoint", endpoint);
            options.put("fs.s3a.connection.ssl.enabled", "true");
            DeltaLiteSinkBuilder builder =
                    DeltaLiteSink.forTable("s3a://events/t").rowType(ROWS).primaryKey("id");
            options.forEach(builder::hadoopOption);
            DeltaLiteSink sink = assertTimeoutPreemptively(BOUND, builder::build);
            assertThat(sink).isNotNull();
        }
    }

    @Test
    void wrongKeysFailTheBuildWithoutShowingThem() {
        String wrongSecret = "wrong-S3cr3t-not-to-be-shown";
        DeltaLiteStorageException error =
                buildFails(
                        "s3a://" + S3.server().createBucket() + "/t",
                        options -> options.put("fs.s3a.secret.key", wrongSecret));
        assertThat(error.getMessage())
                .contains("credentials")
                .contains("fs.s3a.access.key")
                .doesNotContain(wrongSecret)
                .doesNotContain(S3ProxyServer.SECRET_KEY);
    }

    @Test
    void missingCredentialsFailTheBuild() {
        DeltaLiteStorageException error =
                buildFails(
                        "s3a://" + S3.server().createBucket() + "/t",
                        options -> {
                            options.remove("fs.s3a.access.key");
                            options.remove("fs.s3a.secret.key");
                        });
        assertThat(error.getMessage())
                .contains("no S3 credentials")
                .contains("fs.s3a.access.key")
                .contains("fs.s3a.aws.credentials.provider");
    }

    @Test
    void aBucketThatDoesNotExistFailsTheBuild() {
        DeltaLiteStorageException error = buildFails("s3a://no-such-bucket-here/t", options -> {});
        assertThat(error.getMessage())
                .contains("s3a://no-such-bucket-here/t")
                .contains("bucket")
                .contains("does not exist");
    }

    private static DeltaLiteStorageException buildFails(
            String table, Consumer<Map<String, String>> settings) {
        Map<String, String> options = new java.util.LinkedHashMap<>(S3.server().hadoopOptions());
        settings.accept(options);
        DeltaLiteSinkBuilder builder = DeltaLiteSink.forTable(table).rowType(ROWS).primaryKey("id");
        options.forEach(builder::hadoopOption);
        return buildFails(builder);
    }

    /** Builds the sink, which must fail within {@link #BOUND} with a storage error. */
    static DeltaLiteStorageException buildFails(DeltaLiteSinkBuilder builder) {
        Throwable thrown =
                assertTimeoutPreemptively(
                        BOUND,
                        () -> {
                            try {
                                builder.build();
                                return null;
                            } catch (RuntimeException e) {
                                return e;
                            }
                        });
        assertThat(thrown).as("the build failed").isInstanceOf(DeltaLiteStorageException.class);
        assertThat(thrown.getMessage()).doesNotContain(S3ProxyServer.SECRET_KEY);
        return (DeltaLiteStorageException) thrown;
    }
}
