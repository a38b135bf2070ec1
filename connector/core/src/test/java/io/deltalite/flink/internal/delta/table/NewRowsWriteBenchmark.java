package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.testing.Benchmark;
import io.deltalite.flink.testing.Spread;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What writing a checkpoint's new rows costs: the rows of the side-by-side benchmark's CDC table
 * ({@code id BIGINT, day STRING, amount BIGINT, note STRING}, 24-letter notes), sorted by key as a
 * merge writes them, into one data file with the default codec, written by deltalite from the rows
 * ({@link RowParquetWriter}) and by Kernel's Parquet writer from column vectors of them, runs
 * alternating; CPU of the writing thread, the statistics read back from the footer included.
 * BENCHMARKS.md §11p:
 *
 * <pre>
 * mvn -B -ntp -o -pl connector/core test -Dtest='NewRowsWriteBenchmark#cpu*' \
 *     -Dsurefire.excludedGroups= -Dtest.jvm.jit= [-Dbench.rows=450000] [-Dbench.repetitions=7]
 * </pre>
 */
class NewRowsWriteBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final TableDefinition CDC =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(Kind.BIGINT), true),
                            new ValueType.Field("note", ValueType.of(Kind.STRING), true)),
                    List.of("id"),
                    List.of(),
                    Map.of());

    @TempDir Path dir;

    @Test
    @Benchmark
    void cpuOfWritingACheckpointsNewRows() {
        int size = Integer.getInteger("bench.rows", 450_000);
        int repetitions = Integer.getInteger("bench.repetitions", 7);
        List<Object[]> rows = rows(size);
        DataFileStore store =
                DeltaTable.open(
                                dir.toString(),
                                Map.of(),
                                MergeOptions.DEFAULTS.withCompression(
                                        io.deltalite.flink.sink.ParquetCompression.valueOf(
                                                System.getProperty("bench.codec", "ZSTD"))),
                                CDC,
                                true)
                        .files();
        List<Long> kernel = new ArrayList<>();
        List<Long> kernelWall = new ArrayList<>();
        List<Long> ours = new ArrayList<>();
        List<Long> oursWall = new ArrayList<>();
        long kernelBytes = 0;
        long oursBytes = 0;
        for (int round = 0; round < repetitions + 2; round++) {
            long cpu = THREADS.getCurrentThreadCpuTime();
            long wall = System.nanoTime();
            List<DataFile> byKernel = RowParquetWriterTest.writtenByKernel(store, rows);
            long kernelCpu = THREADS.getCurrentThreadCpuTime() - cpu;
            long kernelNanos = System.nanoTime() - wall;
            cpu = THREADS.getCurrentThreadCpuTime();
            wall = System.nanoTime();
            List<DataFile> byDeltalite =
                    store.writeNew(
                            PartitionValues.UNPARTITIONED,
                            rows,
                            null,
                            MergeOptions.DEFAULTS.readBatchSize(),
                            null);
            long oursCpu = THREADS.getCurrentThreadCpuTime() - cpu;
            long oursNanos = System.nanoTime() - wall;
            assertThat(byDeltalite.get(0).logStatistics())
                    .isEqualTo(byKernel.get(0).logStatistics());
            kernelBytes = byKernel.get(0).sizeBytes();
            oursBytes = byDeltalite.get(0).sizeBytes();
            byKernel.forEach(store::deleteUncommitted);
            byDeltalite.forEach(store::deleteUncommitted);
            if (round >= 2) {
                kernel.add(kernelCpu);
                kernelWall.add(kernelNanos);
                ours.add(oursCpu);
                oursWall.add(oursNanos);
            }
        }
        System.out.printf(
                "%n### Writing %,d new rows of the CDC table into a data file, %d runs, one"
                        + " thread%n%n| writer | M rows per CPU-second (min / median / max) | CPU"
                        + " ms per write | wall ms per write |%n| --- | --- | --- | --- |%n%s%s",
                size,
                repetitions,
                Spread.row("Kernel's, from column vectors (before)", kernel, kernelWall, size, 2),
                Spread.row("deltalite's, from the rows (after)", ours, oursWall, size, 2));
        System.out.printf(
                "%nFile bytes: Kernel's %,d, deltalite's %,d (codec %s)%n",
                kernelBytes, oursBytes, System.getProperty("bench.codec", "ZSTD"));
    }

    /**
     * The CDC table's rows, made in the order of their random keys' arrival and then sorted by key
     * as a merge sorts them: written in key order, they lie scattered in memory as in a checkpoint.
     */
    private static List<Object[]> rows(int size) {
        SplittableRandom random = new SplittableRandom(11);
        List<Object[]> rows = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            long id = random.nextLong(50_000_000L);
            char[] note = new char[24];
            for (int c = 0; c < note.length; c++) {
                note[c] = (char) ('a' + random.nextInt(26));
            }
            rows.add(
                    new Object[] {
                        id, "d" + id % 16, random.nextLong(1_000_000_000L), new String(note)
                    });
        }
        rows.sort(java.util.Comparator.comparingLong(row -> (Long) row[0]));
        return rows;
    }
}
