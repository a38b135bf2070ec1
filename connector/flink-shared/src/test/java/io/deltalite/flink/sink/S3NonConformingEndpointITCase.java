package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteUnsupportedStorageException;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.SinkJobs;
import io.deltalite.flink.testing.s3.CommitWorkload;
import io.deltalite.flink.testing.s3.S3ForwardingProxy;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import io.deltalite.flink.testing.s3.S3aSettings;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An S3 endpoint that accepts a conditional write of an existing object — here a proxy that drops
 * {@code If-None-Match} before S3Proxy sees it — would let two writers overwrite each other's
 * commits. The sink's writers and committer refuse it, saying why and what to do; with {@code
 * s3.single-writer} the sink runs.
 */
class S3NonConformingEndpointITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    /** Behind the dropping proxy the server must accept requests altered after signing. */
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension(false);

    private static S3ForwardingProxy endpoint;

    @BeforeAll
    static void startProxy() {
        endpoint = S3ForwardingProxy.droppingIfNoneMatch(S3.server().endpoint());
    }

    @AfterAll
    static void stopProxy() {
        endpoint.close();
    }

    @Test
    void aWriterRefusesToOpenTheTableAndSaysWhyAndWhatToDo() {
        String bucket = S3.server().createBucket();
        String table = "s3a://" + bucket + "/orders";

        assertThatThrownBy(
                        () ->
                                S3UpsertHarness.open(
                                        table,
                                        StorageSettings.of(hadoopOptions()),
                                        S3UpsertHarness.ORDERS,
                                        CommitWorkload.OPTIONS,
                                        "refused"))
                .isInstanceOf(DeltaLiteUnsupportedStorageException.class)
                .hasMessageContaining(table)
                .hasMessageContaining(endpoint.endpoint())
                .hasMessageContaining("ignores conditional writes")
                .hasMessageContaining("would overwrite each other's commit")
                .hasMessageContaining("lost silently")
                .hasMessageContaining("supports conditional writes (If-None-Match)")
                .hasMessageContaining("'s3.single-writer' to true");
        assertThat(S3.server().objectFile(bucket, "orders/_delta_log/00000000000000000000.json"))
                .as("no table was created")
                .doesNotExist();
    }

    @Test
    void inSingleWriterModeTheSinkWritesTheTable() throws Exception {
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        ChangeScript script = ChangeScript.generate(5, 400, 100, 2, false);

        run(script, table, true);

        assertThat(Rows.sorted(KernelTableReader.readAll(table, hadoopOptions())))
                .isEqualTo(Rows.sorted(script.expected()));
        assertThat(endpoint.droppedConditions()).as("commits went through the proxy").isPositive();
    }

    private static void run(ChangeScript script, String table, boolean singleWriter)
            throws Exception {
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(300), 0);
        DeltaLiteSinkBuilder builder =
                DeltaLiteSink.forTable(table)
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .option(DeltaLiteOptions.S3_SINGLE_WRITER, singleWriter);
        hadoopOptions().forEach(builder::hadoopOption);
        SinkJobs.sink(SinkJobs.changes(env, script, 2_000), builder.build(), 1);
        env.execute("deltalite-s3-non-conforming");
    }

    private static Map<String, String> hadoopOptions() {
        return S3aSettings.forEndpoint(endpoint.endpoint());
    }
}
