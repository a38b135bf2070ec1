package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.KeyIdentitySink;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.testing.Benchmark;
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
 * How fast the key index reads a file's keys when it builds (bootstrap, or files another writer
 * added): every key's identity and physical position, once through Kernel's row-wise reader
 * (before) and once through the column reader (after), runs alternating, on one thread, in keys per
 * CPU-second. Only the read — the index's table inserts are measured by {@code KeyIndexBenchmark}.
 * BENCHMARKS.md §13:
 *
 * <pre>
 * mvn -B -ntp -o -pl connector/core test -Dtest='KeyIndexReadBenchmark#keysPerSecond*' \
 *     -Dsurefire.excludedGroups= -Dtest.jvm.jit= [-Dbench.key=bigint|string|string+bigint] \
 *     [-Dbench.rows=5000000] [-Dbench.files=8] [-Dbench.repetitions=5]
 * </pre>
 */
class KeyIndexReadBenchmark {
    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    @TempDir Path dir;

    /** A tiny run, to check the harness works; its numbers mean nothing. */
    @Test
    void aTinyRunReadsBothWays() {
        for (String key : List.of("bigint", "string", "string+bigint")) {
            Result result = measure(key, 20_000, 2, 1, 0);
            assertThat(result.rowWise()).hasSize(1);
            assertThat(result.columnar()).hasSize(1);
        }
    }

    @Test
    @Benchmark
    void keysPerSecondOfTheIndexReadBeforeAndAfter() {
        String key = System.getProperty("bench.key", "bigint");
        int rows = Integer.getInteger("bench.rows", 5_000_000);
        int files = Integer.getInteger("bench.files", 8);
        int repetitions = Integer.getInteger("bench.repetitions", 5);
        Result result = measure(key, rows, files, repetitions, 2);
        System.out.printf(
                "%n### Index read speed: %,d keys (%s) in %d files, %d runs, one thread%n%n"
                        + "| reader | M keys per CPU-second (min / median / max) | CPU ms per pass"
                        + " | wall ms per pass |%n| --- | --- | --- | --- |%n%s%s",
                rows,
                key,
                files,
                repetitions,
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

    /** CPU time of the reading thread per pass, and wall time per pass. */
    record Result(
            List<Long> rowWise,
            List<Long> columnar,
            List<Long> rowWiseWall,
            List<Long> columnarWall) {}

    private Result measure(String key, int rows, int files, int repetitions, int warmUps) {
        List<ValueType> keyTypes =
                switch (key) {
                    case "bigint" -> List.of(ValueType.of(Kind.BIGINT));
                    case "string" -> List.of(ValueType.of(Kind.STRING));
                    case "string+bigint" ->
                            List.of(ValueType.of(Kind.STRING), ValueType.of(Kind.BIGINT));
                    default -> throw new IllegalArgumentException("bench.key: " + key);
                };
        List<ValueType.Field> columns = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int c = 0; c < keyTypes.size(); c++) {
            columns.add(new ValueType.Field("k" + c, keyTypes.get(c), false));
            names.add("k" + c);
        }
        columns.add(new ValueType.Field("amount", ValueType.of(Kind.BIGINT), true));
        columns.add(new ValueType.Field("note", ValueType.of(Kind.STRING), true));
        TableDefinition definition = new TableDefinition(columns, names, List.of(), Map.of());
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withMaxBufferedBytes(1L << 30)
                        .withTargetFileSizeBytes(1L << 30)
                        .withCompaction(CompactionOptions.DISABLED);
        Random random = new Random(17);
        try (UpsertHarness harness =
                UpsertHarness.open(dir.resolve(key).toString(), definition, options)) {
            int perFile = rows / files;
            Object[] row = new Object[keyTypes.size() + 2];
            for (int file = 0; file < files; file++) {
                for (int i = file * perFile; i < (file + 1) * perFile; i++) {
                    long id = i * 0x9E3779B97F4A7C15L;
                    switch (key) {
                        case "bigint" -> row[0] = id;
                        case "string" -> row[0] = "customer-" + Long.toHexString(id);
                        default -> {
                            // A tenant of ten, and an id: the tenant column is dictionary-encoded.
                            row[0] = "tenant-" + (i % 10);
                            row[1] = id;
                        }
                    }
                    row[keyTypes.size()] = random.nextLong();
                    row[keyTypes.size() + 1] = "note " + i;
                    harness.upsert(row.clone());
                }
                harness.commit();
            }
            DeltaTable table = harness.table();
            List<DataFile> live = new ArrayList<>();
            table.latestSnapshot().allLiveFiles().values().forEach(live::addAll);
            assertThat(live).hasSize(files);
            KernelFileStore store = table.kernelFiles();
            List<Long> rowWise = new ArrayList<>();
            List<Long> columnar = new ArrayList<>();
            List<Long> rowWiseWall = new ArrayList<>();
            List<Long> columnarWall = new ArrayList<>();
            long expected = 0;
            for (int round = 0; round < warmUps + repetitions; round++) {
                for (boolean column : new boolean[] {false, true}) {
                    Checksum sum = new Checksum();
                    long start = THREADS.getCurrentThreadCpuTime();
                    long wallStart = System.nanoTime();
                    long read = 0;
                    for (DataFile file : live) {
                        read +=
                                column
                                        ? store.readKeyIdentities(file, keyTypes, sum)
                                        : store.readKeyIdentitiesRowWise(file, keyTypes, sum);
                    }
                    long cpu = THREADS.getCurrentThreadCpuTime() - start;
                    long wall = System.nanoTime() - wallStart;
                    assertThat(read).isEqualTo((long) perFile * files);
                    assertThat(sum.count).isEqualTo((long) perFile * files);
                    assertThat(expected == 0 || expected == sum.value)
                            .as("both readers give the same identities")
                            .isTrue();
                    expected = sum.value;
                    if (round >= warmUps) {
                        (column ? columnar : rowWise).add(cpu);
                        (column ? columnarWall : rowWiseWall).add(wall);
                    }
                }
            }
            return new Result(rowWise, columnar, rowWiseWall, columnarWall);
        }
    }

    /** An order-dependent sum of what a reader handed over, so that nothing is optimised away. */
    private static final class Checksum implements KeyIdentitySink {
        long value = 1;
        long count;

        @Override
        public void accept(long[] high, long[] low, long[] positions, int n) {
            for (int i = 0; i < n; i++) {
                value = value * 31 + (high[i] ^ Long.rotateLeft(low[i], 17) ^ positions[i]);
            }
            count += n;
        }
    }
}
