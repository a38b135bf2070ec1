package io.deltalite.flink.internal.merge.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.deltalite.flink.internal.delta.table.ForeignWriter;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.faults.StorageFaults;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.commit.TestDefinitions;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inline compaction on real tables: what it picks, that it changes no row and no reader of changes,
 * and that the committer drops it when another writer got to its files first.
 */
class CompactionTest {
    private static final TableDefinition ITEMS = TestDefinitions.ITEMS;

    private static final TableDefinition ITEMS_WITH_VECTORS =
            new TableDefinition(
                    ITEMS.columns(),
                    ITEMS.primaryKey(),
                    List.of(),
                    Map.of("delta.enableDeletionVectors", "true"));

    private static final TableDefinition EVENTS =
            new TableDefinition(ITEMS.columns(), List.of(), List.of(), Map.of());

    @TempDir Path dir;

    private final Map<Long, String> model = new TreeMap<>();

    @Test
    void fourSmallFilesBecomeOneSortedFileInACommitThatChangesNoData() {
        try (UpsertHarness harness = UpsertHarness.open(location(), ITEMS, MergeOptions.DEFAULTS)) {
            Random random = new Random(7);
            for (int checkpoint = 0; checkpoint < 4; checkpoint++) {
                for (int i = 0; i < 50; i++) {
                    upsert(harness, random.nextInt(1_000_000), "c" + checkpoint);
                }
                assertThat(harness.commit().stats().filesCompacted()).isZero();
            }
            assertThat(KernelTableReader.readByFile(location())).hasSize(4);
            long before = KernelTableReader.latestVersion(location());

            upsert(harness, 2_000_000, "new");
            CommitOutcome outcome = harness.commit();

            UpsertStats stats = outcome.stats();
            assertThat(stats.filesCompacted()).isEqualTo(4);
            assertThat(stats.bytesCompacted()).isPositive();
            assertThat(stats.rowsInserted()).isEqualTo(1);
            // The merge's upsert file and the compaction's output.
            assertThat(stats.liveFiles()).isEqualTo(2);
            assertThat(stats.smallFiles()).isEqualTo(2);
            assertThat(read()).isEqualTo(expected());
            // Time travel: the version before the compaction holds the same rows it always did.
            assertThat(KernelTableReader.readVersion(location(), before)).hasSize(model.size() - 1);

            Map<String, List<Object[]>> files = KernelTableReader.readByFile(location());
            assertThat(files).hasSize(2);
            List<Object[]> compacted =
                    files.values().stream().filter(rows -> rows.size() > 1).findFirst().get();
            assertThat(compacted).hasSize(model.size() - 1);
            for (int row = 1; row < compacted.size(); row++) {
                assertThat((Long) compacted.get(row)[0])
                        .as("keys ascend in the compacted file")
                        .isGreaterThan((Long) compacted.get(row - 1)[0]);
            }

            // Only the merge's own file is a change of data; the compaction is not.
            List<JsonNode> actions = DeltaHistory.actions(dir, outcome.version());
            int rearranged = 0;
            int changed = 0;
            for (JsonNode action : actions) {
                JsonNode file = action.has("add") ? action.get("add") : action.get("remove");
                if (file != null) {
                    if (file.get("dataChange").asBoolean()) {
                        changed++;
                    } else {
                        rearranged++;
                    }
                }
            }
            assertThat(changed).isEqualTo(1);
            assertThat(rearranged).isEqualTo(5);
        }
    }

    @Test
    void filesTheCheckpointTouchesAreNotCompactedAndATierWaitsForFourFiles() {
        try (UpsertHarness harness = UpsertHarness.open(location(), ITEMS, MergeOptions.DEFAULTS)) {
            for (long checkpoint = 0; checkpoint < 3; checkpoint++) {
                upsert(harness, checkpoint * 10, "x");
                harness.commit();
            }
            // Three committed files, one of which the update of key 0 rewrites: its own upsert
            // file is no candidate, so no tier holds four.
            upsert(harness, 0, "updated");
            assertThat(harness.commit().stats().filesCompacted()).isZero();
            // Three committed files again (key 0's file replaced the one it rewrote).
            upsert(harness, 40, "x");
            assertThat(harness.commit().stats().filesCompacted()).isZero();
            upsert(harness, 50, "x");
            assertThat(harness.commit().stats().filesCompacted()).isEqualTo(4);
            assertThat(read()).isEqualTo(expected());
        }
    }

