package io.deltalite.flink.internal.merge.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.ForeignWriter;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Landing a checkpoint: exactly once per transaction id, with a Delta log checkpoint at the table's
 * interval, and merged again when another writer changed the partition after the merge.
 */
class CheckpointCommitterTest {
    private static final TableDefinition ITEMS =
            new TableDefinition(
                    TestDefinitions.ITEMS.columns(),
                    TestDefinitions.ITEMS.primaryKey(),
                    TestDefinitions.ITEMS.partitionColumns(),
                    Map.of("delta.checkpointInterval", "3"));

    @TempDir Path dir;

    @Test
    void aReplayedCheckpointIsReportedAsAlreadyCommittedAndChangesNothing() {
        try (UpsertHarness harness = open()) {
            harness.upsert(1L, "one");
            List<PartitionWriteResult> first = harness.prepare();
            long firstId = harness.lastCheckpoint();
            assertThat(harness.commitPrepared(firstId, first).status())
                    .isEqualTo(CommitOutcome.Status.COMMITTED);
            harness.upsert(1L, "two");
            harness.commit();
            long version = KernelTableReader.latestVersion(location());

            // After a restore, the committer sees the older checkpoint again.
            CommitOutcome replay = harness.commitPrepared(firstId, first);
            assertThat(replay.status()).isEqualTo(CommitOutcome.Status.ALREADY_COMMITTED);
            assertThat(replay.version()).isEqualTo(-1);
            assertThat(KernelTableReader.latestVersion(location())).isEqualTo(version);
            assertThat(Rows.sorted(harness.read()))
                    .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "two"})));
        }
    }

    @Test
    void aLogCheckpointIsWrittenAtTheTablesInterval() {
        try (UpsertHarness harness = open()) {
            for (long id = 0; id < 7; id++) {
                harness.upsert(id, "v");
                harness.commit();
            }
        }
        assertThat(KernelTableReader.latestVersion(location())).isEqualTo(7);
        assertThat(dir.resolve("_delta_log/00000000000000000003.checkpoint.parquet")).exists();
        assertThat(dir.resolve("_delta_log/00000000000000000006.checkpoint.parquet")).exists();
        assertThat(dir.resolve("_delta_log/00000000000000000004.checkpoint.parquet"))
                .doesNotExist();
    }

    /**
     * Another writer appends rows with keys of this checkpoint after it was merged: the committer
     * merges the partition again, so that the checkpoint's changes win over the appended rows.
     */
    @Test
    void rowsAnotherWriterAppendedAfterTheMergeAreMergedAgainst() {
        try (UpsertHarness harness = open()) {
            for (long id = 0; id < 10; id++) {
                harness.upsert(id, "initial");
            }
            harness.commit();

            harness.upsert(5L, "ours");
            harness.delete(7L, null);
            List<PartitionWriteResult> results = harness.prepare();
            ForeignWriter.append(
                    location(),
                    ITEMS.toSchema(),
                    PartitionValues.UNPARTITIONED,
                    List.of(
                            new Object[] {5L, "theirs"},
                            new Object[] {7L, "theirs"},
                            new Object[] {11L, "theirs"}),
                    ForeignWriter.Statistics.EXACT);
            CommitOutcome outcome = harness.commitPrepared(harness.lastCheckpoint(), results);

            assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(outcome.remergedPartitions()).isEqualTo(1);
            List<Object[]> expected = new ArrayList<>();
            for (long id = 0; id < 10; id++) {
                if (id != 5 && id != 7) {
                    expected.add(new Object[] {id, "initial"});
                }
            }
            expected.add(new Object[] {5L, "ours"});
            expected.add(new Object[] {11L, "theirs"});
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected));
            assertNoOrphanDataFiles(harness);
        }
    }

    /**
     * Another writer rewrote the files this checkpoint planned to remove: the checkpoint is merged
     * again against the rewritten file instead of removing files that are gone.
     */
    @Test
    void filesAnotherWriterCompactedAfterTheMergeAreMergedAgainst() {
        try (UpsertHarness harness = open()) {
            for (long first = 0; first < 30; first += 10) {
                for (long id = first; id < first + 10; id++) {
                    harness.upsert(id, "initial");
                }
                harness.commit();
            }

            harness.upsert(15L, "ours");
            harness.delete(25L, null);
            List<PartitionWriteResult> results = harness.prepare();
            assertThat(results.get(0).removedFiles()).hasSize(2);
            ForeignWriter.compact(location(), ITEMS.toSchema());
            CommitOutcome outcome = harness.commitPrepared(harness.lastCheckpoint(), results);

            assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(outcome.remergedPartitions()).isEqualTo(1);
            assertThat(outcome.stats().filesRemoved()).isEqualTo(1);
            List<Object[]> expected = new ArrayList<>();
            for (long id = 0; id < 30; id++) {
                if (id != 15 && id != 25) {
                    expected.add(new Object[] {id, "initial"});
                }
            }
            expected.add(new Object[] {15L, "ours"});
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected));
            assertNoOrphanDataFiles(harness);
        }
    }

    /**
     * Every data file on disk was added by some commit: the survivor files of the first merge,
     * replaced by the re-merge, were deleted rather than left behind — by the writer, once it saw
     * the commit (here at the next checkpoint, which has nothing to merge).
     */
    private void assertNoOrphanDataFiles(UpsertHarness harness) {
        harness.prepare();
        List<String> onDisk = new ArrayList<>();
        try (var files = java.nio.file.Files.list(dir)) {
            files.filter(path -> path.toString().endsWith(".parquet"))
                    .forEach(path -> onDisk.add(path.getFileName().toString()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        List<String> everAdded = new ArrayList<>();
        for (long version = 1; version <= KernelTableReader.latestVersion(location()); version++) {
            String json = readLog(version);
            for (String name : onDisk) {
                if (json.contains("\"add\":{\"path\":\"" + name)) {
                    everAdded.add(name);
                }
            }
        }
        assertThat(onDisk).containsExactlyInAnyOrderElementsOf(everAdded);
    }

    private String readLog(long version) {
        try {
            return java.nio.file.Files.readString(
                    dir.resolve(String.format("_delta_log/%020d.json", version)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private UpsertHarness open() {
        return UpsertHarness.open(location(), ITEMS, MergeOptions.DEFAULTS);
    }

    private String location() {
        return dir.toString();
    }
}
