package io.deltalite.flink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.index.KeyIndex;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Benchmark;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a checkpoint of scattered updates costs with and without the key index (issue 31): a table
 * of {@code bench.rows} rows in files of {@code bench.file-mb} MiB, then {@code bench.checkpoints}
 * checkpoints of {@code bench.updates} updates of uniformly random ids each, in one warm JVM, on
 * copies of the same table, with deletion vectors. Reports per-checkpoint wall time
 * (min/median/max), the index's first build (rows/s) and its memory per key. Not part of the
 * default build:
 *
 * <pre>
 * mvn -B -ntp -pl connector/core test -Dtest=KeyIndexBenchmark -Dsurefire.excludedGroups= -Dtest.jvm.jit= \
 *     [-Dbench.rows=5000000] [-Dbench.updates=10000] [-Dbench.checkpoints=10] [-Dbench.file-mb=32] \
 *     [-Dbench.partitions=1] [-Dbench.modes=off,on] [-Dbench.row-tracking=false]
 * </pre>
 *
 * With {@code bench.partitions} N above 1 the table has a fourth column {@code bucket INT = id % N}
 * and is partitioned by it, so that each partition's index is charged on its own against the budget
 * (a partition whose index would pass it is refused and probed: the report counts those fallbacks).
 * With {@code bench.row-tracking} the table tracks rows ({@code delta.enableRowTracking}): each
 * checkpoint also reads the ids of the rows its updates replace.
 */
