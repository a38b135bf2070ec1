package io.deltalite.flink.internal.delta.fileio;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Concurrent committers on a local table: each Delta version is written once, none is lost. */
class LocalFileIOTest {
    static final TableDefinition EVENTS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("writer", ValueType.of(ValueType.Kind.INT), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    @TempDir Path dir;

    @Test
    void eightConcurrentCommittersEachLandEveryCommitExactlyOnce() throws Exception {
        String table = dir.resolve("t").toString();
        try (UpsertHarness creator = UpsertHarness.open(table, EVENTS, MergeOptions.DEFAULTS)) {
            creator.upsert(-1L, "d0", -1);
            creator.commit();
        }
        int writers = 8;
        int commitsEach = 6;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> attempts = new ArrayList<>();
        for (int writer = 0; writer < writers; writer++) {
            int id = writer;
            attempts.add(
                    pool.submit(
                            () -> {
                                int retried = 0;
                                try (UpsertHarness harness =
                                        UpsertHarness.open(
                                                table,
                                                EVENTS,
                                                MergeOptions.DEFAULTS.withCommitRetries(30),
                                                "writer-" + id)) {
                                    start.await();
                                    for (int commit = 0; commit < commitsEach; commit++) {
                                        // Every writer touches the shared partition d0 and one of
                                        // its own.
                                        harness.upsert((long) id * 1000 + commit, "d0", id);
                                        harness.upsert(
                                                (long) id * 1000 + commit + 500, "w" + id, id);
                                        CommitOutcome outcome = harness.commit();
                                        assertThat(outcome.status())
                                                .isEqualTo(CommitOutcome.Status.COMMITTED);
                                        retried += outcome.attempts() - 1;
                                    }
                                }
                                return retried;
                            }));
        }
        start.countDown();
        int retries = 0;
        for (Future<Integer> attempt : attempts) {
            retries += attempt.get();
        }
        pool.shutdown();

        // Versions 0..N, each once, no gap; every writer's checkpoints 1..6 are in the log.
        int expectedVersions = 2 + writers * commitsEach;
        try (Stream<Path> log = Files.list(dir.resolve("t/_delta_log"))) {
            assertThat(
                            log.filter(f -> f.getFileName().toString().matches("\\d{20}\\.json"))
                                    .count())
                    .isEqualTo(expectedVersions);
        }
        Set<String> transactions = new HashSet<>(DeltaHistory.transactionIds(dir.resolve("t")));
        for (int writer = 0; writer < writers; writer++) {
            for (int checkpoint = 1; checkpoint <= commitsEach; checkpoint++) {
                assertThat(transactions).contains("writer-" + writer + "@" + checkpoint);
            }
        }
        assertThat(retries).as("losers retried").isPositive();

        List<Object[]> expected = new ArrayList<>();
        expected.add(new Object[] {-1L, "d0", -1});
        for (int writer = 0; writer < writers; writer++) {
            for (int commit = 0; commit < commitsEach; commit++) {
                expected.add(new Object[] {(long) writer * 1000 + commit, "d0", writer});
                expected.add(
                        new Object[] {(long) writer * 1000 + commit + 500, "w" + writer, writer});
            }
        }
        assertThat(Rows.sorted(KernelTableReader.readAll(table))).isEqualTo(Rows.sorted(expected));
    }
}
