package io.deltalite.flink.internal.merge.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.TestDefinitions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint whose changes outgrow the change buffer is merged early, in parts; its statistics
 * still describe the one commit it becomes: each changed key counted once, the files its commit
 * adds and removes.
 */
class EarlyMergeStatsTest {
    private static final TableDefinition ITEMS = TestDefinitions.ITEMS;

    @TempDir Path dir;

    @Test
    void aCheckpointMergedInPartsCountsEachChangeOnce() {
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(), ITEMS, MergeOptions.DEFAULTS.withMaxBufferedBytes(2000))) {
            for (long id = 1; id <= 3; id++) {
                harness.upsert(id, "stored");
            }
            harness.commit();
            Map<String, KernelTableReader.LiveFile> before =
                    KernelTableReader.liveFiles(dir.toString());

            // Keys 1 and 2 change before and after early merges; 4 is new, changed twice.
            harness.upsert(1L, "first");
            harness.delete(2L, null);
            harness.upsert(4L, "first");
            for (long id = 100; id < 130; id++) {
                harness.upsert(id, "filler to fill the buffer");
            }
            harness.upsert(1L, "second");
            harness.upsert(4L, "second");
            UpsertStats stats = harness.commit().stats();

            assertThat(stats.partitionsTouched()).isEqualTo(1);
            assertThat(stats.rowsUpdated()).isEqualTo(1);
            assertThat(stats.rowsDeleted()).isEqualTo(1);
            assertThat(stats.rowsInserted()).isEqualTo(31);
            assertThat(harness.read()).hasSize(33);

            DeltaHistory.Commit commit = DeltaHistory.commits(dir).get((int) stats.version());
            assertThat(stats.filesAdded()).isEqualTo(commit.adds());
            assertThat(stats.filesRemoved()).isEqualTo(commit.removes());
            Map<String, KernelTableReader.LiveFile> after =
                    new HashMap<>(KernelTableReader.liveFiles(dir.toString()));
            long carriedOver = after.keySet().stream().filter(before::containsKey).count();
            assertThat(stats.filesCarriedOver()).isEqualTo(carriedOver);
            after.keySet().removeAll(before.keySet());
            assertThat(stats.bytesWritten())
                    .isEqualTo(after.values().stream().mapToLong(file -> file.size()).sum());
        }
    }
}
