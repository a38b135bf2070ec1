package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.s3.CommitWorkload;
import io.deltalite.flink.testing.s3.CommitterProcess;
import io.deltalite.flink.testing.s3.S3DeltaLog;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3ProxyServer;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Eight writers — seven threads of this JVM and one JVM of its own — commit to one table on S3 at
 * the same time. Each Delta version is created by exactly one put-if-absent; a writer that loses
 * the race re-reads the table, re-merges and commits again, until it lands.
 */
class S3ConcurrentCommitITCase {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final int THREADS = 7;
    private static final int PROCESSES = 1;
    private static final int WRITERS = THREADS + PROCESSES;
    private static final int COMMITS = 4;

    @Test
    void everyVersionIsWrittenOnceAndEveryCommitLands() throws Exception {
        Map<String, String> hadoopOptions = S3.server().hadoopOptions();
        String table = "s3a://" + S3.server().createBucket() + "/orders";
        StorageSettings storage = StorageSettings.of(hadoopOptions);
        try (S3UpsertHarness creator =
                S3UpsertHarness.open(
                        table,
                        storage,
                        S3UpsertHarness.ORDERS,
                        CommitWorkload.OPTIONS,
                        "creator")) {
            assertThat(creator.table().location()).isEqualTo(table);
        }

        List<CommitterProcess> processes = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        List<CommitWorkload.Landed> landed = new ArrayList<>();
        try {
            for (int writer = THREADS; writer < WRITERS; writer++) {
                processes.add(
                        CommitterProcess.start(
                                table, "process-" + writer, writer, COMMITS, hadoopOptions));
            }
            List<S3UpsertHarness> harnesses = new ArrayList<>();
            for (int writer = 0; writer < THREADS; writer++) {
                harnesses.add(
                        S3UpsertHarness.open(
                                table,
                                storage,
                                S3UpsertHarness.ORDERS,
                                CommitWorkload.OPTIONS,
                                "thread-" + writer));
            }
            for (CommitterProcess process : processes) {
                process.awaitReady();
            }
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<CommitWorkload.Landed>>> results = new ArrayList<>();
            for (int writer = 0; writer < THREADS; writer++) {
                S3UpsertHarness harness = harnesses.get(writer);
                int number = writer;
                results.add(
                        threads.submit(
                                (Callable<List<CommitWorkload.Landed>>)
                                        () -> {
                                            go.await();
                                            try (harness) {
                                                return CommitWorkload.run(
                                                        harness,
                                                        "thread-" + number,
                                                        number,
                                                        COMMITS);
                                            }
                                        }));
            }
            processes.forEach(CommitterProcess::go);
            go.countDown();
            for (Future<List<CommitWorkload.Landed>> result : results) {
                landed.addAll(result.get());
            }
            for (CommitterProcess process : processes) {
                landed.addAll(process.awaitLanded());
            }
        } finally {
            threads.shutdownNow();
            processes.forEach(CommitterProcess::close);
        }

        List<DeltaHistory.Commit> log = S3DeltaLog.commits(table, hadoopOptions);
        // version 0 created the table; then one version per commit of every writer
        assertThat(log)
                .extracting(DeltaHistory.Commit::version)
                .containsExactlyElementsOf(versions(WRITERS * COMMITS + 1));
        Set<String> recorded = new HashSet<>();
        for (DeltaHistory.Commit commit : log.subList(1, log.size())) {
            assertThat(recorded.add(commit.appId() + "@" + commit.txnVersion()))
                    .as("transaction %s@%s recorded once", commit.appId(), commit.txnVersion())
                    .isTrue();
        }
        assertThat(landed).hasSize(WRITERS * COMMITS);
        for (CommitWorkload.Landed commit : landed) {
            DeltaHistory.Commit atVersion = log.get((int) commit.version());
            assertThat(atVersion.appId() + "@" + atVersion.txnVersion())
                    .as(
                            "the version %s reported to %s holds its commit",
                            commit.version(), commit.appId())
                    .isEqualTo(commit.appId() + "@" + commit.checkpoint());
        }
        assertThat(landed.stream().mapToInt(CommitWorkload.Landed::attempts).max().orElse(0))
                .as("some writer lost a race and retried")
                .isGreaterThan(1);
        assertThat(S3DeltaLog.logFileNames(table, hadoopOptions))
                .as("Kernel's checkpoints, written through the same S3 file access")
                .contains("00000000000000000010.checkpoint.parquet", "_last_checkpoint");
        assertThat(Rows.sorted(KernelTableReader.readAll(table, hadoopOptions)))
                .isEqualTo(Rows.sorted(CommitWorkload.expected(WRITERS, COMMITS)));
        for (CommitterProcess process : processes) {
            assertThat(process.output()).doesNotContain(S3ProxyServer.SECRET_KEY);
        }
    }

    private static List<Long> versions(int count) {
        List<Long> versions = new ArrayList<>();
        for (long version = 0; version < count; version++) {
            versions.add(version);
        }
        return versions;
    }
}
