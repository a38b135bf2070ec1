package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.fileio.ParquetInputFiles;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.ChangedKeys;
import io.deltalite.flink.internal.merge.table.KeyHits;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.parquet.ParquetKeyScanner;
import io.deltalite.flink.testing.Benchmark;
import io.deltalite.flink.testing.Spread;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exact probe's decoding speed, in keys per second on one core: every key of a table of {@code
 * BIGINT} keys in several files is tested against a set of changed keys (as a deletion-vector merge
 * does: all hits, no early stop), once through Kernel's row-wise reader (before) and once through
 * the columnar reader (after), runs alternating, on one thread. BENCHMARKS.md §12:
 *
 * <pre>
 * mvn -B -ntp -pl connector/core test -Dtest=KeyProbeBenchmark -Dsurefire.excludedGroups= -Dtest.jvm.jit= \
 *     [-Dbench.rows=5000000] [-Dbench.files=8] [-Dbench.changes=100000] [-Dbench.repetitions=5]
 * </pre>
 */
class KeyProbeBenchmark {
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

    /**
     * A tiny run, to check the harness works ({@code -Dtest='KeyProbeBenchmark#aTinyRun*'}); its
     * numbers mean nothing.
     */
    @Test
    void aTinyRunProbesBothWays() {
        Result result = measure(20_000, 2, 1_000, 1, 0);
        assertThat(result.rowWise()).hasSize(1);
        assertThat(result.columnReader()).hasSize(1);
        assertThat(result.pages()).hasSize(1);
    }

    @Test
    @Benchmark
    void keysPerSecondOfTheProbeBeforeAndAfter() {
        int rows = Integer.getInteger("bench.rows", 5_000_000);
        int files = Integer.getInteger("bench.files", 8);
        int changes = Integer.getInteger("bench.changes", 100_000);
        int repetitions = Integer.getInteger("bench.repetitions", 5);
        Result result = measure(rows, files, changes, repetitions, 2);
        System.out.printf(
                "%n### Probe speed: %,d BIGINT keys in %d files, %,d changed keys, %d runs, one"
                        + " thread%n%n| reader | M keys per CPU-second (min / median / max) | CPU ms"
                        + " per pass | wall ms per pass |%n| --- | --- | --- | --- |%n%s%s%s",
                rows,
                files,
                changes,
                repetitions,
                Spread.row(
                        "Kernel, row-wise (before)",
                        result.rowWise(),
                        result.rowWiseWall(),
                        rows,
                        1),
                Spread.row(
                        "parquet-java column reader",
                        result.columnReader(),
                        result.columnReaderWall(),
                        rows,
                        1),
                Spread.row(
                        "pages decoded by deltalite (after)",
                        result.pages(),
                        result.pagesWall(),
                        rows,
                        1));
    }

    /** CPU time of the probing thread per pass, and wall time per pass. */
    record Result(
            List<Long> rowWise,
            List<Long> columnReader,
            List<Long> pages,
            List<Long> rowWiseWall,
            List<Long> columnReaderWall,
            List<Long> pagesWall) {}

    private enum Reader {
        ROW_WISE,
        COLUMN_READER,
        PAGES
    }

    private Result measure(int rows, int files, int changes, int repetitions, int warmUps) {
        String location = dir.resolve("orders").toString();
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withMaxBufferedBytes(1L << 30)
                        .withTargetFileSizeBytes(1L << 30)
                        .withCompaction(CompactionOptions.DISABLED);
        Random random = new Random(17);
        try (UpsertHarness harness = UpsertHarness.open(location, ORDERS, options)) {
            // One commit per file; ids spread over the whole long range, so every file's
            // statistics span every changed key.
            int perFile = rows / files;
            for (int file = 0; file < files; file++) {
                for (int i = file * perFile; i < (file + 1) * perFile; i++) {
                    harness.upsert(id(i), random.nextLong(), "note " + i);
                }
                harness.commit();
            }
            DeltaTable table = harness.table();
            List<DataFile> live = new ArrayList<>();
            table.latestSnapshot().allLiveFiles().values().forEach(live::addAll);
            assertThat(live).hasSize(files);
            // Half the changed keys are in the table, half are not.
            Set<RowKey> keys = new HashSet<>();
            while (keys.size() < changes) {
                keys.add(
                        RowKey.ofValues(
                                keys.size() % 2 == 0
                                        ? id(random.nextInt(perFile * files))
                                        : id(rows + random.nextInt(Integer.MAX_VALUE - rows))));
            }
            Map<Reader, List<Long>> nanos = new java.util.EnumMap<>(Reader.class);
            Map<Reader, List<Long>> wallNanos = new java.util.EnumMap<>(Reader.class);
            long expectedHits = -1;
            for (int round = 0; round < warmUps + repetitions; round++) {
                for (Reader reader : Reader.values()) {
                    // A fresh key set per pass: the columnar readers' key tables are built in it.
                    ChangedKeys changed = ChangedKeys.of(keys);
                    long start = THREADS.getCurrentThreadCpuTime();
                    long wallStart = System.nanoTime();
                    long hits = pass(live, changed, table, reader);
                    long elapsed = THREADS.getCurrentThreadCpuTime() - start;
                    long wall = System.nanoTime() - wallStart;
                    assertThat(expectedHits == -1 || expectedHits == hits).isTrue();
                    expectedHits = hits;
                    if (round >= warmUps) {
                        nanos.computeIfAbsent(reader, r -> new ArrayList<>()).add(elapsed);
                        wallNanos.computeIfAbsent(reader, r -> new ArrayList<>()).add(wall);
                    }
                }
            }
            assertThat(expectedHits).isEqualTo(changes / 2);
            return new Result(
                    nanos.get(Reader.ROW_WISE),
                    nanos.get(Reader.COLUMN_READER),
                    nanos.get(Reader.PAGES),
                    wallNanos.get(Reader.ROW_WISE),
                    wallNanos.get(Reader.COLUMN_READER),
                    wallNanos.get(Reader.PAGES));
        }
    }

    private static long pass(
            List<DataFile> files, ChangedKeys keys, DeltaTable table, Reader reader) {
        KernelFileStore store = table.kernelFiles();
        ParquetKeyScanner columnReader =
                new ParquetKeyScanner(List.of("id"), List.of(ValueType.of(Kind.BIGINT)), false);
        long hits = 0;
        for (DataFile file : files) {
            KeyHits located =
                    switch (reader) {
                        case ROW_WISE -> store.locateKeysRowWise(file, keys, false);
                        case PAGES -> store.locateKeys(file, keys, false);
                        case COLUMN_READER -> {
                            try {
                                yield columnReader
                                        .locate(
                                                ParquetInputFiles.open(
                                                        table.fileIO(),
                                                        file.path(),
                                                        file.sizeBytes()),
                                                keys,
                                                store.readDeletionVector(file),
                                                false)
                                        .orElseThrow();
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        }
                    };
            hits += located.positions().length;
        }
        return hits;
    }

    /** Distinct ids spread over the long range (an odd multiplier is a bijection). */
    private static long id(long i) {
        return i * 0x9E3779B97F4A7C15L;
    }
}
