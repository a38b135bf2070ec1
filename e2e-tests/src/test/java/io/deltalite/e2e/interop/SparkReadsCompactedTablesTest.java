package io.deltalite.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.DeltaLiteCompaction;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark on tables that deltalite compacts: every version reads right before and after a compaction,
 * the history shows the commits, and Spark's OPTIMIZE beside deltalite's compaction of the same
 * partition leaves the table right without failing a checkpoint.
 */
class SparkReadsCompactedTablesTest {
    private static final TableDefinition ITEMS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(ValueType.Kind.INT), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of("delta.enableDeletionVectors", "true"));

    @TempDir Path dir;

    /** The model: amount by id; the day of an id is fixed ({@code "d" + id % 2}). */
    private final Map<Long, Integer> model = new TreeMap<>();

    @Test
    void everyVersionReadsTheSameBeforeAndAfterInlineCompactionInBothWriteModes() {
        for (WriteMode mode : List.of(WriteMode.COPY_ON_WRITE, WriteMode.DELETION_VECTORS)) {
            model.clear();
            String table = dir.resolve("items-" + mode).toString();
            Map<Long, List<String>> committed = new LinkedHashMap<>();
            Random random = new Random(17);
            try (UpsertHarness deltalite =
                    UpsertHarness.open(table, ITEMS, MergeOptions.DEFAULTS.withWriteMode(mode))) {
                for (int checkpoint = 0; checkpoint < 14; checkpoint++) {
                    for (int change = 0; change < 40; change++) {
                        // Mostly new keys, so that older files stay untouched and get compacted.
                        long id =
                                random.nextInt(5) == 0
                                        ? random.nextInt(40 * (checkpoint + 1))
                                        : 40L * checkpoint + change + 1_000_000;
                        upsert(deltalite, id, checkpoint);
                    }
                    CommitOutcome outcome = deltalite.commit();
                    committed.put(outcome.version(), expected());
                }
            }
            assertThat(DeltaHistory.compactedFiles(Path.of(table)))
                    .as("files compacted in %s", mode)
                    .isPositive();
            committed.forEach(
                    (version, rows) ->
                            assertThat(Rows.sorted(SparkRows.readVersion(table, version)))
                                    .as(
                                            "%s: version %d read by Spark with VERSION AS OF",
                                            mode, version)
                                    .isEqualTo(rows));
            List<Row> history = SparkDelta.sql("DESCRIBE HISTORY delta.`" + table + "`");
            assertThat(history).hasSize(committed.size() + 1);
            assertThat(history.subList(0, committed.size()))
                    .allSatisfy(
                            row ->
                                    assertThat(row.<String>getAs("operation"))
                                            .isEqualTo("STREAMING UPDATE"));
        }
    }

    @Test
    void aOnePassCompactionOfAFragmentedTableReadsTheSameInSpark() {
        String table = dir.resolve("fragmented").toString();
        try (UpsertHarness deltalite =
                UpsertHarness.open(
                        table,
                        ITEMS,
                        MergeOptions.DEFAULTS.withCompaction(
                                io.deltalite.flink.internal.merge.options.CompactionOptions
                                        .DISABLED))) {
            for (long checkpoint = 0; checkpoint < 30; checkpoint++) {
                for (long id = checkpoint * 10; id < checkpoint * 10 + 10; id++) {
                    upsert(deltalite, id, (int) checkpoint);
                }
                deltalite.commit();
            }
        }
        long before = KernelTableReader.latestVersion(table);
        UpsertStats stats = DeltaLiteCompaction.forTable(table).run();
        assertThat(stats.filesCompacted()).as("30 checkpoints of 2 partitions").isEqualTo(60);
        assertThat(KernelTableReader.readByFile(table)).hasSize(2);
        assertThat(Rows.sorted(SparkRows.readTable(table))).isEqualTo(expected());
        assertThat(Rows.sorted(SparkRows.readVersion(table, before))).isEqualTo(expected());
        // Spark's OPTIMIZE finds nothing left to do.
        List<Row> optimized = SparkDelta.sql("OPTIMIZE delta.`" + table + "`");
        assertThat(KernelTableReader.latestVersion(table)).isEqualTo(stats.version());
        assertThat(optimized).isNotEmpty();
    }

    @Test
    void sparkOptimizeOfThePartitionDeltaliteCompactsLeavesTheTableRight() throws Exception {
        String table = dir.resolve("contended").toString();
        try (UpsertHarness deltalite =
                UpsertHarness.open(
                        table,
                        ITEMS,
                        MergeOptions.DEFAULTS.withWriteMode(WriteMode.DELETION_VECTORS))) {
            for (long checkpoint = 0; checkpoint < 4; checkpoint++) {
                upsert(deltalite, checkpoint * 2, 0);
                deltalite.commit();
            }
            // Spark's OPTIMIZE lands between deltalite's merge (with its compaction) and commit.
            upsert(deltalite, 100, 1);
            List<PartitionWriteResult> prepared = deltalite.prepare();
            assertThat(prepared.get(0).compaction().inputs()).hasSize(4);
            SparkDelta.sql("OPTIMIZE delta.`" + table + "`");
            CommitOutcome outcome = deltalite.commitPrepared(deltalite.lastCheckpoint(), prepared);
            assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(outcome.stats().filesCompacted()).isZero();
            assertThat(Rows.sorted(SparkRows.readTable(table))).isEqualTo(expected());

            // Spark's OPTIMIZE running while deltalite commits checkpoint after checkpoint.
            AtomicInteger optimizeFailures = new AtomicInteger();
            java.util.Set<String> refusals = java.util.concurrent.ConcurrentHashMap.newKeySet();
            Thread optimizer =
                    new Thread(
                            () -> {
                                for (int i = 0; i < 3; i++) {
                                    try {
                                        SparkDelta.sql("OPTIMIZE delta.`" + table + "`");
                                    } catch (RuntimeException e) {
                                        // Spark's own conflict check may refuse its commit.
                                        optimizeFailures.incrementAndGet();
                                        refusals.add(e.getClass().getSimpleName());
                                    }
                                }
                            });
            optimizer.start();
            long next = 200;
            while (optimizer.isAlive() || next < 240) {
                for (int i = 0; i < 3; i++) {
                    upsert(deltalite, next++, 2);
                }
                upsert(deltalite, next % 7, 3);
                CommitOutcome committed = deltalite.commit();
                assertThat(committed.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            }
            optimizer.join();
            System.out.printf(
                    "Spark OPTIMIZE beside deltalite: %d of 3 refused by Spark (%s)%n",
                    optimizeFailures.get(), refusals);
            assertThat(Rows.sorted(SparkRows.readTable(table))).isEqualTo(expected());
            assertThat(Rows.sorted(KernelTableReader.readAll(table))).isEqualTo(expected());
            assertThat(DeltaHistory.missingReferencedFiles(Path.of(table))).isEmpty();
        }
    }

    private void upsert(UpsertHarness deltalite, long id, int amount) {
        deltalite.upsert(id, "d" + id % 2, amount);
        model.put(id, amount);
    }

    private List<String> expected() {
        List<Object[]> rows = new ArrayList<>();
        model.forEach((id, amount) -> rows.add(new Object[] {id, "d" + id % 2, amount}));
        return Rows.sorted(rows);
    }
}
