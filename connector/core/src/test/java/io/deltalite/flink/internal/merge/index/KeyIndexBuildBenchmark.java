package io.deltalite.flink.internal.merge.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.probe.ParallelFileWork;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.testing.Benchmark;
import io.deltalite.flink.testing.DefaultPathsStore;
import io.deltalite.flink.testing.Spread;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How fast one partition's key index is built from its files — what a writer pays per partition
 * after a start, restore or rescale: {@link PartitionKeyIndex#follow} on all files of a table, on
 * one thread, once reading the files row by row through Kernel (before) and once through the
 * table's store, which uses the column reader (after), runs alternating; keys per CPU-second of the
 * building thread, and the index's bytes per key. BENCHMARKS.md §13:
 *
 * <pre>
 * mvn -B -ntp -o -pl connector/core test -Dtest='KeyIndexBuildBenchmark#keysPerSecond*' \
 *     -Dsurefire.excludedGroups= -Dtest.jvm.jit= [-Dbench.rows=5000000] [-Dbench.files=8] [-Dbench.repetitions=5]
 * </pre>
 */
class KeyIndexBuildBenchmark {
    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    private static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("amount", ValueType.of(Kind.BIGINT), true),
                            new ValueType.Field("note", ValueType.of(Kind.STRING), true)),
                    List.of("id"),
                    List.of(),
                    Map.of());

    @TempDir Path dir;

    /** A tiny run, to check the harness works; its numbers mean nothing. */
    @Test
    void aTinyRunBuildsBothWays() {
        Result result = measure(20_000, 2, 1, 0);
        assertThat(result.rowWise()).hasSize(1);
        assertThat(result.columnar()).hasSize(1);
    }

    @Test
    @Benchmark
    void keysPerSecondOfTheIndexBuildBeforeAndAfter() {
        int rows = Integer.getInteger("bench.rows", 5_000_000);
        int files = Integer.getInteger("bench.files", 8);
        int repetitions = Integer.getInteger("bench.repetitions", 5);
        Result result = measure(rows, files, repetitions, 2);
        System.out.printf(
                "%n### Index build: %,d BIGINT keys in %d files, %d runs, one thread, %.1f bytes"
                        + " per key%n%n| files read | M keys per CPU-second (min / median / max) |"
                        + " CPU ms per build | wall ms per build |%n| --- | --- | --- | --- |%n%s%s",
                rows,
                files,
                repetitions,
                result.bytesPerKey(),
                Spread.row(
                        "Kernel, row-wise (before)",
                        result.rowWise(),
                        result.rowWiseWall(),
                        rows,
                        1),
                Spread.row(
                        "column reader (after)",
                        result.columnar(),
                        result.columnarWall(),
                        rows,
                        1));
    }

    /** CPU time of the building thread per build, and wall time per build. */
    record Result(
            List<Long> rowWise,
            List<Long> columnar,
            List<Long> rowWiseWall,
            List<Long> columnarWall,
            double bytesPerKey) {}

    private Result measure(int rows, int files, int repetitions, int warmUps) {
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withMaxBufferedBytes(1L << 30)
                        .withTargetFileSizeBytes(1L << 30)
                        .withCompaction(CompactionOptions.DISABLED);
        Random random = new Random(17);
        try (UpsertHarness harness =
                UpsertHarness.open(dir.resolve("orders").toString(), ORDERS, options)) {
            int perFile = rows / files;
            for (int file = 0; file < files; file++) {
                for (int i = file * perFile; i < (file + 1) * perFile; i++) {
                    harness.upsert(i * 0x9E3779B97F4A7C15L, random.nextLong(), "note " + i);
                }
                harness.commit();
            }
            List<DataFile> live = new ArrayList<>();
            harness.table().latestSnapshot().allLiveFiles().values().forEach(live::addAll);
            assertThat(live).hasSize(files);
            DataFileStore columnar = harness.table().files();
            DataFileStore rowWise = new DefaultPathsStore(columnar);
            List<ValueType> keyTypes = List.of(ValueType.of(Kind.BIGINT));
            List<Long> rowWiseCpu = new ArrayList<>();
            List<Long> columnarCpu = new ArrayList<>();
            List<Long> rowWiseWall = new ArrayList<>();
            List<Long> columnarWall = new ArrayList<>();
            double bytesPerKey = 0;
            for (int round = 0; round < warmUps + repetitions; round++) {
                for (DataFileStore store : List.of(rowWise, columnar)) {
                    PartitionKeyIndex index =
                            new PartitionKeyIndex(store, new ParallelFileWork(null), keyTypes);
                    long start = THREADS.getCurrentThreadCpuTime();
                    long wallStart = System.nanoTime();
                    PartitionKeyIndex.Followed followed = index.follow(live);
                    long cpu = THREADS.getCurrentThreadCpuTime() - start;
                    long wall = System.nanoTime() - wallStart;
                    assertThat(followed.rowsRead()).isEqualTo((long) perFile * files);
                    assertThat(index.keys()).isEqualTo(perFile * files);
                    bytesPerKey = (double) index.memoryBytes() / index.keys();
                    if (round >= warmUps) {
                        (store == columnar ? columnarCpu : rowWiseCpu).add(cpu);
                        (store == columnar ? columnarWall : rowWiseWall).add(wall);
                    }
                }
            }
            return new Result(rowWiseCpu, columnarCpu, rowWiseWall, columnarWall, bytesPerKey);
        }
    }
}
