package io.deltalite.flink.internal.merge.commit;

import static io.deltalite.flink.testing.WriterCheckpoints.JOB;
import static io.deltalite.flink.testing.WriterCheckpoints.checkpoint;
import static io.deltalite.flink.testing.WriterCheckpoints.committer;
import static io.deltalite.flink.testing.WriterCheckpoints.ordersByDay;
import static io.deltalite.flink.testing.WriterCheckpoints.prepare;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteInvalidInputException;
import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.ResultCodec;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Key-only deletes (PostgreSQL's REPLICA IDENTITY DEFAULT) on a table partitioned outside its key,
 * when the row is another writer's and not committed yet: the writer of the delete cannot see it,
 * so the committer, which sees every writer's results, fails the commit rather than leave the row.
 */
class KeyOnlyDeletesAcrossWritersTest {

    /** Flink's key groups of two writers distributed by key, and of one writer before a rescale. */
    private static final KeyGroups ALL = new KeyGroups("0000000a", 0, 127, 128);

    private static final KeyGroups LOWER = new KeyGroups("0000000a", 0, 63, 128);

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aKeyOnlyDeleteOfARowAnotherWriterInsertsInTheSameCheckpointFailsTheCommit(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        DeltaTable table = open(mode, options);
        MergeWriter seeder = writer(table, options, 0);
        seeder.upsert(new Object[] {2L, "2024-06-01", 20});
        committer(table, options).commit(checkpoint(1, prepare(seeder, 1)));
        long before = KernelTableReader.latestVersion(dir.toString());

        // Distributed by partition: the insert goes to the writer of 2024-06-02, the key-only
        // delete (it names the null partition) to the writer of the null partition.
        MergeWriter inserting = writer(table, options, 0);
        MergeWriter deleting = writer(table, options, 1);
        inserting.upsert(new Object[] {1L, "2024-06-02", 10});
        inserting.upsert(new Object[] {3L, "2024-06-01", 30});
        deleting.delete(new Object[] {1L, null, null});
        List<PartitionWriteResult> results = new ArrayList<>(prepare(inserting, 2));
        results.addAll(prepare(deleting, 2));

        assertThatThrownBy(() -> committer(table, options).commit(checkpoint(2, results)))
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining("A delete of key (id=1) carries nothing but its key")
                .hasMessageContaining("names partition day=null")
                .hasMessageContaining("partition day='2024-06-02' holds that key")
                .hasMessageContaining("REPLICA IDENTITY FULL")
                .hasMessageContaining(
                        "Checkpoint 2 of app job was not committed: nothing of it is in the table")
                .hasMessageContaining("another writer of the sink");

        assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(before);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {2L, "2024-06-01", 20})));
    }

    /**
     * The check comes after the committer merged a changed partition again: the files that re-merge
     * wrote are deleted with the failed attempt, as after any failed attempt; only the writers'
     * files of the checkpoint stay (theirs to delete, noted in the journal).
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aFailedCheckLeavesNoFileOfTheCommittersReMerges(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        DeltaTable table = open(mode, options);
        MergeWriter seeder = writer(table, options, 0);
        for (long id = 2; id <= 5; id++) {
            seeder.upsert(new Object[] {id, "2024-06-01", (int) id});
        }
        committer(table, options).commit(checkpoint(1, prepare(seeder, 1)));
        MergeWriter updating = writer(table, options, 0);
        MergeWriter inserting = writer(table, options, 1);
        MergeWriter deleting = writer(table, options, 2);
        updating.upsert(new Object[] {3L, "2024-06-01", 33});
        inserting.upsert(new Object[] {1L, "2024-06-02", 10});
        deleting.delete(new Object[] {1L, null, null});
        List<PartitionWriteResult> results = new ArrayList<>(prepare(updating, 2));
        results.addAll(prepare(inserting, 2));
        results.addAll(prepare(deleting, 2));
        // Another job changes 2024-06-01 after the merges: the committer merges it again.
        MergeWriter outsider = new MergeWriter(table, options, "outsider", 0, 1, 1, null);
        outsider.upsert(new Object[] {4L, "2024-06-01", 44});
        List<PartitionWriteResult> outside = outsider.prepare();
        outsider.prepared(1);
        committer(table, options).commit(new CheckpointResults("outsider", 1, outside));
        long before = KernelTableReader.latestVersion(dir.toString());

        assertThatThrownBy(() -> committer(table, options).commit(checkpoint(2, results)))
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining("partition day='2024-06-02' holds that key");

        assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(before);
        java.util.Set<String> writers = new java.util.HashSet<>();
        for (PartitionWriteResult result : results) {
            result.writtenPaths()
                    .forEach(path -> writers.add(path.substring(path.lastIndexOf('/') + 1)));
        }
        assertThat(writers).as("the writers' files").isNotEmpty();
        assertThat(io.deltalite.flink.testing.DeltaHistory.uncommittedDataFiles(dir))
                .as("files no version took: the writers' only")
                .isNotEmpty()
                .allSatisfy(name -> assertThat(writers).contains(name));
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(
                        Rows.sorted(
                                List.of(
                                        new Object[] {2L, "2024-06-01", 2},
                                        new Object[] {3L, "2024-06-01", 3},
                                        new Object[] {4L, "2024-06-01", 44},
                                        new Object[] {5L, "2024-06-01", 5})));
    }

    @Test
    void aKeyOnlyDeleteOfARowAnotherWritersEarlierUncommittedCheckpointInsertedFailsTheCommit() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter inserting = writer(table, options, 0);
        MergeWriter deleting = writer(table, options, 1);
        inserting.upsert(new Object[] {1L, "2024-06-02", 10});
        List<PartitionWriteResult> first = prepare(inserting, 1);
        // The next checkpoint is merged before the first is committed: its writer sees no row.
        deleting.delete(new Object[] {1L, null, null});
        List<PartitionWriteResult> second = prepare(deleting, 2);
        CheckpointCommitter committer = committer(table, options);
        committer.commit(checkpoint(1, first));
        long before = KernelTableReader.latestVersion(dir.toString());

        assertThatThrownBy(() -> committer.commit(checkpoint(2, second)))
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining("A delete of key (id=1) carries nothing but its key")
                .hasMessageContaining("partition day='2024-06-02' holds that key");

        assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(before);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "2024-06-02", 10})));
    }

    /**
     * Distributed by key, after a rescale: the writer that had all keys inserted the row into the
     * null partition in a checkpoint not committed yet; the writer now owning the key gets its
     * key-only delete. The partition changed since the delete was merged, so the committer merges
     * it again with the checkpoint's deleted keys, and the row goes.
     */
    @Test
    void aKeyOnlyDeleteOfARowOfAnotherWriterOfTheSamePartitionIsMergedAgainAndDeleted() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter before = sharingWriter(table, options, 0, ALL);
        MergeWriter after = sharingWriter(table, options, 0, LOWER);
        before.upsert(new Object[] {1L, null, null});
        before.upsert(new Object[] {2L, "2024-06-01", 20});
        List<PartitionWriteResult> first = prepare(before, 1);
        after.delete(new Object[] {1L, null, null});
        List<PartitionWriteResult> second = prepare(after, 2);
        assertThat(second)
                .singleElement()
                .satisfies(result -> assertThat(result.stats().rowsDeleted()).isZero());
        // The job attempt after the rescale restored checkpoint 1: its writers' key groups
        // overlap those of the attempt that prepared it.
        CheckpointCommitter committer =
                new CheckpointCommitter(
                        table, new PartitionMerger(table, options, null), options, JOB, 1);
        committer.commit(checkpoint(1, first));

        CommitOutcome outcome = committer.commit(checkpoint(2, second));

        assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
        assertThat(outcome.remergedPartitions()).isEqualTo(1);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {2L, "2024-06-01", 20})));
    }

    /**
     * Distributed by key, after a rescale: the writer that had all keys inserted the row into
     * another partition in a checkpoint not committed yet; the writer now owning the key gets its
     * key-only delete. Results of writers that share partitions are combined by the committer, and
     * the combination keeps the unmatched deletes.
     */
    @Test
    void aKeyOnlyDeleteAfterARescaleOfARowTheOldWriterInsertedElsewhereFailsTheCommit() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter before = sharingWriter(table, options, 0, ALL);
        MergeWriter after = sharingWriter(table, options, 0, LOWER);
        before.upsert(new Object[] {1L, "2024-06-02", 10});
        List<PartitionWriteResult> first = prepare(before, 1);
        after.delete(new Object[] {1L, null, null});
        after.upsert(new Object[] {2L, null, 20});
        List<PartitionWriteResult> second = prepare(after, 2);
        CheckpointCommitter committer =
                new CheckpointCommitter(
                        table, new PartitionMerger(table, options, null), options, JOB, 1);
        committer.commit(checkpoint(1, first));
        long committed = KernelTableReader.latestVersion(dir.toString());

        assertThatThrownBy(() -> committer.commit(checkpoint(2, second)))
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining("A delete of key (id=1) carries nothing but its key")
                .hasMessageContaining("partition day='2024-06-02' holds that key");

        assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(committed);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "2024-06-02", 10})));
    }

    /** Deletes merged early (the buffer filled up) and those of the last merge are all checked. */
    @Test
    void theUnmatchedKeyOnlyDeletesOfEveryMergeOfACheckpointAreChecked() {
        MergeOptions options = MergeOptions.DEFAULTS.withMaxBufferedBytes(4096);
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter inserting = writer(table, options, 0);
        MergeWriter deleting = writer(table, options, 1);
        for (long id = 1; id < 400; id++) {
            deleting.delete(new Object[] {id, null, null});
        }
        inserting.upsert(new Object[] {5L, "2024-06-02", 50});
        List<PartitionWriteResult> results = new ArrayList<>(prepare(inserting, 1));
        results.addAll(prepare(deleting, 1));
        assertThat(results.get(1).unmatchedKeyOnlyDeletes().count())
                .as("the key-only deletes of all merges")
                .isEqualTo(399);

        assertThatThrownBy(() -> committer(table, options).commit(checkpoint(1, results)))
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining("A delete of key (id=5) carries nothing but its key")
                .hasMessageContaining("partition day='2024-06-02' holds that key");
        assertThat(KernelTableReader.readAll(dir.toString())).isEmpty();
    }

    @Test
    void aKeyOnlyDeleteOfAKeyNoPartitionHoldsCommits() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter inserting = writer(table, options, 0);
        MergeWriter deleting = writer(table, options, 1);
        inserting.upsert(new Object[] {1L, "2024-06-02", 10});
        deleting.delete(new Object[] {99L, null, null});
        List<PartitionWriteResult> results = new ArrayList<>(prepare(inserting, 1));
        results.addAll(prepare(deleting, 1));

        CommitOutcome outcome = committer(table, options).commit(checkpoint(1, results));

        assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "2024-06-02", 10})));
    }

    /**
     * The check is of the table after the version: a row this very commit deletes from the other
     * partition (a whole delete by its writer, in the same checkpoint) holds no key any more.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aKeyOnlyDeleteOfARowAnotherWriterDeletesInTheSameCheckpointCommits(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        DeltaTable table = open(mode, options);
        MergeWriter inserting = writer(table, options, 0);
        MergeWriter deleting = writer(table, options, 1);
        inserting.upsert(new Object[] {1L, "2024-06-02", 10});
        inserting.upsert(new Object[] {2L, "2024-06-02", 20});
        List<PartitionWriteResult> first = prepare(inserting, 1);
        deleting.delete(new Object[] {1L, null, null});
        List<PartitionWriteResult> second = prepare(deleting, 2);
        CheckpointCommitter committer = committer(table, options);
        committer.commit(checkpoint(1, first));
        // The writer of 2024-06-02 deletes the row with its whole image in the same checkpoint.
        inserting.delete(new Object[] {1L, "2024-06-02", 10});
        List<PartitionWriteResult> results = new ArrayList<>(second);
        results.addAll(prepare(inserting, 2));

        CommitOutcome outcome = committer.commit(checkpoint(2, results));

        assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {2L, "2024-06-02", 20})));
    }

    /** A merge's key-only deletes that found no row travel with its result. */
    @Test
    void aResultCarriesItsUnmatchedKeyOnlyDeletesButNotTheFoundOnes() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter writer = writer(table, options, 0);
        writer.upsert(new Object[] {5L, null, null});
        committer(table, options).commit(checkpoint(1, prepare(writer, 1)));

        writer.delete(new Object[] {5L, null, null});
        writer.delete(new Object[] {6L, null, null});
        writer.delete(new Object[] {7L, null, 3});
        PartitionWriteResult result = prepare(writer, 2).get(0);

        assertThat(result.deletedKeys().count()).isEqualTo(3);
        assertThat(result.unmatchedKeyOnlyDeletes().inline())
                .extracting(key -> key.values().get(0))
                .containsExactly(6L);
    }

    /**
     * A checkpoint restored from state (its results encoded as Flink keeps them) is checked as
     * well; results of an older layout decode with no unmatched key-only deletes.
     */
    @Test
    void aRestoredCheckpointWithAnUnmatchedKeyOnlyDeleteIsCheckedAndOldLayoutsDecodeWithNone()
            throws IOException {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter inserting = writer(table, options, 0);
        MergeWriter deleting = writer(table, options, 1);
        inserting.upsert(new Object[] {1L, "2024-06-02", 10});
        deleting.delete(new Object[] {1L, null, null});
        List<PartitionWriteResult> results = new ArrayList<>(prepare(inserting, 1));
        results.addAll(prepare(deleting, 1));

        List<PartitionWriteResult> restored =
                decode(encode(results, ResultCodec.LAYOUT), ResultCodec.LAYOUT);
        assertThat(restored).isEqualTo(results);
        assertThatThrownBy(
                        () ->
                                new CheckpointCommitter(
                                                table,
                                                new PartitionMerger(table, options, null),
                                                options,
                                                "job-after-restore",
                                                1)
                                        .commit(checkpoint(1, restored)))
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining("partition day='2024-06-02' holds that key");
        assertThat(KernelTableReader.readAll(dir.toString())).isEmpty();

        // Layout 4 ended a result with its compaction; layout 5 adds the unmatched key-only
        // deletes, which are none here: an empty inline list and an empty staged list.
        PartitionWriteResult insert = results.get(0);
        assertThat(insert.unmatchedKeyOnlyDeletes()).isEqualTo(DeletedKeys.NONE);
        byte[] layout5 = encode(List.of(insert), 5);
        byte[] layout4 = java.util.Arrays.copyOf(layout5, layout5.length - 8);
        assertThat(decode(layout4, 4)).containsExactly(insert);
        assertThat(encode(List.of(insert), 4)).isEqualTo(layout4);
    }

    /**
     * Past the inline limit the unmatched key-only deletes are staged in a key file: still checked
     * by the committer, and the file is deleted with the checkpoint's other staged files.
     */
    @Test
    void manyUnmatchedKeyOnlyDeletesAreStagedCheckedAndTheirFileDeletedOnceCommitted() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter inserting = writer(table, options, 0);
        MergeWriter deleting = writer(table, options, 1);
        int many = DeletedKeys.INLINE_LIMIT + 50;
        for (long id = 1000; id < 1000 + many; id++) {
            deleting.delete(new Object[] {id, null, null});
        }
        inserting.upsert(new Object[] {1000L + many - 1, "2024-06-02", 10});
        List<PartitionWriteResult> results = new ArrayList<>(prepare(inserting, 1));
        results.addAll(prepare(deleting, 1));
        PartitionWriteResult deletes = results.get(1);
        assertThat(deletes.unmatchedKeyOnlyDeletes().staged()).hasSize(1);
        assertThat(deletes.writtenPaths())
                .containsAll(deletes.unmatchedKeyOnlyDeletes().stagedPaths());

        assertThatThrownBy(() -> committer(table, options).commit(checkpoint(1, results)))
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining("(id=" + (1000L + many - 1) + ")")
                .hasMessageContaining("partition day='2024-06-02' holds that key");
        assertThat(KernelTableReader.readAll(dir.toString())).isEmpty();

        // Without the insert the same deletes commit, and their writer deletes the staged files.
        MergeWriter again = writer(table, options, 2);
        for (long id = 1000; id < 1000 + many; id++) {
            again.delete(new Object[] {id, null, null});
        }
        List<PartitionWriteResult> alone = prepare(again, 2);
        List<String> staged = alone.get(0).unmatchedKeyOnlyDeletes().stagedPaths();
        assertThat(staged)
                .hasSize(1)
                .allSatisfy(path -> assertThat(table.files().exists(path)).isTrue());
        committer(table, options).commit(checkpoint(2, alone));
        again.upsert(new Object[] {1L, "2024-06-03", 1});
        committer(table, options).commit(checkpoint(3, prepare(again, 3)));
        assertThat(staged).allSatisfy(path -> assertThat(table.files().exists(path)).isFalse());
    }

    /**
     * Orders keyed by region and id, partitioned by region and day: a key-only delete names its
     * region (a key column) and the null day, and only the partitions of that region can hold its
     * key. The same id in another region is another row.
     */
    private static TableDefinition regionalOrders() {
        return new TableDefinition(
                List.of(
                        new ValueType.Field("region", ValueType.of(Kind.STRING), false),
                        new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                        new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                        new ValueType.Field("amount", ValueType.of(Kind.INT), true)),
                List.of("region", "id"),
                List.of("region", "day"),
                Map.of("delta.enableDeletionVectors", "true"));
    }

    @Test
    void aKeyOnlyDeleteOfAnAbsentKeyCommitsWhileAnotherWriterInsertsItsIdInAnotherRegion() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table =
                DeltaTable.open(dir.toString(), Map.of(), options, regionalOrders(), true);
        MergeWriter inserting = writer(table, options, 0);
        MergeWriter deleting = writer(table, options, 1);
        inserting.upsert(new Object[] {"us", 5L, "2024-06-02", 50});
        deleting.delete(new Object[] {"eu", 5L, null, null});
        List<PartitionWriteResult> results = new ArrayList<>(prepare(inserting, 1));
        results.addAll(prepare(deleting, 1));

        CommitOutcome outcome = committer(table, options).commit(checkpoint(1, results));

        assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(
                        Rows.sorted(List.<Object[]>of(new Object[] {"us", 5L, "2024-06-02", 50})));
    }

    @Test
    void aKeyOnlyDeleteOfARowAnotherWriterInsertsInItsRegionFailsTheCommit() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table =
                DeltaTable.open(dir.toString(), Map.of(), options, regionalOrders(), true);
        MergeWriter inserting = writer(table, options, 0);
        MergeWriter deleting = writer(table, options, 1);
        inserting.upsert(new Object[] {"us", 5L, "2024-06-02", 50});
        inserting.upsert(new Object[] {"eu", 5L, "2024-06-03", 60});
        deleting.delete(new Object[] {"eu", 5L, null, null});
        List<PartitionWriteResult> results = new ArrayList<>(prepare(inserting, 1));
        results.addAll(prepare(deleting, 1));

        assertThatThrownBy(() -> committer(table, options).commit(checkpoint(1, results)))
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining("names partition region='eu'/day=null")
                .hasMessageContaining("partition region='eu'/day='2024-06-03' holds that key");
        assertThat(KernelTableReader.readAll(dir.toString())).isEmpty();
    }

    @Test
    void aKeyOnlyDeleteOfAnAbsentKeyDeletesNothingWhenAnotherRegionHoldsItsId() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table =
                DeltaTable.open(dir.toString(), Map.of(), options, regionalOrders(), true);
        MergeWriter writer = writer(table, options, 0);
        writer.upsert(new Object[] {"us", 5L, "2024-06-02", 50});
        CheckpointCommitter committer = committer(table, options);
        committer.commit(checkpoint(1, prepare(writer, 1)));

        writer.delete(new Object[] {"eu", 5L, null, null});
        CommitOutcome outcome = committer.commit(checkpoint(2, prepare(writer, 2)));

        assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.NOTHING_TO_COMMIT);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(
                        Rows.sorted(List.<Object[]>of(new Object[] {"us", 5L, "2024-06-02", 50})));
    }

    private static byte[] encode(List<PartitionWriteResult> results, int layout)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            ResultCodec.writeResults(out, results, layout);
        }
        return bytes.toByteArray();
    }

    private static List<PartitionWriteResult> decode(byte[] bytes, int layout) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            return ResultCodec.readResults(in, layout);
        }
    }

    private DeltaTable open(WriteMode mode, MergeOptions options) {
        return DeltaTable.open(dir.toString(), Map.of(), options, ordersByDay(mode), true);
    }

    /** A writer of whole partitions, subtask {@code subtask} of three (distribution partition). */
    private static MergeWriter writer(DeltaTable table, MergeOptions options, int subtask) {
        return new MergeWriter(table, options, JOB, subtask, 3, 1, null);
    }

    private static MergeWriter sharingWriter(
            DeltaTable table, MergeOptions options, int subtask, KeyGroups keys) {
        return new MergeWriter(table, options, JOB, subtask, 2, 1, null, WriterShare.keysIn(keys));
    }
}