class KeyIndexBenchmark {
    private static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field(
                                    "amount", ValueType.of(ValueType.Kind.BIGINT), true),
                            new ValueType.Field("note", ValueType.of(ValueType.Kind.STRING), true)),
                    List.of("id"),
                    List.of(),
                    Map.of("delta.enableDeletionVectors", "true"));

    private static TableDefinition bucketed() {
        List<ValueType.Field> fields = new ArrayList<>(ORDERS.columns());
        fields.add(new ValueType.Field("bucket", ValueType.of(ValueType.Kind.INT), false));
        return new TableDefinition(
                fields, List.of("id"), List.of("bucket"), ORDERS.tableProperties());
    }

    @TempDir Path dir;

    /** A tiny run in every build, so that the benchmark keeps working. */
    @Test
    void aTinyRunMeasuresBothWays() throws IOException {
        Map<KeyIndexMode, Result> results =
                measure(20_000, 500, 3, 1, 1, List.of(KeyIndexMode.OFF, KeyIndexMode.ON));
        assertThat(results.get(KeyIndexMode.ON).index().hits()).isPositive();
        assertThat(results.get(KeyIndexMode.OFF).index()).isNull();
    }

    @Test
    @Benchmark
    void scatteredUpdatesWithAndWithoutTheIndex() throws IOException {
        int rows = Integer.getInteger("bench.rows", 5_000_000);
        int updates = Integer.getInteger("bench.updates", 10_000);
        int checkpoints = Integer.getInteger("bench.checkpoints", 10);
        int fileMb = Integer.getInteger("bench.file-mb", 32);
        int partitions = Integer.getInteger("bench.partitions", 1);
        List<KeyIndexMode> modes = new ArrayList<>();
        for (String mode : System.getProperty("bench.modes", "off,on").split(",")) {
            modes.add(KeyIndexMode.valueOf(mode.trim().toUpperCase(java.util.Locale.ROOT)));
        }
        Map<KeyIndexMode, Result> results =
                measure(rows, updates, checkpoints, fileMb, partitions, modes);
        StringBuilder report = new StringBuilder();
        report.append(
                String.format(
                        "%n%,d rows, %d checkpoints of %,d updates of random ids, deletion"
                                + " vectors, files of %d MiB, %d partition(s), row tracking %s,"
                                + " heap %,d MiB%n%n",
                        rows,
                        checkpoints,
                        updates,
                        fileMb,
                        partitions,
                        Boolean.getBoolean("bench.row-tracking") ? "on" : "off",
                        Runtime.getRuntime().maxMemory() >> 20));
        report.append(
                "| key index | checkpoint ms (min / median / max) | first checkpoint ms |"
                        + " index bytes per key | first build rows/s | keys indexed |"
                        + " index MiB | partitions refused (fallbacks) |\n"
                        + "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Map.Entry<KeyIndexMode, Result> entry : results.entrySet()) {
            Result result = entry.getValue();
            KeyIndex.Stats index = result.index();
            report.append(
                    String.format(
                            "| %s | %s | %,d | %s | %s | %s | %s | %s |%n",
                            entry.getKey(),
                            stat(result.checkpointMillis()),
                            result.firstMillis(),
                            index == null
                                    ? "–"
                                    : String.format(
                                            "%.1f",
                                            (double) index.memoryBytes()
                                                    / Math.max(1, index.keys())),
                            index == null || index.readMillis() == 0
                                    ? "–"
                                    : String.format(
                                            "%,d", index.rowsRead() * 1000 / index.readMillis()),
                            index == null ? "–" : String.format("%,d", index.keys()),
                            index == null ? "–" : String.valueOf(index.memoryBytes() >> 20),
                            index == null ? "–" : String.valueOf(index.fallbacks())));
        }
        System.out.println(report);
    }

    record Result(long firstMillis, List<Long> checkpointMillis, KeyIndex.Stats index) {}

    private Map<KeyIndexMode, Result> measure(
            int rows,
            int updates,
            int checkpoints,
            int fileMb,
            int partitions,
            List<KeyIndexMode> modes)
            throws IOException {
        TableDefinition definition = partitions > 1 ? bucketed() : ORDERS;
        if (Boolean.getBoolean("bench.row-tracking")) {
            definition = definition.withTableProperty("delta.enableRowTracking", "true");
        }
        Path seed = dir.resolve("seed");
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.DELETION_VECTORS)
                        .withMaxBufferedBytes(1L << 30)
                        .withTargetFileSizeBytes((long) fileMb << 20)
                        .withCompaction(CompactionOptions.DISABLED);
        try (UpsertHarness harness = UpsertHarness.open(seed.toString(), definition, options)) {
            Random random = new Random(1);
            for (long id = 0; id < rows; id++) {
                upsert(harness, partitions, id, random.nextLong(), "note-" + (id % 977));
                if ((id + 1) % (1_000_000L * partitions) == 0) {
                    harness.commit();
                }
            }
            harness.commit();
        }
        Map<KeyIndexMode, Result> results = new java.util.EnumMap<>(KeyIndexMode.class);
        for (KeyIndexMode mode : modes) {
            Path copy = dir.resolve(mode.name());
            copyTree(seed, copy);
            MergeOptions indexed = options.withKeyIndex(new KeyIndexOptions(mode, 4L << 30, false));
            try (UpsertHarness harness =
                    UpsertHarness.open(copy.toString(), definition, indexed, "bench")) {
                Random random = new Random(2);
                long first = timed(harness, random, rows, updates, partitions);
                List<Long> millis = new ArrayList<>();
                for (int checkpoint = 0; checkpoint < checkpoints; checkpoint++) {
                    millis.add(timed(harness, random, rows, updates, partitions));
                }
                KeyIndex index = harness.writer().keyIndex();
                results.put(mode, new Result(first, millis, index == null ? null : index.stats()));
            }
        }
        return results;
    }

    private static void upsert(
            UpsertHarness harness, int partitions, long id, long amount, String note) {
        if (partitions > 1) {
            harness.upsert(id, amount, note, (int) (id % partitions));
        } else {
            harness.upsert(id, amount, note);
        }
    }

    private static long timed(
            UpsertHarness harness, Random random, int rows, int updates, int partitions) {
        long start = System.nanoTime();
        for (int i = 0; i < updates; i++) {
            upsert(harness, partitions, random.nextInt(rows), random.nextLong(), "updated");
        }
        harness.commit();
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static String stat(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return String.format(
                "%,d / %,d / %,d",
                sorted.get(0), sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
