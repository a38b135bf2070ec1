package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.SinkJobs;
import io.deltalite.flink.testing.s3.CommitWorkload;
import io.deltalite.flink.testing.s3.S3DeltaLog;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The sink on S3 tables, against a real S3 server (S3Proxy). */
class S3SinkITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Test
    void aFlinkJobUpsertsIntoAnS3aTableThatThenEqualsTheModel() throws Exception {
        Map<String, String> hadoopOptions = S3.server().hadoopOptions();
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        ChangeScript script = ChangeScript.generate(42, 3_000, 600, 4, false);

        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(300), 0);
        DeltaLiteSinkBuilder builder =
                DeltaLiteSink.forTable(table)
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("64kb"));
        hadoopOptions.forEach(builder::hadoopOption);
        SinkJobs.sink(SinkJobs.changes(env, script, 3_000), builder.build(), 2);
        env.execute("deltalite-s3");

        assertThat(Rows.sorted(KernelTableReader.readAll(table, hadoopOptions)))
                .isEqualTo(Rows.sorted(script.expected()));
        List<String> checkpoints =
                S3DeltaLog.commits(table, hadoopOptions).stream()
                        .filter(commit -> commit.appId() != null)
                        .map(commit -> commit.appId() + "@" + commit.txnVersion())
                        .toList();
        assertThat(checkpoints).as("checkpoints committed").isNotEmpty();
        assertThat(new HashSet<>(checkpoints)).as("each committed once").hasSameSizeAs(checkpoints);
    }

    @Test
    void anS3SchemeTableIsWrittenThroughS3AAndItsLogNamesFilesRelativeToTheTable() {
        Map<String, String> hadoopOptions = S3.server().hadoopOptions();
        String table = "s3://" + S3.server().createBucket() + "/orders";
        try (S3UpsertHarness harness =
                S3UpsertHarness.open(
                        table,
                        StorageSettings.of(hadoopOptions),
                        S3UpsertHarness.ORDERS,
                        CommitWorkload.OPTIONS,
                        "s3-scheme")) {
            harness.upsert(1L, "d1", 10);
            harness.upsert(2L, "d2", 20);
            assertThat(harness.commit().status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            harness.upsert(1L, "d1", 11);
            assertThat(harness.commit().version()).isEqualTo(2);
        }

        List<DeltaHistory.Commit> commits = S3DeltaLog.commits(table, hadoopOptions);
        assertThat(commits).extracting(DeltaHistory.Commit::version).containsExactly(0L, 1L, 2L);
        String update = S3DeltaLog.commitText(table, 2, hadoopOptions);
        assertThat(update).contains("\"path\":\"day=d1/").doesNotContain("s3a:");
        Map<String, String> readerOptions = new HashMap<>(hadoopOptions);
        readerOptions.put("fs.s3.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
        assertThat(Rows.sorted(KernelTableReader.readAll(table, readerOptions)))
                .isEqualTo(
                        Rows.sorted(
                                List.of(new Object[] {1L, "d1", 11}, new Object[] {2L, "d2", 20})));
    }
}
