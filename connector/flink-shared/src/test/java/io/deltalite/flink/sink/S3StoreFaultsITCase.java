package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.deltalite.flink.exceptions.DeltaLiteStorageException;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.SinkJobs;
import io.deltalite.flink.testing.s3.S3DeltaLog;
import io.deltalite.flink.testing.s3.S3ForwardingProxy;
import io.deltalite.flink.testing.s3.S3ForwardingProxy.Answer;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3aSettings;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real S3 server behind a proxy that plays a store in trouble: throttling (503 SlowDown), gone
 * for a while (connections closed unanswered), or refusing access to the Delta log. Transient
 * faults are retried and the table ends equal to the model, each checkpoint committed once;
 * refusals fail the job's build at once, naming what was refused.
 */
class S3StoreFaultsITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    /** The proxy rewrites the Host header: the server must not check signatures. */
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension(false);

    private static S3ForwardingProxy proxy;

    @BeforeAll
    static void startProxy() {
        proxy = S3ForwardingProxy.recording(S3.server().endpoint());
    }

    @AfterAll
    static void stopProxy() {
        proxy.close();
    }

    @AfterEach
    void heal() {
        proxy.inject(null);
    }

    @Test
    void throttlingIsRetriedAndEachCheckpointCommitsOnce() throws Exception {
        AtomicInteger seen = new AtomicInteger();
        // Once the job runs: every third request is throttled, 40 times (each costs the
        // client's back-off, about a third of a second here).
        AtomicInteger throttled = new AtomicInteger();
        runThroughFault(
                (method, uri) ->
                        seen.incrementAndGet() % 3 == 0 && throttled.incrementAndGet() <= 40
                                ? Answer.slowDown()
                                : null);
        assertThat(throttled.get()).as("requests throttled").isGreaterThan(20);
    }

    @Test
    void aStoreGoneForAFewSecondsLosesNothingAndDoublesNothing() throws Exception {
        long[] goneUntil = {0};
        runThroughFault(
                (method, uri) -> {
                    synchronized (goneUntil) {
                        if (goneUntil[0] == 0) {
                            goneUntil[0] = System.currentTimeMillis() + 4_000;
                        }
                        return System.currentTimeMillis() < goneUntil[0]
                                ? Answer.dropConnection()
                                : null;
                    }
                });
    }

    @Test
    void noWritePermissionOnTheLogFailsTheBuild() {
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        proxy.inject(
                (method, uri) ->
                        (method.equals("PUT") || method.equals("POST"))
                                        && objectPath(uri).contains("/_delta_log/")
                                ? Answer.accessDenied()
                                : null);
        DeltaLiteStorageException error = buildFails(table);
        assertThat(error.getMessage())
                .contains(table)
                .contains("_delta_log")
                .contains("access denied")
                .contains("write and delete permission");
    }

    @Test
    void noReadPermissionOnTheLogFailsTheBuild() throws Exception {
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        ChangeScript script = ChangeScript.generate(5, 200, 50, 2, false);
        runJob(table, script);
        proxy.inject(
                (method, uri) ->
                        method.equals("GET") && objectPath(uri).contains("/_delta_log/0")
                                ? Answer.accessDenied()
                                : null);
        DeltaLiteStorageException error = buildFails(table);
        assertThat(error.getMessage())
                .contains(table)
                .contains("reading its Delta log")
                .contains("access denied")
                .contains("read, write and delete permission");
    }

    @Test
    void anExpiredSessionTokenFailsTheBuildSayingSo() {
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        proxy.inject((method, uri) -> new Answer(400, "ExpiredToken"));
        DeltaLiteStorageException error = buildFails(table);
        assertThat(error.getMessage())
                .contains(table)
                .contains("expired")
                .contains("fs.s3a.session.token")
                .contains("fs.s3a.aws.credentials.provider");
    }

    /** Runs a job whose requests pass {@code fault} from its first checkpoint on. */
    private void runThroughFault(S3ForwardingProxy.Fault fault) throws Exception {
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        ChangeScript script = ChangeScript.generate(23, 6_000, 800, 4, false);
        int before = proxy.faulted();
        Thread injector =
                new Thread(
                        () -> {
                            try {
                                Thread.sleep(2_000);
                            } catch (InterruptedException e) {
                                return;
                            }
                            proxy.inject(fault);
                        });
        injector.start();
        try {
            // Bounded: S3A's retries heal the fault (or Flink's restarts do) within minutes.
            assertTimeoutPreemptively(Duration.ofMinutes(3), () -> runJob(table, script));
        } finally {
            injector.interrupt();
            injector.join();
            proxy.inject(null);
        }
        assertThat(proxy.faulted()).as("faults injected").isGreaterThan(before);
        Map<String, String> direct = S3.server().hadoopOptions();
        assertThat(Rows.sorted(KernelTableReader.readAll(table, direct)))
                .isEqualTo(Rows.sorted(script.expected()));
        List<String> checkpoints =
                S3DeltaLog.commits(table, direct).stream()
                        .filter(commit -> commit.appId() != null)
                        .map(commit -> commit.appId() + "@" + commit.txnVersion())
                        .toList();
        assertThat(checkpoints).as("checkpoints committed").isNotEmpty();
        assertThat(new HashSet<>(checkpoints)).as("each committed once").hasSameSizeAs(checkpoints);
    }

    private void runJob(String table, ChangeScript script) throws Exception {
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(400), 20);
        DeltaLiteSinkBuilder builder =
                DeltaLiteSink.forTable(table)
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("64kb"));
        viaProxy().forEach(builder::hadoopOption);
        SinkJobs.sink(SinkJobs.changes(env, script, 1_000), builder.build(), 2);
        env.execute("deltalite-s3-faults");
    }

    private static DeltaLiteStorageException buildFails(String table) {
        ChangeScript script = ChangeScript.generate(1, 10, 10, 1, false);
        DeltaLiteSinkBuilder builder =
                DeltaLiteSink.forTable(table)
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day");
        viaProxy().forEach(builder::hadoopOption);
        return S3MisconfigurationTest.buildFails(builder);
    }

    private static Map<String, String> viaProxy() {
        return S3aSettings.forEndpoint(proxy.endpoint());
    }

    /** The path of a request URI, without its query. */
    private static String objectPath(String uri) {
        int query = uri.indexOf('?');
        return query < 0 ? uri : uri.substring(0, query);
    }
}
