package io.deltalite.flink.internal.merge.rewrite;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.delta.table.MetadataCommits;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.commit.TestDefinitions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.ParquetFooters;
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

    @Test
    void aFullTierOfMarkedSmallFilesIsJoinedIntoOneFileThatCarriesTheirDeletedRowsAsAVector()
            throws IOException {
        Map<Long, String> model = new TreeMap<>();
        try (UpsertHarness harness = fullTierOfMarkedFiles(DV_OPTIONS, model)) {
            // One update in the tier: the four files become one, their row groups copied as they
            // are, with a vector that deletes the updated row and the three rows theirs deleted.
            harness.upsert(7L, "again");
            model.put(7L, "again");
            CommitOutcome outcome = harness.commit();

            assertThat(outcome.stats().filesCompacted()).as("a fold, not a compaction").isZero();
            assertThat(outcome.stats().rowsCopied()).isEqualTo(83 - 3 - 1);
            FoldActions fold = FoldActions.of(DeltaHistory.actions(dir, outcome.version()));
            assertThat(fold.removes())
                    .hasSize(4)
                    .allMatch(remove -> remove.get("dataChange").asBoolean());
            assertThat(fold.adds())
                    .as("the upsert file and the joined file, as data changes")
                    .hasSize(2)
                    .allMatch(add -> add.get("dataChange").asBoolean());
            JsonNode joined =
                    fold.adds().stream()
                            .filter(add -> add.hasNonNull("deletionVector"))
                            .findFirst()
                            .orElseThrow(() -> new AssertionError("no add with a vector: " + fold));
            assertThat(joined.get("deletionVector").get("cardinality").asLong()).isEqualTo(4);
            JsonNode stats = JSON.readTree(joined.get("stats").asText());
            assertThat(stats.get("numRecords").asLong())
                    .as("every row of the four files")
                    .isEqualTo(83);
            assertThat(stats.get("tightBounds").asBoolean())
                    .as("bounds of a file with deleted rows are not tight")
                    .isFalse();
            String path = dir.resolve(joined.get("path").asText()).toString();
            assertThat(ParquetFooters.rowGroupRows(path))
                    .as("the four files' row groups, copied")
                    .containsExactlyInAnyOrder(20L, 21L, 21L, 21L);

            Map<String, List<Object[]>> files = KernelTableReader.readByFile(dir.toString());
            assertThat(files.values().stream().mapToInt(List::size).sorted().boxed().toList())
                    .as("live rows per file: the upsert file, the joined file")
                    .containsExactly(1, 79);
            assertThat(readTable()).isEqualTo(model);

            // The joined file is a file like any other: its rows are found, marked and folded.
            harness.upsert(21L, "later");
            model.put(21L, "later");
            harness.commit();
            assertThat(readTable()).isEqualTo(model);
        }
    }

    /**
     * A joined file's vector is only valid while the table allows vectors: a checkpoint whose fold
     * joined files, committed after someone turned deletion vectors off, is merged again
     * copy-on-write — not committed with a vector the table no longer allows, nor refused.
     */
    @Test
    void aJoinedFoldCommittedAfterDeletionVectorsWereTurnedOffIsMergedAgainCopyOnWrite() {
        Map<Long, String> model = new TreeMap<>();
        try (UpsertHarness harness = fullTierOfMarkedFiles(DV_OPTIONS, model)) {
            harness.upsert(7L, "again");
            model.put(7L, "again");
            List<PartitionWriteResult> prepared = harness.prepare();
            assertThat(prepared)
                    .as("the fold joined the tier: a new file that carries a vector")
                    .anySatisfy(
                            result ->
                                    assertThat(result.survivorFiles())
                                            .anyMatch(DataFile::hasDeletionVector));
            long checkpoint = harness.lastCheckpoint();

            CommitOutcome outcome =
                    MetadataCommits.commitAfterVectorsTurnedOff(dir, harness, checkpoint, prepared);
            assertThat(FoldActions.of(DeltaHistory.actions(dir, outcome.version())).adds())
                    .as("no file of the commit carries a vector")
                    .isNotEmpty()
                    .allMatch(add -> !add.hasNonNull("deletionVector"));
            assertThat(readTable()).isEqualTo(model);
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
        }
    }

    @Test
    void aTierWhoseRowsAreTooDeadToJoinIsMergedIntoOneSortedFileWithoutThem() {
        Map<Long, String> model = new TreeMap<>();
        try (UpsertHarness harness = fullTierOfMarkedFiles(DV_OPTIONS, model)) {
            // 20 updates in the tier: with the 3 rows deleted before, 23 of its 83 rows are
            // dead, more than compaction.deleted-rows-threshold (a fifth): the fold merges rows.
            for (long id = 40; id < 60; id++) {
                harness.upsert(id, "again");
                model.put(id, "again");
            }
            CommitOutcome outcome = harness.commit();

            assertThat(outcome.stats().deletionVectorsWritten()).isZero();
            assertThat(outcome.stats().filesCompacted()).as("a fold, not a compaction").isZero();
            assertThat(outcome.stats().rowsCopied()).isEqualTo(83 - 23);
            FoldActions fold = FoldActions.of(DeltaHistory.actions(dir, outcome.version()));
            assertThat(fold.removes())
                    .hasSize(4)
                    .allMatch(remove -> remove.get("dataChange").asBoolean());
            assertThat(fold.adds())
                    .as("the upsert file and the fold's file, with no vector, as data changes")
                    .hasSize(2)
                    .allMatch(add -> add.get("dataChange").asBoolean())
                    .allMatch(add -> add.get("deletionVector") == null);
            Map<String, List<Object[]>> files = KernelTableReader.readByFile(dir.toString());
            assertThat(files.values().stream().mapToInt(List::size).sorted().boxed().toList())
                    .as("rows per file: the upsert file, the fold's file")
                    .containsExactly(20, 60);
            List<Object[]> folded =
                    files.values().stream().filter(rows -> rows.size() == 60).findFirst().get();
            for (int row = 1; row < folded.size(); row++) {
                assertThat((Long) folded.get(row)[0])
                        .as("keys ascend in the folded file")
                        .isGreaterThan((Long) folded.get(row - 1)[0]);
            }
            assertThat(readTable()).isEqualTo(model);
        }
    }

    private static final MergeOptions DV_OPTIONS =
            MergeOptions.DEFAULTS.withWriteMode(WriteMode.DELETION_VECTORS);

    /**
     * A table whose one partition holds a full size tier: four tiny files of 20 new keys each, the
     * last three of them with one row more that updates a key of the file before, which gets a
     * deletion vector (83 rows on disk, 3 of them deleted).
     */
    private UpsertHarness fullTierOfMarkedFiles(MergeOptions options, Map<Long, String> model) {
        UpsertHarness harness =
                UpsertHarness.open(dir.toString(), TestDefinitions.ITEMS_WITH_VECTORS, options);
        for (long checkpoint = 0; checkpoint < 4; checkpoint++) {
            for (long id = checkpoint * 20; id < checkpoint * 20 + 20; id++) {
                harness.upsert(id, "v" + checkpoint);
                model.put(id, "v" + checkpoint);
            }
            if (checkpoint > 0) {
                long earlier = (checkpoint - 1) * 20 + 5;
                harness.upsert(earlier, "updated");
                model.put(earlier, "updated");
            }
            CommitOutcome outcome = harness.commit();
            assertThat(outcome.stats().deletionVectorsWritten())
                    .as("checkpoint %d marks the small file it updates", checkpoint)
                    .isEqualTo(checkpoint > 0 ? 1 : 0);
            assertThat(outcome.stats().rowsCopied()).isZero();
        }
        List<DataFile> tier =
                harness.table()
                        .latestSnapshot()
                        .liveFiles(List.of(PartitionValues.UNPARTITIONED))
                        .get(PartitionValues.UNPARTITIONED);
        assertThat(tier).hasSize(4);
        assertThat(tier.stream().filter(DataFile::hasDeletionVector)).hasSize(3);
        return harness;
    }

    private Map<Long, String> readTable() {
        Map<Long, String> read = new TreeMap<>();
        for (Object[] row : KernelTableReader.readAll(dir.toString())) {
            assertThat(read.put((Long) row[0], (String) row[1])).as("one row per key").isNull();
        }
        return read;
    }

    /** The remove and add actions of one commit. */
    record FoldActions(List<JsonNode> removes, List<JsonNode> adds) {
        static FoldActions of(List<JsonNode> actions) {
            List<JsonNode> removes = new ArrayList<>();
            List<JsonNode> adds = new ArrayList<>();
            for (JsonNode action : actions) {
                if (action.has("remove")) {
                    removes.add(action.get("remove"));
                } else if (action.has("add")) {
                    adds.add(action.get("add"));
                }
            }
            return new FoldActions(removes, adds);
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
