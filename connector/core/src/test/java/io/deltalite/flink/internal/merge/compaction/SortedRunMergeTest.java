package io.deltalite.flink.internal.merge.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.commit.TestDefinitions;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.testing.DefaultPathsStore;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The merge by key of compaction and folds, on files of a real table. */
class SortedRunMergeTest {
    @TempDir Path dir;

    /**
     * Where deletion vectors leave one live row in sixteen, an output batch of the read batch size
     * would point into sixteen input batches per file; it ends early instead, and the rows still
     * come out complete and in key order.
     */
    @Test
    void sparseLiveRowsEndAnOutputBatchBeforeItHoldsManyInputBatches() {
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withReadBatchSize(16)
                        .withCompaction(CompactionOptions.DISABLED);
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), TestDefinitions.ITEMS, options)) {
            for (long file = 0; file < 3; file++) {
                for (long id = file; id < 3 * 1024; id += 3) {
                    harness.upsert(id, "v" + id);
                }
                harness.commit();
            }
            List<DataFile> files = new ArrayList<>();
            harness.table().latestSnapshot().allLiveFiles().values().forEach(files::addAll);
            assertThat(files).hasSize(3);

            int[] mostSources = {0};
            DefaultPathsStore sparse =
                    new DefaultPathsStore(harness.table().files()) {
                        @Override
                        public BatchStream readRows(DataFile file) {
                            return new EverySixteenthLive(super.readRows(file));
                        }

                        @Override
                        public RowBatch gather(
                                List<? extends RowBatch> sources,
                                int[] from,
                                int[] rows,
                                int count) {
                            mostSources[0] = Math.max(mostSources[0], sources.size());
                            return super.gather(sources, from, rows, count);
                        }
                    };
            List<Long> merged = new ArrayList<>();
            try (SortedRunMerge merge =
                    new SortedRunMerge(
                            sparse,
                            files,
                            io.deltalite.flink.internal.merge.value.RowOrder.of(
                                    harness.table().schema(), List.of()),
                            options.readBatchSize())) {
                while (merge.hasNext()) {
                    RowBatch batch = merge.next();
                    for (int row = 0; row < batch.size(); row++) {
                        if (batch.isLive(row)) {
                            merged.add((Long) batch.rowAt(row)[0]);
                        }
                    }
                }
            }

            List<Long> expected = new ArrayList<>();
            for (long id = 0; id < 3 * 1024; id++) {
                if ((id / 3) % 16 == 0) {
                    expected.add(id);
                }
            }
            assertThat(merged).isEqualTo(expected);
            assertThat(mostSources[0])
                    .as("input batches one output batch points into")
                    .isLessThanOrEqualTo(SortedRunMerge.MAX_SOURCES_PER_FILE * files.size());
        }
    }

    /** A file's batches with only every sixteenth row of the file live. */
    private static final class EverySixteenthLive implements BatchStream {
        private final BatchStream batches;

        EverySixteenthLive(BatchStream batches) {
            this.batches = batches;
        }

        @Override
        public boolean hasNext() {
            return batches.hasNext();
        }

        @Override
        public RowBatch next() {
            RowBatch batch = batches.next();
            boolean[] keep = new boolean[batch.size()];
            for (int row = 0; row < keep.length; row++) {
                keep[row] = batch.positionAt(row) % 16 == 0;
            }
            return batch.retain(keep);
        }

        @Override
        public void close() {
            batches.close();
        }
    }
}
