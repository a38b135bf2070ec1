package io.deltalite.flink.internal.merge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.deltalite.flink.internal.delta.KernelTableReader;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31, item 4: in deletion-vector mode a checkpoint of scattered updates costs what it changes
 * also where the table's files are small (below {@code compaction.small-file-size}), as they are in
 * every partition of a young or finely partitioned table. Judged from the Delta log: which commits
 * carry deletion vectors, and how many unchanged rows each commit copied into new files.
 */
class SmallFileVectorsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The rows of the flink-shared sustained benchmark: {@code (id, part, seq, note)}. */
    static final TableDefinition STEADY =
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

    @Test
    void aScatteredUpdateStreamIntoSmallPartitionsMarksRowsInsteadOfCopyingThePartitions() {
        int checkpoints = 30;
        int recordsPerCheckpoint = 2_000;
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(WriteMode.DELETION_VECTORS);
        Map<Long, Long> model = new TreeMap<>();
        List<CommitCost> costs = new ArrayList<>();
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), STEADY, options)) {
            long index = 0;
            for (int checkpoint = 0; checkpoint < checkpoints; checkpoint++) {
                Set<Long> changed = new HashSet<>();
                for (int i = 0; i < recordsPerCheckpoint; i++, index++) {
                    long id = SteadyChanges.id(index);
                    harness.upsert(id, "p" + id % 4, index, "note-" + index);
                    model.put(id, index);
                    changed.add(id);
                }
                long version = harness.commit().version();
                costs.add(CommitCost.of(DeltaHistory.actions(dir, version), changed.size()));
            }
            assertThat(model.size())
                    .as("the table holds 10,000 rows a partition, every file of them small")
                    .isEqualTo(checkpoints * recordsPerCheckpoint / 2);

            List<CommitCost> lastFifth = costs.subList(checkpoints * 4 / 5, checkpoints);
            assertThat(lastFifth)
                    .as("each commit of the last fifth marks changed rows with deletion vectors")
                    .allSatisfy(cost -> assertThat(cost.vectorsAdded()).isPositive());
            long copied = lastFifth.stream().mapToLong(CommitCost::rowsCopied).sum();
            assertThat(copied / lastFifth.size())
                    .as(
                            "unchanged rows copied per commit in the last fifth, of a table of %,d"
                                    + " rows (all of them: %s)",
                            model.size(), lastFifth)
                    .isLessThan(model.size() / 4);

            Map<Long, Long> read = new TreeMap<>();
            for (Object[] row : KernelTableReader.readAll(dir.toString())) {
                assertThat(read.put((Long) row[0], (Long) row[2])).as("one row per key").isNull();
            }
            assertThat(read).isEqualTo(model);
            assertThat(harness.table().latestSnapshot().allLiveFiles().values())
                    .as("compaction keeps the files of each partition few")
                    .allSatisfy(files -> assertThat(files.size()).isLessThanOrEqualTo(25));
        }
    }

    /**
     * What one commit cost, from its log entry.
     *
     * @param vectorsAdded add actions that give a file a deletion vector
     * @param rowsWritten rows of the new data files that change data (compaction's are not)
     * @param rowsCopied of those, rows of keys the checkpoint did not change
     */
    record CommitCost(long vectorsAdded, long rowsWritten, long rowsCopied) {
        static CommitCost of(List<JsonNode> actions, long changedKeys) {
            long vectors = 0;
            long written = 0;
            for (JsonNode action : actions) {
                JsonNode add = action.get("add");
                if (add == null) {
                    continue;
                }
                JsonNode vector = add.get("deletionVector");
                if (vector != null && !vector.isNull()) {
                    vectors++;
                } else if (add.get("dataChange").asBoolean()) {
                    written += numRecords(add);
                }
            }
            return new CommitCost(vectors, written, written - changedKeys);
        }

        private static long numRecords(JsonNode add) {
            try {
                return JSON.readTree(add.get("stats").asText()).get("numRecords").asLong();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * The changes of the sustained benchmark: record {@code index} inserts the next new key when
     * even, and updates a uniformly random earlier key when odd.
     */
    static final class SteadyChanges {
        private SteadyChanges() {}

        static long id(long index) {
            long inserted = index / 2;
            return index % 2 == 0 || inserted == 0
                    ? inserted
                    : Math.floorMod(index * 0x9E3779B97F4A7C15L, inserted);
        }
    }
}
