package io.deltalite.flink.internal.merge.rewrite;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.TestDefinitions;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.BuildSample;
import io.deltalite.flink.testing.ParquetFooters;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random upserts and deletes over a few hundred keys in deletion-vector mode, with checkpoints
 * prepared and committed later in runs (so that joined folds are pending while the next checkpoints
 * merge, and are then rewritten as the writer's own files): after every commit the table equals the
 * model, and joined files — several row groups, a deletion vector — were part of the table. With
 * the key index validated against the exact probe at every merge, and without it.
 */
class JoinedFoldsRandomTest {
    private static final TableDefinition ITEMS = TestDefinitions.ITEMS_WITH_VECTORS;

    @TempDir Path dir;

    /** Each index mode with one of the seeds (every pair with {@code -Dtests.all=true}). */
    static List<Arguments> runs() {
        return BuildSample.eachWithOneOf(
                "joined folds at random",
                List.of(KeyIndexMode.ON, KeyIndexMode.OFF),
                List.of(1L, 2L, 3L),
                Arguments::of);
    }

    @ParameterizedTest
    @MethodSource("runs")
    void randomUpsertsAndDeletesKeepTheTableEqualToTheModel(KeyIndexMode mode, long seed) {
        Map<Long, String> model = new TreeMap<>();
        Random random = new Random(seed);
        int joinedSeen = 0;
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.DELETION_VECTORS)
                        .withKeyIndex(KeyIndexOptions.DEFAULTS.withMode(mode).withValidate(true));
        String table = dir.resolve("t").toString();
        try (UpsertHarness harness = UpsertHarness.open(table, ITEMS, options)) {
            List<List<PartitionWriteResult>> pending = new ArrayList<>();
            List<Long> pendingIds = new ArrayList<>();
            for (int checkpoint = 0; checkpoint < 80; checkpoint++) {
                int changes = 1 + random.nextInt(checkpoint < 10 ? 40 : 6);
                for (int i = 0; i < changes; i++) {
                    long id = random.nextInt(300);
                    if (random.nextInt(5) == 0) {
                        harness.delete(id, null);
                        model.remove(id);
                    } else {
                        String value = "c" + checkpoint + "-" + i;
                        harness.upsert(id, value);
                        model.put(id, value);
                    }
                }
                pending.add(harness.prepare());
                pendingIds.add(harness.lastCheckpoint());
                if (random.nextInt(3) != 0) {
                    for (int p = 0; p < pending.size(); p++) {
                        harness.commitPrepared(pendingIds.get(p), pending.get(p));
                    }
                    pending.clear();
                    pendingIds.clear();
                    assertThat(read(table)).as("after checkpoint %d", checkpoint).isEqualTo(model);
                    List<DataFile> live =
                            harness.table()
                                    .latestSnapshot()
                                    .liveFiles(List.of(PartitionValues.UNPARTITIONED))
                                    .get(PartitionValues.UNPARTITIONED);
                    for (DataFile file : live) {
                        if (file.hasDeletionVector()
                                && ParquetFooters.rowGroupRows(file.path()).size() > 1) {
                            joinedSeen++;
                        }
                    }
                }
            }
            for (int p = 0; p < pending.size(); p++) {
                harness.commitPrepared(pendingIds.get(p), pending.get(p));
            }
            assertThat(read(table)).isEqualTo(model);
        }
        assertThat(joinedSeen).as("commits after which a joined file was live").isPositive();
    }

    private static Map<Long, String> read(String table) {
        Map<Long, String> read = new TreeMap<>();
        for (Object[] row : KernelTableReader.readAll(table)) {
            assertThat(read.put((Long) row[0], (String) row[1]))
                    .as("one row of key %s", row[0])
                    .isNull();
        }
        return read;
    }
}
