package io.deltalite.flink.internal.merge.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.testing.Benchmark;
import io.deltalite.flink.testing.DefaultPathsStore;
import io.deltalite.flink.testing.Spread;
import io.deltalite.flink.testing.UpsertHarness;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What merging a tier of small files by key costs — the work of inline compaction and of a
 * deletion-vector merge's folds: four files of random {@code BIGINT} keys merged into one sorted
 * file through {@link SortedRunMerge}, once with the output copied row by row into Java values and
 * encoded again (the default of {@link DataFileStore#gather}, as before) and once pointing into the
 * files' column batches (the table's store), runs alternating; rows per CPU-second of the merging
 * thread, which also runs Kernel's Parquet reader and writer. BENCHMARKS.md §15:
 *
 * <pre>
 * mvn -B -ntp -o -pl connector/core test -Dtest='MergeByKeyBenchmark#rowsPerSecond*' \
 *     -Dsurefire.excludedGroups= -Dtest.jvm.jit= [-Dbench.rows=2000000] [-Dbench.repetitions=5]
 * </pre>
 */
class MergeByKeyBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** The rows of the side-by-side benchmark's CDC workload. */
    private static final TableDefinition STEADY =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("part", ValueType.of(Kind.STRING), true),
                            new ValueType.Field("seq", ValueType.of(Kind.BIGINT), true),
                            new ValueType.Field("note", ValueType.of(Kind.STRING), true)),
                    List.of("id"),
                    List.of(),
                    Map.of());

    private static final int FILES = 4;

    @TempDir Path dir;

    /** A tiny run, to check the harness works; its numbers mean nothing. */
    @Test
    void aTinyRunMergesBothWays() {
        Result result = measure(8_000, 1, 0);
        assertThat(result.copied()).hasSize(1);
        assertThat(result.gathered()).hasSize(1);
    }

    @Test
    @Benchmark
    void rowsPerSecondOfMergingFourFilesByKey() {
        int rows = Integer.getInteger("bench.rows", 2_000_000);
        int repetitions = Integer.getInteger("bench.repetitions", 5);
        Result result = measure(rows, repetitions, 2);
        System.out.printf(
                "%n### Merging %d files of %,d rows in all by key, %d runs, one thread%n%n"
                        + "| output | M rows per CPU-second (min / median / max) | CPU ms per merge"
                        + " | wall ms per merge |%n| --- | --- | --- | --- |%n%s%s",
                FILES,
                rows,
                repetitions,
                Spread.row(
                        "rows copied as Java values (before)",
                        result.copied(),
                        result.copiedWall(),
                        rows,
                        2),
                Spread.row(
                        "column batches gathered (after)",
                        result.gathered(),
                        result.gatheredWall(),
                        rows,
                        2));
    }

    /** CPU time of the merging thread per merge, and wall time per merge. */
    record Result(
            List<Long> copied,
            List<Long> gathered,
            List<Long> copiedWall,
            List<Long> gatheredWall) {}

    private Result measure(int rows, int repetitions, int warmUps) {
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withMaxBufferedBytes(1L << 30)
                        .withTargetFileSizeBytes(1L << 30)
                        .withCompaction(CompactionOptions.DISABLED);
        Random random = new Random(17);
        try (UpsertHarness harness =
                UpsertHarness.open(dir.resolve("steady").toString(), STEADY, options)) {
            int perFile = rows / FILES;
            for (int file = 0; file < FILES; file++) {
                for (int i = 0; i < perFile; i++) {
                    harness.upsert(
                            random.nextLong(),
                            "part-" + random.nextInt(4),
                            random.nextLong(),
                            "a note of some forty characters, #" + random.nextInt(1_000_000));
                }
                harness.commit();
            }
            List<DataFile> live = new ArrayList<>();
            harness.table().latestSnapshot().allLiveFiles().values().forEach(live::addAll);
            assertThat(live).hasSize(FILES);
            DataFileStore gathering = harness.table().files();
            DataFileStore copying = new DefaultPathsStore(gathering);
            List<Long> copiedCpu = new ArrayList<>();
            List<Long> gatheredCpu = new ArrayList<>();
            List<Long> copiedWall = new ArrayList<>();
            List<Long> gatheredWall = new ArrayList<>();
            for (int round = 0; round < warmUps + repetitions; round++) {
                for (DataFileStore store : List.of(copying, gathering)) {
                    long start = THREADS.getCurrentThreadCpuTime();
                    long wallStart = System.nanoTime();
                    List<DataFile> merged =
                            store.write(
                                    PartitionValues.UNPARTITIONED,
                                    new SortedRunMerge(
                                            store,
                                            live,
                                            io.deltalite.flink.internal.merge.value.RowOrder.of(
                                                    harness.table().schema(), List.of()),
                                            options.readBatchSize()));
                    long cpu = THREADS.getCurrentThreadCpuTime() - start;
                    long wall = System.nanoTime() - wallStart;
                    assertThat(merged.stream().mapToLong(DataFile::numRecords).sum())
                            .isEqualTo((long) perFile * FILES);
                    merged.forEach(store::deleteUncommitted);
                    if (round >= warmUps) {
                        (store == gathering ? gatheredCpu : copiedCpu).add(cpu);
                        (store == gathering ? gatheredWall : copiedWall).add(wall);
                    }
                }
            }
            return new Result(copiedCpu, gatheredCpu, copiedWall, gatheredWall);
        }
    }
}
