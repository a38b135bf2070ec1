package io.deltalite.flink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import io.deltalite.flink.testing.Benchmark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 10 of BENCHMARKS.md: one unpartitioned table, scattered updates, written by p = 1, 2 and
 * 4 writers distributed by key. For each p the table is written by p writers from the start (so its
 * files carry their writers' key ranges), then each checkpoint of scattered updates is routed to
 * the writers as the sink routes records (Flink's key groups of the primary key), and each writer's
 * merge is timed alone, one after the other: the slowest is the checkpoint's merge critical path on
 * a cluster with a core per writer. The commit of all writers' results is timed after. Not part of
 * the default build:
 *
 * <pre>
 * mvn -B -ntp -pl connector test -Dtest=ScaleOutBenchmark -Dsurefire.excludedGroups= -Dtest.jvm.jit= \
 *     [-Dbench.rows=5000000] [-Dbench.updates=50000] [-Dbench.rounds=5]
 * </pre>
 */
class ScaleOutBenchmark {
    private static final int MAX_PARALLELISM = 128;

    static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field(
                                    "amount", ValueType.of(ValueType.Kind.BIGINT), true),
                            new ValueType.Field("note", ValueType.of(ValueType.Kind.STRING), true)),
                    List.of("id"),
                    List.of(),
                    Map.of("delta.enableDeletionVectors", "true"));

    @TempDir Path dir;

    /** A tiny run in every build, so the benchmark keeps working. */
    @Test
    void aTinyRunSpreadsTheUpdatesOverTheWriters() {
        Result result = measure(dir.resolve("tiny"), 2, 20_000, 2_000, 1);
        assertThat(result.changesPerWriter()).hasSize(2).doesNotContain(0L);
        assertThat(result.slowestMergeMillis()).hasSize(1);
        assertThat(result.remerged()).isZero();
        assertThat(KernelTableReader.readAll(dir.resolve("tiny").toString())).hasSize(20_000);
    }

    @Test
    @Benchmark
    void scatteredUpdatesOfOnePartitionAtParallelismOneTwoAndFour() {
        int rows = Integer.getInteger("bench.rows", 5_000_000);
        int updates = Integer.getInteger("bench.updates", 50_000);
        int rounds = Integer.getInteger("bench.rounds", 5);
        StringBuilder report = new StringBuilder();
        report.append(
                String.format(
                        "%n### 10. Distribution by key (%,d rows, %,d scattered updates per"
                                + " checkpoint, %d checkpoints)%n%n",
                        rows, updates, rounds));
        report.append(
                "| writers | changes per writer (share of even: min–max) | slowest writer's merge"
                        + " ms (min / median / max) | vs 1 writer | commit ms (median) | files"
                        + " probed per writer |\n| --- | --- | --- | --- | --- | --- |\n");
        double single = 0;
        for (int writers : new int[] {1, 2, 4}) {
            Result result = measure(dir.resolve("p" + writers), writers, rows, updates, rounds);
            double median = median(result.slowestMergeMillis());
            if (writers == 1) {
                single = median;
            }
            long[] changes = result.changesPerWriter();
            double even = Arrays.stream(changes).sum() / (double) writers;
            report.append(
                    String.format(
                            "| %d | %s (%.0f %%–%.0f %%) | %.0f / %.0f / %.0f | %.2f× | %.0f | %.1f"
                                    + " |%n",
                            writers,
                            Arrays.toString(changes),
                            100 * Arrays.stream(changes).min().orElse(0) / even,
                            100 * Arrays.stream(changes).max().orElse(0) / even,
                            min(result.slowestMergeMillis()),
                            median,
                            max(result.slowestMergeMillis()),
                            median / single,
                            median(result.commitMillis()),
                            result.filesProbedPerWriter()));
            assertThat(result.remerged()).as("checkpoints the committer merged again").isZero();
        }
        System.out.println(report);
    }

    /** What one parallelism measured; changes are summed over the rounds. */
    record Result(
            long[] changesPerWriter,
            double[] slowestMergeMillis,
            double[] commitMillis,
            double filesProbedPerWriter,
            int remerged) {}

    private static Result measure(Path location, int writers, int rows, int updates, int rounds) {
        String appId = "bench-" + writers;
        MergeOptions options = MergeOptions.DEFAULTS.withTargetFileSizeBytes(16L << 20);
        ExecutorService files = Executors.newFixedThreadPool(options.maxParallelFiles());
        try {
            DeltaTable table =
                    DeltaTable.open(location.toString(), Map.of(), options, ORDERS, true);
            List<MergeWriter> merge = new ArrayList<>();
            for (int writer = 0; writer < writers; writer++) {
                merge.add(
                        new MergeWriter(
                                table,
                                options,
                                appId,
                                writer,
                                writers,
                                1,
                                files,
                                shareOf(writer, writers)));
            }
            CheckpointCommitter committer =
                    new CheckpointCommitter(
                            table, new PartitionMerger(table, options, files), options, appId, 0);
            // The table as the writers would have written it, one checkpoint of inserts each
            // (with the default buffer, early merges would give each parallelism other files).
            List<MergeWriter> seeders = new ArrayList<>();
            for (int writer = 0; writer < writers; writer++) {
                seeders.add(
                        new MergeWriter(
                                table,
                                options.withMaxBufferedBytes(Long.MAX_VALUE / 4),
                                appId,
                                writer,
                                writers,
                                1,
                                files,
                                shareOf(writer, writers)));
            }
            for (long id = 0; id < rows; id++) {
                seeders.get(writerOf(id, writers)).upsert(row(id, 0));
            }
            long checkpoint = 1;
            commit(committer, appId, checkpoint, prepareAll(seeders, checkpoint, null));
            seeders.forEach(MergeWriter::close);

            Random random = new Random(42);
            long[] changes = new long[writers];
            double[] slowest = new double[rounds];
            double[] commits = new double[rounds];
            long probed = 0;
            int remerged = 0;
            // Round 0 warms the JIT up and is not counted.
            for (int round = -1; round < rounds; round++) {
                for (int i = 0; i < updates; i++) {
                    long id = (long) (random.nextDouble() * rows);
                    int writer = writerOf(id, writers);
                    merge.get(writer).upsert(row(id, round + 2));
                    if (round >= 0) {
                        changes[writer]++;
                    }
                }
                checkpoint++;
                double[] millis = new double[writers];
                List<PartitionWriteResult> results = prepareAll(merge, checkpoint, millis);
                long started = System.nanoTime();
                CommitOutcome outcome = commit(committer, appId, checkpoint, results);
                double commitMillis = (System.nanoTime() - started) / 1e6;
                remerged += outcome.remergedPartitions();
                if (round < 0) {
                    continue;
                }
                slowest[round] = Arrays.stream(millis).max().orElse(0);
                commits[round] = commitMillis;
                for (PartitionWriteResult result : results) {
                    probed += result.stats().filesProbed();
                }
            }
            merge.forEach(MergeWriter::close);
            return new Result(
                    changes, slowest, commits, probed / (double) (rounds * writers), remerged);
        } finally {
            files.shutdownNow();
        }
    }

    /** The keys Flink gives writer {@code writer} of {@code writers}. */
    private static WriterShare shareOf(int writer, int writers) {
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        MAX_PARALLELISM, writers, writer);
        return WriterShare.keysIn(
                new KeyGroups(
                        "0000000b",
                        range.getStartKeyGroup(),
                        range.getEndKeyGroup(),
                        MAX_PARALLELISM));
    }

    /** Each writer's merge, alone and timed; the results of all of them. */
    private static List<PartitionWriteResult> prepareAll(
            List<MergeWriter> writers, long checkpoint, double[] millis) {
        List<PartitionWriteResult> results = new ArrayList<>();
        for (int writer = 0; writer < writers.size(); writer++) {
            long started = System.nanoTime();
            results.addAll(writers.get(writer).prepare());
            if (millis != null) {
                millis[writer] = (System.nanoTime() - started) / 1e6;
            }
            writers.get(writer).prepared(checkpoint);
        }
        return results;
    }

    private static CommitOutcome commit(
            CheckpointCommitter committer,
            String appId,
            long checkpoint,
            List<PartitionWriteResult> results) {
        return committer.commit(new CheckpointResults(appId, checkpoint, results));
    }

    /** The writer the sink routes {@code id} to: Flink's key group of its key, as the sink keys. */
    private static int writerOf(long id, int writers) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                id + "\u0001", MAX_PARALLELISM, writers);
    }

    private static Object[] row(long id, int version) {
        return new Object[] {id, id * 7 + version, "order " + id + " v" + version};
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElse(0);
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElse(0);
    }
}
