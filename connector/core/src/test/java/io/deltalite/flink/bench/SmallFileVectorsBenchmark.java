package io.deltalite.flink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Benchmark;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a checkpoint of scattered updates costs in deletion-vector mode where every file is small
 * (issue 31, item 4): the stream of the sustained benchmark — per checkpoint {@code bench.records}
 * records, even ones inserting the next new key, odd ones updating a uniformly random earlier key,
 * 4 partitions ({@code id % 4}) — into a table that starts empty ("young") and into one seeded with
 * {@code bench.seed-rows} rows ("grown"), the sink's defaults otherwise (so compaction is on and
 * every file below 8 MiB is small). Reports per table and fifth of the run: bytes written,
 * unchanged rows copied, deletion vectors written and files compacted per checkpoint, and
 * checkpoint wall time (min / median / max). The merge engine without Flink. Not part of the
 * default build:
 *
 * <pre>
 * mvn -B -ntp -o -pl connector/core test -Dtest='SmallFileVectorsBenchmark#scatteredUpdatesIntoSmallFiles' \
 *     -Dsurefire.excludedGroups= -Dtest.jvm.jit= [-Dbench.records=8000] [-Dbench.checkpoints=45] \
 *     [-Dbench.seed-rows=1000000] [-Dbench.grown-checkpoints=15]
 * </pre>
 */
class SmallFileVectorsBenchmark {
    private static final TableDefinition STEADY =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field("part", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("seq", ValueType.of(ValueType.Kind.BIGINT), true),
                            new ValueType.Field("note", ValueType.of(ValueType.Kind.STRING), true)),
                    List.of("id"),
                    List.of("part"),
                    Map.of("delta.enableDeletionVectors", "true"));

    @TempDir Path dir;

    /** A tiny run, so that the benchmark keeps working. */
    @Test
    void aTinyRunMeasuresEveryFifth() {
        Run run = stream(dir.resolve("tiny"), 0, 400, 10);
        assertThat(run.checkpoints()).hasSize(10);
        assertThat(run.checkpoints().get(9).stats().rowsUpdated()).isPositive();
        assertThat(report("tiny", run)).contains("| tiny | 5 |");
    }

    @Test
    @Benchmark
    void scatteredUpdatesIntoSmallFiles() {
        int records = Integer.getInteger("bench.records", 8_000);
        int checkpoints = Integer.getInteger("bench.checkpoints", 45);
        int seedRows = Integer.getInteger("bench.seed-rows", 1_000_000);
        int grownCheckpoints = Integer.getInteger("bench.grown-checkpoints", 15);
        StringBuilder out = new StringBuilder();
        out.append(
                String.format(
                        "%n%,d records per checkpoint (half new keys, half updates of random"
                                + " earlier keys), 4 partitions, deletion vectors, defaults%n%n",
                        records));
        out.append(
                "| table | fifth | rows at end | bytes written / checkpoint | rows copied /"
                        + " checkpoint | vectors / checkpoint | files compacted / checkpoint |"
                        + " checkpoint ms (min / median / max) | live files / partition at end"
                        + " (max) |\n"
                        + "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        out.append(report("young", stream(dir.resolve("young"), 0, records, checkpoints)));
        out.append(
                report("grown", stream(dir.resolve("grown"), seedRows, records, grownCheckpoints)));
        System.out.println(out);
    }

    record Checkpoint(long millis, UpsertStats stats, long rows) {}

    record Run(List<Checkpoint> checkpoints, long maxFilesPerPartition) {}

    /**
     * {@code seedRows} rows committed at once, then {@code checkpoints} checkpoints of the stream.
     */
    private static Run stream(Path table, long seedRows, int records, int checkpoints) {
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.DELETION_VECTORS)
                        .withMaxBufferedBytes(1L << 30);
        try (UpsertHarness harness = UpsertHarness.open(table.toString(), STEADY, options)) {
            // The seed is the stream's inserts of its first 2 * seedRows records.
            for (long id = 0; id < seedRows; id++) {
                harness.upsert(id, "p" + id % 4, 2 * id, "note-" + 2 * id);
            }
            if (seedRows > 0) {
                harness.commit();
            }
            long index = 2 * seedRows;
            List<Checkpoint> done = new ArrayList<>();
            for (int checkpoint = 0; checkpoint < checkpoints; checkpoint++) {
                long start = System.nanoTime();
                for (int i = 0; i < records; i++, index++) {
                    long inserted = index / 2;
                    long id =
                            index % 2 == 0 || inserted == 0
                                    ? inserted
                                    : Math.floorMod(index * 0x9E3779B97F4A7C15L, inserted);
                    harness.upsert(id, "p" + id % 4, index, "note-" + index);
                }
                CommitOutcome outcome = harness.commit();
                done.add(
                        new Checkpoint(
                                (System.nanoTime() - start) / 1_000_000,
                                outcome.stats(),
                                (index + 1) / 2));
            }
            long maxFiles = 0;
            for (List<DataFile> files : harness.table().latestSnapshot().allLiveFiles().values()) {
                maxFiles = Math.max(maxFiles, files.size());
            }
            return new Run(done, maxFiles);
        }
    }

    private static String report(String table, Run run) {
        StringBuilder out = new StringBuilder();
        List<Checkpoint> all = run.checkpoints();
        for (int fifth = 0; fifth < 5; fifth++) {
            List<Checkpoint> part =
                    all.subList(all.size() * fifth / 5, all.size() * (fifth + 1) / 5);
            if (part.isEmpty()) {
                continue;
            }
            out.append(
                    String.format(
                            "| %s | %d | %,d | %,d | %,d | %,d | %,d | %s | %s |%n",
                            table,
                            fifth + 1,
                            part.get(part.size() - 1).rows(),
                            mean(part, c -> c.stats().bytesWritten()),
                            mean(part, c -> c.stats().rowsCopied()),
                            mean(part, c -> c.stats().deletionVectorsWritten()),
                            mean(part, c -> c.stats().filesCompacted()),
                            spread(part),
                            fifth == 4 ? String.valueOf(run.maxFilesPerPartition()) : ""));
        }
        return out.toString();
    }

    private static long mean(List<Checkpoint> checkpoints, ToLongFunction<Checkpoint> value) {
        return checkpoints.stream().mapToLong(value).sum() / checkpoints.size();
    }

    private static String spread(List<Checkpoint> checkpoints) {
        List<Long> sorted = new ArrayList<>();
        checkpoints.forEach(c -> sorted.add(c.millis()));
        Collections.sort(sorted);
        return String.format(
                "%,d / %,d / %,d",
                sorted.get(0), sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
    }
}
