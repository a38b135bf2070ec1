package io.deltalite.flink.internal.merge.value;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.testing.Benchmark;
import io.deltalite.flink.testing.Spread;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What sorting a checkpoint's new rows by key costs: the rows of the side-by-side benchmark's CDC
 * table ({@code BIGINT} id, random), sorted as {@link RowOrder#sort} sorts them (one integral key:
 * primitive longs) and as every table's rows were sorted before (pairs of key and row through the
 * key comparator, the way {@link RowOrder#sort} still sorts other keys), runs alternating; CPU of
 * the sorting thread. BENCHMARKS.md §11f:
 *
 * <pre>
 * mvn -B -ntp -o -pl connector/core test -Dtest='RowOrderSortBenchmark#cpu*' \
 *     -Dsurefire.excludedGroups= -Dtest.jvm.jit= [-Dbench.rows=500000] [-Dbench.repetitions=7]
 * </pre>
 */
class RowOrderSortBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final TableSchema CDC =
            new TableSchema(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(Kind.BIGINT), true),
                            new ValueType.Field("note", ValueType.of(Kind.STRING), true)),
                    List.of("id"),
                    List.of());

    private static final int[] KEY = {0};

    @Test
    void bothSortsGiveTheSameOrder() {
        List<Object[]> rows = rows(5_000);
        assertThat(RowOrder.of(CDC, List.of()).sort(rows, KEY))
                .containsExactlyElementsOf(comparatorSort(rows));
    }

    @Test
    @Benchmark
    void cpuOfSortingACheckpointsNewRows() {
        int size = Integer.getInteger("bench.rows", 500_000);
        int repetitions = Integer.getInteger("bench.repetitions", 7);
        RowOrder order = RowOrder.of(CDC, List.of());
        List<Object[]> rows = rows(size);
        List<Long> comparator = new ArrayList<>();
        List<Long> primitive = new ArrayList<>();
        List<Long> comparatorWall = new ArrayList<>();
        List<Long> primitiveWall = new ArrayList<>();
        for (int round = 0; round < repetitions + 2; round++) {
            long cpu = THREADS.getCurrentThreadCpuTime();
            long wall = System.nanoTime();
            List<Object[]> before = comparatorSort(rows);
            long beforeCpu = THREADS.getCurrentThreadCpuTime() - cpu;
            long beforeWall = System.nanoTime() - wall;
            cpu = THREADS.getCurrentThreadCpuTime();
            wall = System.nanoTime();
            List<Object[]> after = order.sort(rows, KEY);
            long afterCpu = THREADS.getCurrentThreadCpuTime() - cpu;
            long afterWall = System.nanoTime() - wall;
            assertThat(after.get(size / 2)).isSameAs(before.get(size / 2));
            if (round >= 2) {
                comparator.add(beforeCpu);
                comparatorWall.add(beforeWall);
                primitive.add(afterCpu);
                primitiveWall.add(afterWall);
            }
        }
        System.out.printf(
                "%n### Sorting %,d new rows by a BIGINT key, %d runs, one thread%n%n"
                        + "| sort | M rows per CPU-second (min / median / max) | CPU ms per sort"
                        + " | wall ms per sort |%n| --- | --- | --- | --- |%n%s%s",
                size,
                repetitions,
                Spread.row(
                        "key and row pairs, key comparator (before)",
                        comparator,
                        comparatorWall,
                        size,
                        2),
                Spread.row("primitive longs, radix (after)", primitive, primitiveWall, size, 2));
    }

    private static List<Object[]> rows(int size) {
        Random random = new Random(3);
        List<Object[]> rows = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            rows.add(
                    new Object[] {
                        (long) random.nextInt(Integer.MAX_VALUE),
                        "2024-06-" + (10 + random.nextInt(20)),
                        random.nextLong(),
                        "note " + i
                    });
        }
        return rows;
    }

    /** How {@code PartitionMerger} sorted a checkpoint's new rows before {@link RowOrder#sort}. */
    private static List<Object[]> comparatorSort(List<Object[]> rows) {
        Comparator<RowKey> keys = KeyOrder.keys(CDC.matchKeyTypes());
        List<Map.Entry<RowKey, Object[]>> entries = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            entries.add(new AbstractMap.SimpleImmutableEntry<>(RowKey.of(row, KEY), row));
        }
        entries.sort((left, right) -> keys.compare(left.getKey(), right.getKey()));
        List<Object[]> sorted = new ArrayList<>(rows.size());
        entries.forEach(entry -> sorted.add(entry.getValue()));
        return sorted;
    }
}
