package io.deltalite.flink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.ParquetCompression;
import io.deltalite.flink.testing.Benchmark;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 9 of BENCHMARKS.md: the same rows written with each Parquet codec — bytes per row, write
 * time, full-scan time, and the time of a copy-on-write merge of scattered corrections. Runs of the
 * codecs alternate, in one JVM, after a warm-up round. Not part of the default build:
 *
 * <pre>
 * mvn -B -ntp -pl connector test -Dtest=CodecBenchmark -Dsurefire.excludedGroups= -Dtest.jvm.jit= \
 *     [-Dbench.rows=1000000] [-Dbench.repetitions=3]
 * </pre>
 */
class CodecBenchmark {
    static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field(
                                    "region", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field(
                                    "amount", ValueType.of(ValueType.Kind.BIGINT), true),
                            new ValueType.Field("note", ValueType.of(ValueType.Kind.STRING), true)),
                    List.of("id"),
                    List.of(),
                    Map.of());

    private static final String[] REGIONS = {
        "eu-west", "eu-central", "us-east", "us-west", "ap-south", "ap-east", "sa-east", "af-south"
    };

    @TempDir Path dir;

    /** A tiny run in every build, so the benchmark keeps working. */
    @Test
    void aTinyRunMeasuresEveryCodec() throws IOException {
        Map<ParquetCompression, List<Run>> runs = measure(5_000, 1, 0);
        assertThat(runs).hasSize(ParquetCompression.values().length);
        runs.values().forEach(r -> assertThat(r.get(0).bytes()).isPositive());
    }

    @Test
    @Benchmark
    void everyCodecOnTheSameRows() throws IOException {
        int rows = Integer.getInteger("bench.rows", 1_000_000);
        int repetitions = Integer.getInteger("bench.repetitions", 3);
        Map<ParquetCompression, List<Run>> runs = measure(rows, repetitions, 1);
        StringBuilder report = new StringBuilder();
        report.append(
                String.format(
                        "%n### 9. Parquet codecs (%,d rows, %d runs each)%n%n", rows, repetitions));
        report.append(
                "| codec | bytes/row | MiB | write ms | full scan ms | merge of 5,000 scattered"
                        + " corrections ms |\n| --- | --- | --- | --- | --- | --- |\n");
        for (Map.Entry<ParquetCompression, List<Run>> entry : runs.entrySet()) {
            List<Run> r = entry.getValue();
            Run first = r.get(0);
            report.append(
                    String.format(
                            "| %s | %.1f | %.1f | %s | %s | %s |%n",
                            entry.getKey(),
                            (double) first.bytes() / rows,
                            first.bytes() / 1048576.0,
                            stat(r, Run::writeMillis),
                            stat(r, Run::scanMillis),
                            stat(r, Run::mergeMillis)));
        }
        System.out.println(report);
    }

    record Run(long bytes, long writeMillis, long scanMillis, long mergeMillis) {}

    private Map<ParquetCompression, List<Run>> measure(int rows, int repetitions, int warmUps)
            throws IOException {
        List<Object[]> table = rows(rows, 7);
        List<Object[]> corrections = corrections(rows, Math.min(5_000, rows / 10), 11);
        Map<ParquetCompression, List<Run>> runs = new EnumMap<>(ParquetCompression.class);
        for (int round = 0; round < warmUps + repetitions; round++) {
            for (ParquetCompression codec : ParquetCompression.values()) {
                Run run = once(codec, table, corrections, round);
                if (round >= warmUps) {
                    runs.computeIfAbsent(codec, c -> new ArrayList<>()).add(run);
                }
            }
        }
        return runs;
    }

    private Run once(
            ParquetCompression codec, List<Object[]> rows, List<Object[]> corrections, int round)
            throws IOException {
        Path location = dir.resolve(codec + "-" + round);
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withCompression(codec)
                        .withMaxBufferedBytes(1L << 30)
                        .withTargetFileSizeBytes(16L << 20)
                        .withCompaction(CompactionOptions.DISABLED);
        long writeMillis;
        try (UpsertHarness harness = UpsertHarness.open(location.toString(), ORDERS, options)) {
            long start = System.nanoTime();
            rows.forEach(harness::upsert);
            harness.commit();
            writeMillis = (System.nanoTime() - start) / 1_000_000;
        }
        long bytes = dataFileBytes(location);
        long scanMillis;
        long mergeMillis;
        try (UpsertHarness harness =
                UpsertHarness.open(location.toString(), ORDERS, options, "merge")) {
            long start = System.nanoTime();
            int read = harness.read().size();
            scanMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(read).isEqualTo(rows.size());
            start = System.nanoTime();
            corrections.forEach(harness::upsert);
            harness.commit();
            mergeMillis = (System.nanoTime() - start) / 1_000_000;
        }
        deleteTree(location);
        return new Run(bytes, writeMillis, scanMillis, mergeMillis);
    }

    /** Order-like rows: increasing ids, a region of eight, an amount, a note of 24 letters. */
    static List<Object[]> rows(int count, long seed) {
        Random random = new Random(seed);
        List<Object[]> rows = new ArrayList<>(count);
        for (long id = 0; id < count; id++) {
            rows.add(
                    new Object[] {
                        id,
                        REGIONS[random.nextInt(REGIONS.length)],
                        (long) random.nextInt(1_000_000),
                        letters(random, 24)
                    });
        }
        return rows;
    }

    private static List<Object[]> corrections(int rows, int count, long seed) {
        Random random = new Random(seed);
        List<Object[]> corrections = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            corrections.add(
                    new Object[] {
                        (long) random.nextInt(rows),
                        REGIONS[random.nextInt(REGIONS.length)],
                        -1L - random.nextInt(1_000),
                        letters(random, 24)
                    });
        }
        return corrections;
    }

    private static String letters(Random random, int length) {
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(chars);
    }

    private static long dataFileBytes(Path table) throws IOException {
        try (Stream<Path> files = Files.walk(table)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".parquet"))
                    .filter(f -> !f.toString().contains("_delta_log"))
                    .mapToLong(
                            f -> {
                                try {
                                    return Files.size(f);
                                } catch (IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            })
                    .sum();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    private static String stat(List<Run> runs, java.util.function.ToLongFunction<Run> metric) {
        long[] values = runs.stream().mapToLong(metric).sorted().toArray();
        return String.format(
                "%,d / %,d / %,d", values[0], values[values.length / 2], values[values.length - 1]);
    }
}
