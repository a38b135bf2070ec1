package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A table with row tracking ({@code delta.enableRowTracking}), column mapping off, {@code id} (the
 * row tracking columns get Parquet field ids of their own) and {@code name}: every row keeps its
 * row id while the sink copies it (copy-on-write survivors, compaction, folds) and when an upsert
 * replaces it, and keeps its commit version until it changes — read back by Kernel's own scan,
 * which resolves each row's id and version from the materialized columns and the files' lineage.
 */
class RowTrackingTest {
    private static final ValueType.Field ID =
            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false);
    private static final ValueType.Field P =
            new ValueType.Field("p", ValueType.of(ValueType.Kind.STRING), true);
    private static final ValueType.Field V =
            new ValueType.Field("v", ValueType.of(ValueType.Kind.INT), true);
    private static final TableDefinition TRACKED =
            new TableDefinition(List.of(ID, P, V), List.of("id"), List.of("p"), Map.of())
                    .withTableProperty("delta.enableRowTracking", "true")
                    .withTableProperty("delta.enableDeletionVectors", "true");

    @TempDir Path dir;

    /**
     * Twelve checkpoints of random upserts and deletes over 300 keys in two partitions, some keys
     * changed twice in a checkpoint and some checkpoints merged twice (an early merge, as before a
     * schema change): after each, every row untouched since the last one has the id and commit
     * version it had; an updated row has its id and the new version; a row inserted (or inserted
     * again after a delete) has an id no row ever had, and the new version.
     */
    @ParameterizedTest(name = "{0}, column mapping {1}")
    @CsvSource({
        "COPY_ON_WRITE, none",
        "DELETION_VECTORS, none",
        "COPY_ON_WRITE, id",
        "DELETION_VECTORS, id",
        "DELETION_VECTORS, name"
    })
    void rowsKeepTheirIdsThroughUpdatesCopiesAndCompaction(WriteMode mode, String columnMapping) {
        String table = dir.resolve("t").toString();
        Random random = new Random(7 + mode.ordinal());
        Set<Long> everyIdSeen = new HashSet<>();
        TableDefinition definition =
                "none".equals(columnMapping)
                        ? TRACKED
                        : TRACKED.withTableProperty("delta.columnMapping.mode", columnMapping);
        try (UpsertHarness deltalite =
                UpsertHarness.open(table, definition, MergeOptions.DEFAULTS.withWriteMode(mode))) {
            for (long id = 0; id < 200; id++) {
                deltalite.upsert(id, partitionOf(id), 0);
            }
            CommitOutcome first = deltalite.commit();
            Map<Long, long[]> tracked = KernelTableReader.rowTracking(table, "id");
            assertThat(tracked).hasSize(200);
            tracked.values().forEach(row -> assertThat(row[1]).isEqualTo(first.version()));
            tracked.values().forEach(row -> everyIdSeen.add(row[0]));
            assertThat(everyIdSeen).hasSize(200);

            long copiedOrCompacted = 0;
            for (int checkpoint = 0; checkpoint < 12; checkpoint++) {
                Map<Long, Boolean> upserted = new HashMap<>(); // key → upserted (false: deleted)
                // keys deleted by an early merge and upserted after it: a new row, with a new id
                Set<Long> deletedEarly = new HashSet<>();
                int changes = 10 + random.nextInt(30);
                for (int change = 0; change < changes; change++) {
                    long id = random.nextInt(300);
                    if (change == changes / 2 && checkpoint % 3 == 1) {
                        deltalite.writer().mergeBuffered();
                        upserted.forEach(
                                (key, up) -> {
                                    if (!up) {
                                        deletedEarly.add(key);
                                    }
                                });
                    }
                    if (random.nextInt(4) == 0) {
                        deltalite.delete(id, partitionOf(id), null);
                        upserted.put(id, false);
                    } else {
                        deltalite.upsert(id, partitionOf(id), checkpoint * 1000 + change);
                        upserted.put(id, true);
                    }
                }
                CommitOutcome outcome = deltalite.commit();
                copiedOrCompacted +=
                        outcome.stats().rowsCopied() + outcome.stats().filesCompacted();
                Map<Long, long[]> now = KernelTableReader.rowTracking(table, "id");
                for (Map.Entry<Long, long[]> row : now.entrySet()) {
                    long id = row.getKey();
                    long[] before = tracked.get(id);
                    Boolean change = upserted.get(id);
                    if (change == null) {
                        assertThat(row.getValue())
                                .as("row %s, untouched in checkpoint %s", id, checkpoint)
                                .containsExactly(before);
                    } else if (before != null && !deletedEarly.contains(id)) {
                        assertThat(row.getValue())
                                .as("row %s, updated in checkpoint %s", id, checkpoint)
                                .containsExactly(before[0], outcome.version());
                    } else {
                        assertThat(everyIdSeen)
                                .as("row %s, inserted in checkpoint %s", id, checkpoint)
                                .doesNotContain(row.getValue()[0]);
                        assertThat(row.getValue()[1]).isEqualTo(outcome.version());
                    }
                }
                for (Map.Entry<Long, Boolean> change : upserted.entrySet()) {
                    assertThat(now.containsKey(change.getKey())).isEqualTo(change.getValue());
                }
                Set<Long> ids = new HashSet<>();
                now.values().forEach(row -> ids.add(row[0]));
                assertThat(ids).as("row ids are unique").hasSize(now.size());
                everyIdSeen.addAll(ids);
                tracked = now;
            }
            assertThat(copiedOrCompacted).as("rows were copied or compacted").isPositive();
        }
    }

    /**
     * Between a checkpoint's merge and its commit another job deletes a key the checkpoint updates
     * and inserts it again (a row with a new id), and updates another: the commit merges the
     * partition again, and its rows keep the ids of the rows it replaces now — the new row's id,
     * and the other's unchanged one — not those the merge had read. With a buffer of a few bytes
     * the re-merge reads the changed keys one chunk at a time.
     */
    @ParameterizedTest(name = "{0}, max-buffered-bytes {1}")
    @CsvSource({
        "COPY_ON_WRITE, 0",
        "DELETION_VECTORS, 0",
        "COPY_ON_WRITE, 120",
        "DELETION_VECTORS, 120"
    })
    void aReMergeKeepsTheIdsOfTheRowsItReplacesNow(WriteMode mode, long bufferBytes) {
        String table = dir.resolve("t").toString();
        MergeOptions options =
                bufferBytes == 0
                        ? MergeOptions.DEFAULTS.withWriteMode(mode)
                        : MergeOptions.DEFAULTS
                                .withWriteMode(mode)
                                .withMaxBufferedBytes(bufferBytes);
        try (UpsertHarness sink = UpsertHarness.open(table, TRACKED, options)) {
            for (long id = 0; id < 20; id++) {
                sink.upsert(id, partitionOf(id), 0);
            }
            sink.commit();
            Map<Long, long[]> before = KernelTableReader.rowTracking(table, "id");

            sink.upsert(4L, "a", 1);
            sink.upsert(6L, "a", 1);
            sink.upsert(8L, "a", 1);
            List<io.deltalite.flink.internal.merge.result.PartitionWriteResult> prepared =
                    sink.prepare();
            try (UpsertHarness other = UpsertHarness.open(table, TRACKED, options, "other")) {
                other.delete(4L, "a", null);
                other.commit();
                other.upsert(4L, "a", 2);
                other.upsert(6L, "a", 2);
                other.commit();
            }
            Map<Long, long[]> meanwhile = KernelTableReader.rowTracking(table, "id");
            assertThat(meanwhile.get(4L)[0]).isNotEqualTo(before.get(4L)[0]);
            assertThat(meanwhile.get(6L)[0]).isEqualTo(before.get(6L)[0]);

            CommitOutcome outcome = sink.commitPrepared(sink.lastCheckpoint(), prepared);
            assertThat(outcome.remergedPartitions()).isPositive();
            Map<Long, long[]> after = KernelTableReader.rowTracking(table, "id");
            assertThat(after.get(4L)).containsExactly(meanwhile.get(4L)[0], outcome.version());
            assertThat(after.get(6L)).containsExactly(before.get(6L)[0], outcome.version());
            assertThat(after.get(8L)).containsExactly(before.get(8L)[0], outcome.version());
            assertThat(after.get(10L)).containsExactly(before.get(10L));
            Set<Long> ids = new HashSet<>();
            after.values().forEach(row -> ids.add(row[0]));
            assertThat(ids).hasSize(after.size());
        }
    }

    /**
     * A worn file of many row groups is moved a few row groups per merge (its rows read by row
     * group): each row copied out of it keeps its id and commit version, as a whole-file rewrite
     * keeps them.
     */
    @ParameterizedTest(name = "column mapping {0}")
    @CsvSource({"none", "id"})
    void rowsMovedOutOfAWornFileRowGroupByRowGroupKeepTheirIdsAndVersions(String columnMapping) {
        String table = dir.resolve("t").toString();
        TableDefinition definition =
                "none".equals(columnMapping)
                        ? TRACKED
                        : TRACKED.withTableProperty("delta.columnMapping.mode", columnMapping);
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.DELETION_VECTORS)
                        .withRowGroupSizeBytes(2048)
                        .withCompaction(
                                io.deltalite.flink.internal.merge.options.CompactionOptions
                                        .DISABLED);
        int rows = 4000;
        try (UpsertHarness sink = UpsertHarness.open(table, definition, options)) {
            for (long id = 0; id < rows; id++) {
                sink.upsert(id, "a", 0);
            }
            sink.commit();
            for (long id = 0; id < rows; id += 2) {
                sink.upsert(id, "a", 1);
            }
            sink.commit();
            Map<Long, long[]> tracked = KernelTableReader.rowTracking(table, "id");
            long copied = 0;
            for (int merge = 0; merge < 6; merge++) {
                Set<Long> changed = new HashSet<>();
                for (long id = 1 + 2L * merge; id < rows; id += 50) {
                    sink.upsert(id, "a", 2 + merge);
                    changed.add(id);
                }
                CommitOutcome outcome = sink.commit();
                copied += outcome.stats().rowsCopied();
                Map<Long, long[]> now = KernelTableReader.rowTracking(table, "id");
                assertThat(now).hasSize(rows);
                for (Map.Entry<Long, long[]> row : now.entrySet()) {
                    long[] before = tracked.get(row.getKey());
                    if (changed.contains(row.getKey())) {
                        assertThat(row.getValue())
                                .as("row %s, updated in merge %s", row.getKey(), merge)
                                .containsExactly(before[0], outcome.version());
                    } else {
                        assertThat(row.getValue())
                                .as("row %s, untouched in merge %s", row.getKey(), merge)
                                .containsExactly(before);
                    }
                }
                tracked = now;
            }
            // Rows moved, but in parts: less than the file's 1,900 live rows at the first move.
            assertThat(copied).isPositive().isLessThan(1_900);
        }
    }

    private static String partitionOf(long id) {
        return id % 2 == 0 ? "a" : "b";
    }
}
