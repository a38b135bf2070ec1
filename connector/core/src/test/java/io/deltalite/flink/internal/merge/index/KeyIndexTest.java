package io.deltalite.flink.internal.merge.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.ForeignWriter;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The key index is a cache of the table, never the truth: each way it could go stale — another
 * writer removing or rewriting files, adding rows or a deletion vector, a restart to an older
 * checkpoint — must reach the merge, which would otherwise leave a duplicate or revive a row. The
 * index runs without validation here, so that its own answer is what the table shows.
 */
class KeyIndexTest {
    /** Orders by id, partitioned by day. */
    private static final TableDefinition BY_DAY =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                            new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    @TempDir Path dir;

    /** Items {@code (id BIGINT NOT NULL, v STRING)} by id; deletion vectors in their mode. */
    static TableDefinition items(WriteMode mode) {
        return new TableDefinition(
                List.of(
                        new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                        new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                List.of("id"),
                List.of(),
                Map.of(
                        "delta.enableDeletionVectors",
                        Boolean.toString(mode == WriteMode.DELETION_VECTORS)));
    }

    private static MergeOptions indexed(WriteMode mode) {
        return MergeOptions.DEFAULTS
                .withWriteMode(mode)
                .withKeyIndex(new KeyIndexOptions(KeyIndexMode.ON, 64L << 20, false));
    }

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void rowsAnotherWriterMovedIntoNewFilesAreFoundThere(WriteMode mode) {
        try (UpsertHarness writer = open(mode)) {
            List<Object[]> expected = seed(writer);
            assertThat(indexedKeys(writer)).isEqualTo(30);

            // Another engine compacts the table: every row now lives in a file the index never saw.
            ForeignWriter.compact(location(), items(mode).toSchema());
            writer.upsert(5L, "after compaction");
            writer.delete(25L, null);
            UpsertStats stats = writer.commit().stats();

            replace(expected, 5L, "after compaction");
            expected.removeIf(row -> (Long) row[0] == 25L);
            assertThat(Rows.sorted(writer.read())).isEqualTo(Rows.sorted(expected));
            assertThat(stats.rowsUpdated()).isEqualTo(1);
            assertThat(stats.rowsDeleted()).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aDuplicateAnotherWriterAppendedIsReplacedToo(WriteMode mode) {
        try (UpsertHarness writer = open(mode)) {
            List<Object[]> expected = seed(writer);
            ForeignWriter.append(
                    location(),
                    items(mode).toSchema(),
                    PartitionValues.UNPARTITIONED,
                    List.<Object[]>of(new Object[] {7L, "duplicate"}, new Object[] {40L, "new"}),
                    ForeignWriter.Statistics.EXACT);

            writer.upsert(7L, "ours");
            writer.upsert(40L, "ours too");
            writer.commit();

            replace(expected, 7L, "ours");
            expected.add(new Object[] {40L, "ours too"});
            assertThat(Rows.sorted(writer.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    /** Another deltalite job deletes a key with a deletion vector on a file the index holds. */
    @org.junit.jupiter.api.Test
    void aRowAnotherWriterDeletedWithAVectorIsNotCountedAsReplaced() {
        WriteMode mode = WriteMode.DELETION_VECTORS;
        try (UpsertHarness writer = open(mode)) {
            List<Object[]> expected = seed(writer);
            try (UpsertHarness other =
                    UpsertHarness.open(location(), items(mode), indexed(mode), "other-job")) {
                other.delete(12L, null);
                other.commit();
            }

            writer.upsert(12L, "back");
            writer.upsert(13L, "changed");
            UpsertStats stats = writer.commit().stats();

            replace(expected, 12L, "back");
            replace(expected, 13L, "changed");
            assertThat(Rows.sorted(writer.read())).isEqualTo(Rows.sorted(expected));
            assertThat(stats.rowsInserted()).isEqualTo(1);
            assertThat(stats.rowsUpdated()).isEqualTo(1);
        }
    }

    /**
     * A writer restarted from an older checkpoint: the results of the checkpoint it had prepared
     * after it are gone, and the table's rows are where the last commit put them.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aWriterRestartedFromAnOlderCheckpointIndexesTheTableAsItIs(WriteMode mode) {
        try (UpsertHarness writer = open(mode)) {
            List<Object[]> expected = seed(writer);
            long restored = writer.lastCheckpoint();
            writer.upsert(3L, "never committed");
            writer.prepare(); // the job fails before this checkpoint completes

            try (UpsertHarness restarted = UpsertHarness.restarted(writer, 0, restored)) {
                restarted.upsert(3L, "after restart");
                restarted.upsert(4L, "after restart");
                restarted.commitAs(restored + 1);
            }
            replace(expected, 3L, "after restart");
            replace(expected, 4L, "after restart");
            assertThat(Rows.sorted(writer.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    /** Keys updated again and again keep one row each, whatever files they moved through. */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void keysUpdatedEveryCheckpointKeepOneRow(WriteMode mode) {
        // With validation: every merge also reads the files and must agree with the index.
        MergeOptions validated =
                indexed(mode).withKeyIndex(new KeyIndexOptions(KeyIndexMode.ON, 64L << 20, true));
        try (UpsertHarness writer = UpsertHarness.open(location(), items(mode), validated)) {
            List<Object[]> expected = seed(writer);
            for (int round = 0; round < 8; round++) {
                for (long id = round % 3; id < 30; id += 3) {
                    writer.upsert(id, "round " + round);
                    replace(expected, id, "round " + round);
                }
                if (round == 4) {
                    writer.delete(1L, null);
                    expected.removeIf(row -> (Long) row[0] == 1L);
                }
                writer.commit();
            }
            assertThat(Rows.sorted(writer.read())).isEqualTo(Rows.sorted(expected));
            KeyIndex.Stats stats = writer.writer().keyIndex().stats();
            assertThat(stats.hits()).isPositive();
        }
    }

    /**
     * A writer's first merge of a partition builds its index from the files (a bootstrap, which the
     * metrics count apart: builds, their rows, time and rate); later merges only follow the files
     * they have not seen, which counts as reading but not as a build.
     */
    @Test
    void aBuildIsCountedApartFromTheFollowsAfterIt() {
        try (UpsertHarness seeding = open(WriteMode.COPY_ON_WRITE)) {
            seed(seeding);
        }
        try (UpsertHarness writer = open(WriteMode.COPY_ON_WRITE)) {
            writer.upsert(5L, "after the start");
            writer.commit();
            KeyIndex.Stats built = writer.writer().keyIndex().stats();
            assertThat(built.builds()).isEqualTo(1);
            assertThat(built.buildRows()).isEqualTo(30);
            assertThat(built.buildRowsPerSecond()).isPositive();
            assertThat(built.rowsRead()).isEqualTo(built.buildRows());

            writer.upsert(6L, "later");
            writer.commit();
            KeyIndex.Stats followed = writer.writer().keyIndex().stats();
            assertThat(followed.builds()).isEqualTo(1);
            assertThat(followed.buildRows()).isEqualTo(30);
            assertThat(followed.rowsRead()).isGreaterThan(built.rowsRead());
        }
    }

    /**
     * A table of locations near its next doubling is doubled between checkpoints — at the
     * partition's first change after a merge, on the writer's background thread — not by the next
     * merge, which would move every key inside the checkpoint (a second per 15–20 million keys).
     */
    @Test
    void anIndexNearItsNextDoublingGrowsBetweenCheckpointsNotInTheMerge() {
        try (UpsertHarness writer = open(WriteMode.DELETION_VECTORS)) {
            List<Object[]> expected = new ArrayList<>();
            // 1,500 keys: a table of 2,048 slots, which doubles past 1,536 keys.
            for (long id = 0; id < 1_500; id++) {
                writer.upsert(id, "v" + id);
                expected.add(new Object[] {id, "v" + id});
            }
            writer.commit();
            long next = 1_500;
            for (int checkpoint = 2; checkpoint <= 3; checkpoint++) {
                for (int i = 0; i < 20; i++, next++) {
                    writer.upsert(next, "new");
                    expected.add(new Object[] {next, "new"});
                }
                writer.commit();
            }
            KeyIndex index = writer.writer().keyIndex();
            PartitionValues partition = PartitionValues.UNPARTITIONED;
            assertThat(index.slotsOf(partition))
                    .as("1,520 keys after the third merge: one merge of 20 keys from doubling")
                    .isEqualTo(2_048);
            assertThat(index.stats().grownAhead()).isZero();
            int growths = index.growthsOf(partition);

            // The first change after that merge doubles the table ahead of the next merge, which
            // then finds room for the keys it brings.
            writer.upsert(next, "new");
            expected.add(new Object[] {next, "new"});
            writer.upsert(3L, "updated");
            replace(expected, 3L, "updated");
            writer.commit();
            assertThat(index.stats().grownAhead()).isEqualTo(1);
            assertThat(index.slotsOf(partition)).isEqualTo(4_096);
            assertThat(index.growthsOf(partition))
                    .as("one growth, the one ahead: none in the merge")
                    .isEqualTo(growths + 1);
            assertThat(index.stats().hits()).isPositive();
            assertThat(Rows.sorted(writer.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    /**
     * Growing a table ahead is charged for as many rows as the last merge brought — all rows of a
     * fold's output, whose keys the index holds already, as the merge is charged for them before it
     * reads them — so that a next merge bringing such a fold again still finds room near the
     * budget. Grown ahead at a charge for the last merge's new keys alone, that merge found no room
     * beside the grown table and dropped the index (its merges then probe, and it is built again).
     */
    @Test
    void growingAheadNearTheBudgetLeavesRoomForTheNextMergesFold() {
        long indexBytes = indexBytesNearADoublingAfterAFold(dir.resolve("roomy"), 64L << 20);
        // Room for the next merge as it would be without growing ahead (the index as it is, and
        // at most 48 bytes per row of the fold it brings), not for a doubled table beside that.
        long budget = indexBytes + 48L * 1_520 + 8_192;
        String tight = dir.resolve("tight").toString();
        List<Object[]> expected = new ArrayList<>();
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.COPY_ON_WRITE)
                        .withKeyIndex(new KeyIndexOptions(KeyIndexMode.ON, budget, false));
        try (UpsertHarness writer =
                UpsertHarness.open(tight, items(WriteMode.COPY_ON_WRITE), options)) {
            nearADoublingAfterAFold(writer, tight, expected);
            KeyIndex index = writer.writer().keyIndex();
            assertThat(index.stats().fallbacks()).isZero();

            writer.upsert(3L, "updated");
            replace(expected, 3L, "updated");
            ForeignWriter.compact(tight, items(WriteMode.COPY_ON_WRITE).toSchema());
            writer.commit();

            assertThat(index.stats().fallbacks())
                    .as("the merge after growing ahead kept its index")
                    .isZero();
            assertThat(index.stats().partitions()).isEqualTo(1);
            assertThat(index.stats().hits()).isPositive();
            assertThat(Rows.sorted(writer.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    /** The index's bytes once {@link #nearADoublingAfterAFold} wrote into {@code table}. */
    private static long indexBytesNearADoublingAfterAFold(Path table, long budget) {
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.COPY_ON_WRITE)
                        .withKeyIndex(new KeyIndexOptions(KeyIndexMode.ON, budget, false));
        try (UpsertHarness writer =
                UpsertHarness.open(table.toString(), items(WriteMode.COPY_ON_WRITE), options)) {
            nearADoublingAfterAFold(writer, table.toString(), new ArrayList<>());
            return writer.writer().keyIndex().stats().memoryBytes();
        }
    }

    /**
     * 1,480 keys, 20 more, another engine's compaction, 20 more: the last merge brought the
     * compaction's file of 1,500 rows, 20 of them new keys; the table of 2,048 slots holds 1,500
     * keys and will likely double at the next merge (past 1,536 keys).
     */
    private static void nearADoublingAfterAFold(
            UpsertHarness writer, String table, List<Object[]> expected) {
        long next = 0;
        for (int batch : new int[] {1_480, 20, 20}) {
            if (next == 1_500) {
                ForeignWriter.compact(table, items(WriteMode.COPY_ON_WRITE).toSchema());
            }
            for (int i = 0; i < batch; i++, next++) {
                writer.upsert(next, "v" + next);
                expected.add(new Object[] {next, "v" + next});
            }
            writer.commit();
        }
        KeyIndex index = writer.writer().keyIndex();
        assertThat(index.slotsOf(PartitionValues.UNPARTITIONED)).isEqualTo(2_048);
        assertThat(index.stats().keys()).isEqualTo(1_500);
    }

    /**
     * Files that leave the index and come back holding the same keys — another engine's compaction
     * here, a fold of small files in the sink's own checkpoints — take no more room than before:
     * the index does not reserve for their rows as if they were new keys, which doubled its table
     * (inside the checkpoint, a second per 15–20 million keys) at every large enough fold.
     */
    @Test
    void filesRewrittenWithTheSameKeysDoNotGrowTheIndexTable() {
        try (UpsertHarness writer = open(WriteMode.COPY_ON_WRITE)) {
            List<Object[]> expected = new ArrayList<>();
            for (long id = 0; id < 1_500; id++) {
                writer.upsert(id, "v" + id);
                expected.add(new Object[] {id, "v" + id});
            }
            writer.commit();
            writer.upsert(1L, "once");
            replace(expected, 1L, "once");
            writer.commit();
            KeyIndex index = writer.writer().keyIndex();
            PartitionValues partition = PartitionValues.UNPARTITIONED;
            assertThat(index.slotsOf(partition)).isEqualTo(2_048);
            int growths = index.growthsOf(partition);

            ForeignWriter.compact(location(), items(WriteMode.COPY_ON_WRITE).toSchema());
            writer.upsert(7L, "after the compaction");
            replace(expected, 7L, "after the compaction");
            writer.commit();

            assertThat(index.slotsOf(partition))
                    .as("1,500 keys in files that replaced files of the same 1,500 keys")
                    .isEqualTo(2_048);
            assertThat(index.growthsOf(partition)).isEqualTo(growths);
            assertThat(Rows.sorted(writer.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    /**
     * The writers of one TaskManager share one budget for their indexes (an eighth of the heap):
     * each writer's index is charged against it, and a writer that closes gives its share back.
     */
    @Test
    void writersOfOneJvmChargeOneSharedBudgetAndAClosedWriterGivesItsShareBack() {
        MergeOptions indexed = indexed(WriteMode.COPY_ON_WRITE);
        try (UpsertHarness first =
                UpsertHarness.open(
                        dir.resolve("first").toString(), items(WriteMode.COPY_ON_WRITE), indexed)) {
            seed(first);
            KeyIndex firstIndex = first.writer().keyIndex();
            assertThat(firstIndex.stats().memoryBytes()).isPositive();
            assertThat(firstIndex.charged())
                    .isGreaterThanOrEqualTo(firstIndex.stats().memoryBytes());
            KeyIndex secondIndex;
            try (UpsertHarness second =
                    UpsertHarness.open(
                            dir.resolve("second").toString(),
                            items(WriteMode.COPY_ON_WRITE),
                            indexed)) {
                seed(second);
                secondIndex = second.writer().keyIndex();
                assertThat(secondIndex.charged())
                        .isGreaterThanOrEqualTo(secondIndex.stats().memoryBytes())
                        .isPositive();
                assertThat(KeyIndex.chargedInThisJvm())
                        .isGreaterThanOrEqualTo(firstIndex.charged() + secondIndex.charged());
            }
            assertThat(secondIndex.charged()).isZero();
            assertThat(secondIndex.stats().partitions()).isZero();
            assertThat(firstIndex.charged()).isPositive();
        }
    }

    /**
     * Two partitions whose indexes do not fit the budget together, merged in turn: a partition
     * whose index was dropped to make room is probed at its next merge and indexed again only at
     * the one after, instead of being rebuilt at every merge (which reads more than a probe).
     */
    @Test
    void partitionsThatPassTheBudgetTogetherAreNotRebuiltAtEveryMerge() {
        int rows = 1_000;
        // Room for one partition's index (about 48 bytes a row while it is built), not two.
        MergeOptions tight =
                MergeOptions.DEFAULTS.withKeyIndex(
                        new KeyIndexOptions(KeyIndexMode.ON, 80L * rows, false));
        try (UpsertHarness writer = UpsertHarness.open(location(), BY_DAY, tight)) {
            for (String day : List.of("a", "b")) {
                for (long id = 0; id < rows; id++) {
                    writer.upsert(id, day, "initial");
                }
            }
            writer.commit();
            int merges = 6;
            for (int merge = 0; merge < merges; merge++) {
                String day = merge % 2 == 0 ? "a" : "b";
                writer.upsert((long) merge, day, "merge " + merge);
                writer.commit();
            }
            KeyIndex.Stats stats = writer.writer().keyIndex().stats();
            // Rebuilt at every merge, the index would read a partition's rows at each (6,000).
            // Dropped partitions are probed once instead: two builds and a file the last merge
            // rewrote, read when the still-indexed partition follows it, make 4,000.
            assertThat(stats.rowsRead()).isLessThanOrEqualTo((long) rows * merges * 2 / 3);
            assertThat(stats.fallbacks()).isPositive();
            List<Object[]> table = writer.read();
            assertThat(table).hasSize(2 * rows);
            assertThat(table)
                    .filteredOn(row -> "merge 5".equals(row[2]))
                    .singleElement()
                    .satisfies(row -> assertThat(row[1]).isEqualTo("b"));
        }
    }

    /**
     * Room for one partition's index: a partition whose index is being read while another partition
     * is charged is not dropped to make room (its arrays stay alive until its read ends, and
     * dropping it would only stop counting them); the other partition is merged without an index.
     * Once the read ended, the other may take its place.
     */
    @Test
    void aPartitionWhoseIndexIsBeingReadIsNotDroppedForAnother() throws Exception {
        int rows = 1_000;
        try (UpsertHarness writer = UpsertHarness.open(location(), BY_DAY, MergeOptions.DEFAULTS)) {
            for (String day : List.of("a", "b")) {
                for (long id = 0; id < rows; id++) {
                    writer.upsert(id, day, "initial");
                }
            }
            writer.commit();
            PartitionValues a = new PartitionValues(java.util.Arrays.asList((Object) "a"));
            PartitionValues b = new PartitionValues(java.util.Arrays.asList((Object) "b"));
            Map<PartitionValues, List<io.deltalite.flink.internal.merge.value.DataFile>> live =
                    writer.table().latestSnapshot().allLiveFiles();
            java.util.concurrent.CountDownLatch reading =
                    new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release =
                    new java.util.concurrent.CountDownLatch(1);
            io.deltalite.flink.internal.merge.table.DataFileStore blocking =
                    new io.deltalite.flink.testing.DefaultPathsStore(writer.table().files()) {
                        @Override
                        public long readKeyIdentities(
                                io.deltalite.flink.internal.merge.value.DataFile file,
                                List<ValueType> keyTypes,
                                io.deltalite.flink.internal.merge.table.KeyIdentitySink sink) {
                            if (live.get(a).contains(file)) {
                                reading.countDown();
                                try {
                                    release.await();
                                } catch (InterruptedException e) {
                                    throw new IllegalStateException(e);
                                }
                            }
                            return super.readKeyIdentities(file, keyTypes, sink);
                        }
                    };
            // Room for one partition's index (48 bytes a row charged while it is read), not two.
            KeyIndex index =
                    new KeyIndex(
                            blocking,
                            new io.deltalite.flink.internal.merge.probe.ParallelFileWork(null),
                            writer.table().schema().matchKeyTypes(),
                            new KeyIndexOptions(KeyIndexMode.ON, 80L * rows, false),
                            true,
                            location());
            java.util.concurrent.ExecutorService reader =
                    java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                java.util.concurrent.Future<PartitionKeyIndex> first =
                        reader.submit(() -> index.follow(a, live.get(a)));
                reading.await();

                assertThat(index.follow(b, live.get(b)))
                        .as("b's index while a's is being read")
                        .isNull();
                release.countDown();
                assertThat(first.get()).as("a's index").isNotNull();
                assertThat(index.stats().partitions()).isEqualTo(1);
                assertThat(index.stats().fallbacks()).isEqualTo(1);

                assertThat(index.follow(b, live.get(b)))
                        .as("b's index once a's read ended")
                        .isNotNull();
                assertThat(index.stats().partitions()).isEqualTo(1);
            } finally {
                release.countDown();
                reader.shutdownNow();
                index.close();
            }
        }
    }

    /**
     * A row replaced by its update leaves its old location behind: in deletion-vector mode the old
     * row is marked deleted, copy-on-write rewrites its file. The index then keeps the key's one
     * live location, not both (a key with several locations costs a hundred bytes more).
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void anUpdatedKeyKeepsOneLocationInTheIndex(WriteMode mode) {
        int rows = 1_000;
        MergeOptions options =
                indexed(mode).withKeyIndex(new KeyIndexOptions(KeyIndexMode.ON, 64L << 20, true));
        try (UpsertHarness writer = UpsertHarness.open(location(), items(mode), options)) {
            for (long id = 0; id < rows; id++) {
                writer.upsert(id, "initial");
            }
            writer.commit();
            writer.upsert(0L, "first change");
            writer.commit();
            long before = writer.writer().keyIndex().stats().memoryBytes();

            for (int round = 0; round < 3; round++) {
                for (long id = round; id < rows; id += 2) {
                    writer.upsert(id, "round " + round);
                }
                writer.commit();
            }
            writer.upsert(1L, "last");
            writer.commit();

            KeyIndex.Stats stats = writer.writer().keyIndex().stats();
            assertThat(stats.keys()).isEqualTo(rows);
            // A key kept in the side map costs more than 64 bytes; a grown table 16 a slot.
            assertThat(stats.memoryBytes() - before)
                    .as("bytes the index grew by, over 1,500 updated rows")
                    .isLessThan(64L * 1_500);
            assertThat(writer.read()).hasSize(rows);
        }
    }

    private UpsertHarness open(WriteMode mode) {
        return UpsertHarness.open(location(), items(mode), indexed(mode));
    }

    private static long indexedKeys(UpsertHarness harness) {
        return harness.writer().keyIndex().stats().keys();
    }

    /** Keys 0..29 in three files of ten, then one more merge, so that the index is built. */
    private static List<Object[]> seed(UpsertHarness harness) {
        List<Object[]> rows = new ArrayList<>();
        for (long first = 0; first < 30; first += 10) {
            for (long id = first; id < first + 10; id++) {
                harness.upsert(id, "initial");
                rows.add(new Object[] {id, "initial"});
            }
            harness.commit();
        }
        harness.upsert(29L, "initial");
        harness.commit();
        return rows;
    }

    private static void replace(List<Object[]> rows, long id, String value) {
        rows.removeIf(row -> (Long) row[0] == id);
        rows.add(new Object[] {id, value});
    }

    private String location() {
        return dir.toString();
    }
}
