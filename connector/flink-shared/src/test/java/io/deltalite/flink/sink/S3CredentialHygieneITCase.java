package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.exceptions.DeltaLiteUnsupportedStorageException;
import io.deltalite.flink.internal.storage.S3TableStorage;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.SinkJobs;
import io.deltalite.flink.testing.s3.CapturedLogs;
import io.deltalite.flink.testing.s3.CommitWorkload;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3ProxyServer;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The S3 secret key never shows: not in what a job, the engine, Hadoop's S3A or the AWS SDK log
 * (S3A and the SDK at DEBUG), not in the errors users see, not in any {@code toString()}.
 */
class S3CredentialHygieneITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String SECRET = S3ProxyServer.SECRET_KEY;

    @Test
    void theSecretIsInNoLogOfAJobOnS3() throws Exception {
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        ChangeScript script = ChangeScript.generate(9, 500, 100, 2, false);
        String logs;
        try (CapturedLogs captured =
                CapturedLogs.start(
                        Map.of(
                                "io.deltalite", Level.DEBUG,
                                "org.apache.hadoop.fs.s3a", Level.DEBUG,
                                "org.apache.hadoop.conf", Level.DEBUG,
                                "software.amazon.awssdk", Level.DEBUG,
                                "org.apache.http.headers", Level.DEBUG))) {
            StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(300), 0);
            DeltaLiteSinkBuilder builder =
                    DeltaLiteSink.forTable(table)
                            .rowType(script.rowType())
                            .primaryKey(script.primaryKey())
                            .partitionKey("day");
            S3.server().hadoopOptions().forEach(builder::hadoopOption);
            SinkJobs.sink(SinkJobs.changes(env, script, 2_000), builder.build(), 1);
            env.execute("deltalite-s3-secret");
            logs = captured.text();
        }

        assertThat(logs)
                .as("the capture saw the job, the engine, S3A, the SDK and HTTP headers")
                .contains("Committed checkpoint")
                .contains("honours conditional writes")
                .contains("DEBUG org.apache.hadoop.fs.s3a.")
                .contains("DEBUG software.amazon.awssdk.")
                .contains("org.apache.http.headers");
        assertThat(logs).doesNotContain(SECRET);
    }

    @Test
    void theSecretIsInNoErrorMessage() {
        Map<String, String> noBucket = S3.server().hadoopOptions();
        Throwable probeFailure =
                catchThrowable(
                        () ->
                                S3UpsertHarness.open(
                                        "s3a://no-such-bucket-" + S3.server().port() + "/t",
                                        StorageSettings.of(noBucket),
                                        S3UpsertHarness.ORDERS,
                                        CommitWorkload.OPTIONS,
                                        "secret"));
        Map<String, String> conditionalOff = new HashMap<>(S3.server().hadoopOptions());
        conditionalOff.put("fs.s3a.create.conditional.enabled", "false");
        Throwable refusal =
                catchThrowable(
                        () ->
                                S3UpsertHarness.open(
                                        "s3a://" + S3.server().createBucket() + "/t",
                                        StorageSettings.of(conditionalOff),
                                        S3UpsertHarness.ORDERS,
                                        CommitWorkload.OPTIONS,
                                        "secret"));
        Map<String, String> wrongSecret = new HashMap<>(S3.server().hadoopOptions());
        wrongSecret.put("fs.s3a.secret.key", SECRET + "-wrong");
        Throwable denied =
                catchThrowable(
                        () ->
                                S3UpsertHarness.open(
                                        "s3a://" + S3.server().createBucket() + "/t",
                                        StorageSettings.of(wrongSecret),
                                        S3UpsertHarness.ORDERS,
                                        CommitWorkload.OPTIONS,
                                        "secret"));

        assertThat(probeFailure).isInstanceOf(DeltaLiteException.class);
        assertThat(refusal).isInstanceOf(DeltaLiteUnsupportedStorageException.class);
        assertThat(denied).isInstanceOf(DeltaLiteException.class);
        for (Throwable failure : List.of(probeFailure, refusal, denied)) {
            assertThat(ExceptionUtils.stringifyException(failure)).doesNotContain(SECRET);
        }
    }

    @Test
    void theSecretIsInNoToString() throws Exception {
        Map<String, String> hadoopOptions = S3.server().hadoopOptions();
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        ChangeScript script = ChangeScript.generate(1, 10, 10, 1, false);
        DeltaLiteSinkBuilder builder =
                DeltaLiteSink.forTable(table).rowType(script.rowType()).primaryKey("id");
        hadoopOptions.forEach(builder::hadoopOption);
        Configuration conf = new Configuration();
        hadoopOptions.forEach(conf::set);

        List<Object> described =
                List.of(
                        builder.build(),
                        StorageSettings.of(hadoopOptions),
                        S3TableStorage.open(table, conf, false),
                        new Path(table).getFileSystem(conf));

        for (Object object : described) {
            assertThat(object.toString())
                    .as("toString() of %s", object.getClass().getSimpleName())
                    .doesNotContain(SECRET);
        }
        assertThat(described.get(0).toString()).contains("fs.s3a.secret.key");
    }
}