    @Test
    void aBinLargerThanTheWholeBudgetRunsAloneInItsCheckpoint() {
        MergeOptions options =
                MergeOptions.DEFAULTS.withCompaction(new CompactionOptions(true, 0, 1, 0.2));
        try (UpsertHarness harness = UpsertHarness.open(location(), ITEMS, options)) {
            long compacted = 0;
            for (long checkpoint = 0; checkpoint < 12; checkpoint++) {
                upsert(harness, checkpoint * 10, "x");
                long now = harness.commit().stats().filesCompacted();
                assertThat(now).as("one bin of four at most").isLessThanOrEqualTo(4);
                compacted += now;
            }
            assertThat(compacted).isPositive();
            assertThat(read()).isEqualTo(expected());
        }
    }

    @Test
    void aFileMostlyDeletedByItsVectorIsRewrittenWithoutTheDeletedRows() {
        // Nothing is small here: only the worn file qualifies.
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.DELETION_VECTORS)
                        .withCompaction(new CompactionOptions(true, 1, 1L << 30, 0.2));
        try (UpsertHarness harness = UpsertHarness.open(location(), ITEMS_WITH_VECTORS, options)) {
            for (long id = 0; id < 100; id++) {
                upsert(harness, id, "x");
            }
            harness.commit();
            for (long id = 0; id < 30; id++) {
                delete(harness, id);
            }
            UpsertStats marking = harness.commit().stats();
            // The file just got its vector: not compacted in the same commit.
            assertThat(marking.deletionVectorsWritten()).isEqualTo(1);
            assertThat(marking.filesCompacted()).isZero();

            upsert(harness, 1000, "new");
            UpsertStats stats = harness.commit().stats();
            assertThat(stats.filesCompacted()).isEqualTo(1);
            assertThat(read()).isEqualTo(expected());
            List<DataFile> live =
                    harness.table()
                            .latestSnapshot()
                            .liveFiles(List.of(PartitionValues.UNPARTITIONED))
                            .get(PartitionValues.UNPARTITIONED);
            assertThat(live).hasSize(2);
            assertThat(live).noneMatch(DataFile::hasDeletionVector);
        }
    }

    @Test
    void aCompactionIsDroppedWhenAnotherWriterRewroteItsFiles() {
        try (UpsertHarness harness = UpsertHarness.open(location(), ITEMS, MergeOptions.DEFAULTS)) {
            for (long checkpoint = 0; checkpoint < 4; checkpoint++) {
                upsert(harness, checkpoint * 10, "x");
                harness.commit();
            }
            upsert(harness, 100, "new");
            List<PartitionWriteResult> prepared = harness.prepare();
            assertThat(prepared.get(0).compaction().inputs()).hasSize(4);
            List<String> outputs = new ArrayList<>();
            prepared.get(0).compaction().outputs().forEach(file -> outputs.add(file.path()));

            // OPTIMIZE by another writer, between the merge and its commit.
            ForeignWriter.compact(location(), ITEMS.toSchema());
            CommitOutcome outcome = harness.commitPrepared(harness.lastCheckpoint(), prepared);

            assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(outcome.stats().filesCompacted()).isZero();
            assertThat(read()).isEqualTo(expected());
            // The dropped outputs are deleted once the writer sees its checkpoint committed.
            upsert(harness, 101, "next");
            harness.commit();
            assertThat(read()).isEqualTo(expected());
            for (String output : outputs) {
                assertThat(harness.table().files().exists(output)).as(output).isFalse();
            }
            assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
        }
    }

    /**
     * A writer cancelled (its job failed elsewhere) while the last merge of a checkpoint compacts:
     * the merge's own files, written just before, must not outlive it — nothing would ever commit
     * or delete them.
     */
    @Test
    void aWriterInterruptedWhileCompactingLeavesNoFileOfItsMerge() {
        try (UpsertHarness harness = UpsertHarness.open(location(), ITEMS, MergeOptions.DEFAULTS)) {
            for (long checkpoint = 0; checkpoint < 4; checkpoint++) {
                upsert(harness, checkpoint * 10, "x");
                harness.commit();
            }
            // Beyond every file's key range: the merge reads nothing, the compaction reads all.
            upsert(harness, 100, "new");
            List<String> committed = new ArrayList<>();
            harness.table()
                    .latestSnapshot()
                    .liveFiles(List.of(PartitionValues.UNPARTITIONED))
                    .get(PartitionValues.UNPARTITIONED)
                    .forEach(file -> committed.add(Path.of(file.path()).getFileName().toString()));
            assertThat(committed).hasSize(4);
            StorageFaults.arm(
                    (operation, path, done) -> {
                        if (operation == StorageFaults.Operation.READ_FILE
                                && committed.stream().anyMatch(path::endsWith)) {
                            throw new InterruptedIOException("cancelled while reading " + path);
                        }
                    });
            try {
                assertThatThrownBy(harness::prepare)
                        .isInstanceOf(RuntimeException.class)
                        .satisfies(e -> e.printStackTrace());
            } finally {
                StorageFaults.disarm();
            }
            // What the sink's writer does when Flink closes it after the failure.
            harness.writer().discardUncommittable();

            assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
            model.remove(100L);
            assertThat(read()).isEqualTo(expected());
        }
    }

    @Test
    void anAppendOnlyTableCompactsAndDropsTheCompactionWhenItsInputsChanged() {
        List<Object[]> appended = new ArrayList<>();
        try (UpsertHarness harness =
                UpsertHarness.open(location(), EVENTS, MergeOptions.DEFAULTS)) {
            for (long checkpoint = 0; checkpoint < 4; checkpoint++) {
                for (int i = 0; i < 3; i++) {
                    Object[] row = {checkpoint, "a" + i};
                    harness.upsert(row);
                    appended.add(row);
                }
                harness.commit();
            }
            harness.upsert(9L, "late");
            appended.add(new Object[] {9L, "late"});
            List<PartitionWriteResult> prepared = harness.prepare();
            assertThat(prepared.get(0).compaction().inputs()).hasSize(4);
            ForeignWriter.compact(location(), EVENTS.toSchema());
            CommitOutcome dropped = harness.commitPrepared(harness.lastCheckpoint(), prepared);
            assertThat(dropped.stats().filesCompacted()).isZero();
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(appended));

            for (long checkpoint = 10; checkpoint < 14; checkpoint++) {
                Object[] row = {checkpoint, "b"};
                harness.upsert(row);
                appended.add(row);
                harness.commit();
            }
            long compacted = 0;
            for (long checkpoint = 20; checkpoint < 24; checkpoint++) {
                Object[] row = {checkpoint, "c"};
                harness.upsert(row);
                appended.add(row);
                compacted += harness.commit().stats().filesCompacted();
            }
            assertThat(compacted).isPositive();
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(appended));
        }
    }

    @Test
    void tiersAreQuarterSteps() {
        try (UpsertHarness harness = UpsertHarness.open(location(), ITEMS, MergeOptions.DEFAULTS)) {
            PartitionCompactor compactor =
                    new PartitionCompactor(harness.table(), MergeOptions.DEFAULTS);
            long small = compactor.smallFileSize();
            assertThat(small).isEqualTo(MergeOptions.DEFAULT_TARGET_FILE_SIZE / 16);
            assertThat(compactor.tier(small - 1)).isZero();
            assertThat(compactor.tier(small / 4 - 1)).isEqualTo(1);
            assertThat(compactor.tier(small / 16)).isEqualTo(1);
            assertThat(compactor.tier(1)).isEqualTo(PartitionCompactor.TIERS - 1);
        }
    }

    private void upsert(UpsertHarness harness, long id, String value) {
        harness.upsert(id, value);
        model.put(id, value);
    }

    private void delete(UpsertHarness harness, long id) {
        harness.delete(id, null);
        model.remove(id);
    }

    private List<String> read() {
        return Rows.sorted(KernelTableReader.readAll(location()));
    }

    private List<String> expected() {
        List<Object[]> rows = new ArrayList<>();
        model.forEach((id, value) -> rows.add(new Object[] {id, value}));
        return Rows.sorted(rows);
    }

    private String location() {
        return dir.toString();
    }
}
