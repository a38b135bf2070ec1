package io.deltalite.flink.internal.merge.rewrite;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.commit.TestDefinitions;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.PendingCheckpoint;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Folds of small files in deletion-vector mode against what else happens to their input files: an
 * earlier merge of the same checkpoint or a pending checkpoint marked one, another writer changed
 * one before the commit, the commit is replayed. Judged by reading the table back.
 */
class FoldScenariosTest {
    private static final TableDefinition ITEMS = TestDefinitions.ITEMS_WITH_VECTORS;

    @TempDir Path dir;

    private final Map<Long, String> model = new TreeMap<>();

    @ParameterizedTest
    @EnumSource(KeyIndexMode.class)
    void aTierFileMarkedByAnEarlierMergeOfTheSameCheckpointIsFoldedWithThatMark(KeyIndexMode mode) {
        long oneRow = bufferedBytesOf(1, mode);
        try (UpsertHarness first = UpsertHarness.open(table(), ITEMS, options(mode))) {
            tierOfFourSmallFiles(first);
        }
        try (UpsertHarness harness =
                UpsertHarness.open(table(), ITEMS, options(mode).withMaxBufferedBytes(oneRow))) {
            // The second row passes the budget: both are merged early, marking the first file.
            upsert(harness, 7L, "early");
            upsert(harness, 8L, "early");
            // The last merge of the checkpoint touches the tier again and folds it.
            upsert(harness, 27L, "last");
            CommitOutcome outcome = harness.commit();

            assertThat(outcome.stats().filesRemoved()).as("the tier is folded").isEqualTo(4);
            assertTableIsModel();
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndexMode.class)
    void aTierFileMarkedByAPendingCheckpointIsFoldedByTheNextOne(KeyIndexMode mode) {
        try (UpsertHarness harness = UpsertHarness.open(table(), ITEMS, options(mode))) {
            tierOfFourSmallFiles(harness);
            upsert(harness, 7L, "pending");
            long pending = harness.lastCheckpoint() + 1;
            List<PartitionWriteResult> first = harness.prepare();
            upsert(harness, 27L, "next");
            List<PartitionWriteResult> second = harness.prepare();

            harness.commitPrepared(pending, first);
            harness.commitPrepared(pending + 1, second);
            assertTableIsModel();
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndexMode.class)
    void aFoldWhoseInputAnotherWriterMarkedBeforeTheCommitIsMergedAgain(KeyIndexMode mode) {
        try (UpsertHarness harness = UpsertHarness.open(table(), ITEMS, options(mode))) {
            tierOfFourSmallFiles(harness);
            upsert(harness, 27L, "folding");
            List<PartitionWriteResult> folding = harness.prepare();
            long checkpoint = harness.lastCheckpoint();
            try (UpsertHarness other = UpsertHarness.open(table(), ITEMS, options(mode), "other")) {
                upsert(other, 45L, "other writer");
                other.delete(63L, null);
                model.remove(63L);
                other.commit();
            }

            harness.commitPrepared(checkpoint, folding);
            assertTableIsModel();
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndexMode.class)
    void aFoldReplayedAfterItsCommitChangesNothing(KeyIndexMode mode) {
        try (UpsertHarness harness = UpsertHarness.open(table(), ITEMS, options(mode))) {
            tierOfFourSmallFiles(harness);
            upsert(harness, 27L, "folded");
            List<PartitionWriteResult> folding = harness.prepare();
            long checkpoint = harness.lastCheckpoint();
            harness.commitPrepared(checkpoint, folding);
            CommitOutcome replay = harness.commitPrepared(checkpoint, folding);

            assertThat(replay.status()).isEqualTo(CommitOutcome.Status.ALREADY_COMMITTED);
            upsert(harness, 47L, "after");
            harness.commit();
            assertTableIsModel();
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndexMode.class)
    void aFoldCommittedJustBeforeAFailureIsReplayedByTheRestartedWriterAndNotRedone(
            KeyIndexMode mode) {
        try (UpsertHarness harness = UpsertHarness.open(table(), ITEMS, options(mode))) {
            tierOfFourSmallFiles(harness);
            upsert(harness, 27L, "folded");
            List<PartitionWriteResult> folding = harness.prepare();
            long checkpoint = harness.lastCheckpoint();
            List<PendingCheckpoint> state = harness.writer().pending();
            harness.commitPrepared(checkpoint, folding);

            // The process dies before the commit is acknowledged; the job restores the checkpoint.
            try (UpsertHarness restarted = UpsertHarness.restarted(harness, 0, checkpoint)) {
                restarted.writer().restorePending(state);
                restarted.writer().cleanUpEarlierStarts();
                assertThat(restarted.commitPrepared(checkpoint, folding).status())
                        .isEqualTo(CommitOutcome.Status.ALREADY_COMMITTED);
                upsert(restarted, 47L, "after");
                upsert(restarted, 3L, "after");
                restarted.commit();
                assertTableIsModel();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndexMode.class)
    void aFoldWhoseInputsAnotherJobFoldedFirstIsMergedAgain(KeyIndexMode mode) {
        try (UpsertHarness harness = UpsertHarness.open(table(), ITEMS, options(mode))) {
            tierOfFourSmallFiles(harness);
            upsert(harness, 27L, "ours");
            List<PartitionWriteResult> folding = harness.prepare();
            long checkpoint = harness.lastCheckpoint();
            try (UpsertHarness other = UpsertHarness.open(table(), ITEMS, options(mode), "other")) {
                upsert(other, 47L, "theirs");
                other.delete(66L, null);
                model.remove(66L);
                assertThat(other.commit().stats().filesRemoved())
                        .as("the other job folds the tier first")
                        .isEqualTo(4);
            }

            harness.commitPrepared(checkpoint, folding);
            assertTableIsModel();
        }
    }

    @ParameterizedTest
    @EnumSource(KeyIndexMode.class)
    void aKeyMovingOutOfAPartitionWhoseTierIsFoldedLeavesNoRowBehind(KeyIndexMode mode) {
        Map<Long, String> parts = new TreeMap<>();
        try (UpsertHarness harness =
                UpsertHarness.open(table(), SmallFileVectorsTest.STEADY, options(mode))) {
            long seq = 0;
            for (long checkpoint = 0; checkpoint < 4; checkpoint++) {
                for (long id = checkpoint * 20; id < checkpoint * 20 + 20; id++) {
                    harness.upsert(id, "p0", seq++, "n");
                    parts.put(id, "p0");
                }
                if (checkpoint > 0) {
                    harness.upsert((checkpoint - 1) * 20 + 5, "p0", seq++, "updated");
                }
                harness.commit();
            }
            // Key 7 moves to p1 (-U in p0, +U in p1) while key 27's update folds p0's tier.
            harness.delete(7L, "p0", null, null);
            harness.upsert(7L, "p1", seq++, "moved");
            parts.put(7L, "p1");
            harness.upsert(27L, "p0", seq++, "folds");
            harness.commit();

            Map<Long, String> read = new TreeMap<>();
            for (Object[] row : KernelTableReader.readAll(table())) {
                assertThat(read.put((Long) row[0], (String) row[1]))
                        .as("one row of key %s", row[0])
                        .isNull();
            }
            assertThat(read).isEqualTo(parts);
        }
    }

    /** Four small files of 20 keys each, three of them with a deletion vector. */
    private void tierOfFourSmallFiles(UpsertHarness harness) {
        for (long checkpoint = 0; checkpoint < 4; checkpoint++) {
            for (long id = checkpoint * 20; id < checkpoint * 20 + 20; id++) {
                upsert(harness, id, "v" + checkpoint);
            }
            if (checkpoint > 0) {
                upsert(harness, (checkpoint - 1) * 20 + 5, "updated");
            }
            harness.commit();
        }
        List<DataFile> tier =
                harness.table()
                        .latestSnapshot()
                        .liveFiles(List.of(PartitionValues.UNPARTITIONED))
                        .get(PartitionValues.UNPARTITIONED);
        assertThat(tier).hasSize(4);
    }

    private void upsert(UpsertHarness harness, long id, String value) {
        harness.upsert(id, value);
        model.put(id, value);
    }

    /** Deletion vectors on; the key index, if any, checked against the files at every merge. */
    private static MergeOptions options(KeyIndexMode mode) {
        return MergeOptions.DEFAULTS
                .withWriteMode(WriteMode.DELETION_VECTORS)
                .withKeyIndex(KeyIndexOptions.DEFAULTS.withMode(mode).withValidate(true));
    }

    private long bufferedBytesOf(int rows, KeyIndexMode mode) {
        try (UpsertHarness scratch =
                UpsertHarness.open(dir.resolve("scratch").toString(), ITEMS, options(mode))) {
            for (long id = 0; id < rows; id++) {
                scratch.upsert(id, "early");
            }
            return scratch.writer().bufferedBytes();
        }
    }

    private String table() {
        return dir.resolve("table").toString();
    }

    private void assertTableIsModel() {
        Map<Long, String> read = new TreeMap<>();
        for (Object[] row : KernelTableReader.readAll(table())) {
            assertThat(read.put((Long) row[0], (String) row[1]))
                    .as("one row of key %s", row[0])
                    .isNull();
        }
        assertThat(read).isEqualTo(model);
    }
}
