package io.deltalite.flink.internal.merge.writer;

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
import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Deletes that carry nothing but their key (PostgreSQL's REPLICA IDENTITY DEFAULT) on a table
 * partitioned outside its key, written by a sink distributed by key: the writer gets every change
 * of its keys, so it deletes the key's row in whatever partition holds it — committed, in a
 * checkpoint not committed yet, merged earlier in the same checkpoint or still buffered — and a key
 * written again after its delete keeps only the new row.
 */
class KeyOnlyDeletesUnderKeyDistributionTest {

    /** Every key group of a sink distributed by key. */
    private static final KeyGroups ALL = new KeyGroups("0000000a", 0, 127, 128);

    /** The lower half, as one of two writers after a rescale from one. */
    private static final KeyGroups LOWER = new KeyGroups("0000000a", 0, 63, 128);

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aKeyOnlyDeleteDeletesTheCommittedRowInThePartitionThatHoldsIt(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        DeltaTable table = open(mode, options);
        MergeWriter writer = writer(table, options, ALL);
        writer.upsert(new Object[] {1L, "2024-06-01", 10});
        writer.upsert(new Object[] {2L, "2024-06-01", 20});
        writer.upsert(new Object[] {3L, "2024-06-02", 30});
        committer(table, options).commit(checkpoint(1, prepare(writer, 1)));

        writer.delete(new Object[] {1L, null, null});
        writer.delete(new Object[] {3L, null, null});
        writer.delete(new Object[] {99L, null, null});
        List<PartitionWriteResult> results = prepare(writer, 2);
        CommitOutcome outcome = committer(table, options).commit(checkpoint(2, results));

        assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
        assertThat(results.stream().mapToLong(result -> result.stats().rowsDeleted()).sum())
                .as("rows deleted")
                .isEqualTo(2);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {2L, "2024-06-01", 20})));
    }

    /** The delete comes after the insert: the buffered upsert becomes the row's delete. */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aKeyOnlyDeleteOfARowInsertedEarlierInTheSameCheckpointLeavesNoRow(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        DeltaTable table = open(mode, options);
        MergeWriter writer = writer(table, options, ALL);
        writer.upsert(new Object[] {1L, "2024-06-01", 10});
        committer(table, options).commit(checkpoint(1, prepare(writer, 1)));

        // updated into another partition (its old row deleted with its whole image), then gone
        writer.delete(new Object[] {1L, "2024-06-01", 10});
        writer.upsert(new Object[] {1L, "2024-06-02", 11});
        writer.upsert(new Object[] {2L, "2024-06-02", 20});
        writer.delete(new Object[] {1L, null, null});
        committer(table, options).commit(checkpoint(2, prepare(writer, 2)));

        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {2L, "2024-06-02", 20})));
    }

    /** A full buffer merged the partition before the delete came: the merged row is deleted. */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aKeyOnlyDeleteOfARowMergedEarlyInTheSameCheckpointLeavesNoRow(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode).withMaxBufferedBytes(4096);
        DeltaTable table = open(mode, options);
        MergeWriter writer = writer(table, options, ALL);
        List<Object[]> expected = new ArrayList<>();
        for (long id = 1; id <= 300; id++) {
            writer.upsert(new Object[] {id, "2024-06-0" + (1 + id % 3), (int) id});
            if (id % 7 != 0) {
                expected.add(new Object[] {id, "2024-06-0" + (1 + id % 3), (int) id});
            }
        }
        for (long id = 7; id <= 300; id += 7) {
            writer.delete(new Object[] {id, null, null});
        }
        committer(table, options).commit(checkpoint(1, prepare(writer, 1)));

        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(expected));
    }

    /**
     * The update of a row whose source sends no before image: a key-only delete, then the new row.
     * A full buffer merges the new row's partition before the delete's: the merged row came after
     * the delete and stays.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aRowWrittenAfterAKeyOnlyDeleteAndMergedEarlyStays(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode).withMaxBufferedBytes(4096);
        DeltaTable table = open(mode, options);
        MergeWriter writer = writer(table, options, ALL);
        writer.upsert(new Object[] {1L, "2024-06-01", 10});
        committer(table, options).commit(checkpoint(1, prepare(writer, 1)));

        List<Object[]> expected = new ArrayList<>();
        writer.delete(new Object[] {1L, null, null});
        writer.upsert(new Object[] {1L, "2024-06-01", 11});
        expected.add(new Object[] {1L, "2024-06-01", 11});
        for (long id = 2; id <= 200; id++) {
            writer.upsert(new Object[] {id, "2024-06-01", (int) id});
            expected.add(new Object[] {id, "2024-06-01", (int) id});
        }
        committer(table, options).commit(checkpoint(2, prepare(writer, 2)));

        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(expected));
    }

    /**
     * An update that moves the row into the partition a key-only delete names (its partition column
     * becomes empty): the delete, then the new row there. The old row goes.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aKeyWrittenIntoTheEmptyPartitionAfterItsKeyOnlyDeleteLeavesNoOldRow(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        DeltaTable table = open(mode, options);
        MergeWriter writer = writer(table, options, ALL);
        writer.upsert(new Object[] {1L, "2024-06-01", 10});
        committer(table, options).commit(checkpoint(1, prepare(writer, 1)));

        writer.delete(new Object[] {1L, null, null});
        writer.upsert(new Object[] {1L, null, 5});
        committer(table, options).commit(checkpoint(2, prepare(writer, 2)));

        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, null, 5})));
    }

    /** The insert's checkpoint is not committed yet when the delete's is merged. */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aKeyOnlyDeleteOfARowOfAPendingCheckpointLeavesNoRow(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        DeltaTable table = open(mode, options);
        MergeWriter writer = writer(table, options, ALL);
        writer.upsert(new Object[] {1L, "2024-06-01", 10});
        writer.upsert(new Object[] {2L, "2024-06-01", 20});
        List<PartitionWriteResult> first = prepare(writer, 1);
        writer.delete(new Object[] {1L, null, null});
        List<PartitionWriteResult> second = prepare(writer, 2);
        CheckpointCommitter committer = committer(table, options);
        committer.commit(checkpoint(1, first));
        committer.commit(checkpoint(2, second));

        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {2L, "2024-06-01", 20})));
    }

    /**
     * Deleted by key, then written again into another partition in the same checkpoint: only the
     * new row stays, and the committer does not count it as a row the delete left.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aKeyDeletedByKeyThenWrittenAgainElsewhereKeepsOnlyTheNewRow(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        DeltaTable table = open(mode, options);
        MergeWriter writer = writer(table, options, ALL);
        writer.upsert(new Object[] {1L, "2024-06-01", 10});
        writer.upsert(new Object[] {2L, "2024-06-03", 20});
        committer(table, options).commit(checkpoint(1, prepare(writer, 1)));

        writer.delete(new Object[] {1L, null, null});
        writer.upsert(new Object[] {1L, "2024-06-02", 11});
        writer.delete(new Object[] {2L, null, null});
        writer.upsert(new Object[] {2L, "2024-06-03", 21});
        CommitOutcome outcome = committer(table, options).commit(checkpoint(2, prepare(writer, 2)));

        assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(
                        Rows.sorted(
                                List.of(
                                        new Object[] {1L, "2024-06-02", 11},
                                        new Object[] {2L, "2024-06-03", 21})));
    }

    /**
     * After a rescale, the row is in a checkpoint of the writer that had the key before, which the
     * new owner cannot see: the new owner's write of the key into another partition does not hide
     * the old row from the committer, which fails the commit rather than leave two rows of a key.
     */
    @Test
    void aRowTheNewOwnerCannotSeeFailsTheCommitEvenWhenTheKeyIsWrittenAgain() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter before = writer(table, options, ALL);
        MergeWriter after = writer(table, options, LOWER);
        before.upsert(new Object[] {1L, "2024-06-01", 10});
        List<PartitionWriteResult> first = prepare(before, 1);
        after.delete(new Object[] {1L, null, null});
        after.upsert(new Object[] {1L, "2024-06-02", 11});
        List<PartitionWriteResult> second = prepare(after, 2);
        CheckpointCommitter committer =
                new CheckpointCommitter(
                        table, new PartitionMerger(table, options, null), options, JOB, 1);
        committer.commit(checkpoint(1, first));
        long committed = KernelTableReader.latestVersion(dir.toString());

        assertThatThrownBy(() -> committer.commit(checkpoint(2, second)))
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining("A delete of key (id=1) carries nothing but its key")
                .hasMessageContaining("partition day='2024-06-01' holds that key");
        assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(committed);
    }

    /**
     * With the key index on (and checked against the files at every look-up), the rows of key-only
     * deletes are found in the other partitions' indexes, also after another writer deleted some of
     * them and added others between the checkpoints.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void theKeyIndexFindsTheRowsOfKeyOnlyDeletesAndFollowsOtherWriters(WriteMode mode) {
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(mode)
                        .withKeyIndex(
                                io.deltalite.flink.internal.merge.options.KeyIndexOptions.DEFAULTS
                                        .withMode(io.deltalite.flink.sink.KeyIndexMode.ON)
                                        .withValidate(true));
        DeltaTable table = open(mode, options);
        MergeWriter writer = writer(table, options, ALL);
        java.util.TreeMap<Long, Object[]> model = new java.util.TreeMap<>();
        for (long id = 1; id <= 60; id++) {
            Object[] row = {id, "2024-06-0" + (1 + id % 3), (int) id};
            writer.upsert(row);
            model.put(id, row);
        }
        committer(table, options).commit(checkpoint(1, prepare(writer, 1)));
        for (long id = 5; id <= 60; id += 5) {
            writer.delete(new Object[] {id, null, null});
            model.remove(id);
        }
        committer(table, options).commit(checkpoint(2, prepare(writer, 2)));
        long hitsBefore = writer.keyIndex().stats().hits();

        // Another job deletes two rows and moves one between the checkpoints.
        MergeWriter other = new MergeWriter(table, options, "other", 0, 1, 1, null);
        other.delete(new Object[] {1L, "2024-06-02", 1});
        other.delete(new Object[] {2L, "2024-06-03", 2});
        other.delete(new Object[] {3L, "2024-06-01", 3});
        other.upsert(new Object[] {3L, "2024-06-03", 33});
        model.remove(1L);
        model.remove(2L);
        model.put(3L, new Object[] {3L, "2024-06-03", 33});
        List<PartitionWriteResult> outside = other.prepare();
        other.prepared(1);
        new CheckpointCommitter(
                        table, new PartitionMerger(table, options, null), options, "other", 0)
                .commit(new CheckpointResults("other", 1, outside));

        for (long id : new long[] {1, 2, 3, 4, 7}) {
            writer.delete(new Object[] {id, null, null});
            model.remove(id);
        }
        committer(table, options).commit(checkpoint(3, prepare(writer, 3)));

        assertThat(writer.keyIndex().stats().hits())
                .as("look-ups answered by the index")
                .isGreaterThan(hitsBefore);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(new ArrayList<>(model.values())));
    }

    /**
     * Random changes of a few dozen keys over four days and the empty one — inserts, updates in
     * place, moves to another day (the old row deleted with its whole image), whole deletes,
     * key-only deletes, and keys written again after a key-only delete — with a small change buffer
     * (early merges) and checkpoints sometimes prepared before the previous one is committed. After
     * every commit the table equals a model in which each change replaces or removes the key's one
     * row.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void randomChangesWithKeyOnlyDeletesLeaveTheTableEqualToTheModel(WriteMode mode) {
        java.util.Random random = new java.util.Random(20261205L + mode.ordinal());
        MergeOptions options =
                MergeOptions.DEFAULTS.withWriteMode(mode).withMaxBufferedBytes(16 * 1024);
        DeltaTable table = open(mode, options);
        MergeWriter writer = writer(table, options, ALL);
        CheckpointCommitter committer = committer(table, options);
        java.util.Map<Long, Object[]> model = new java.util.TreeMap<>();
        long checkpoint = 0;
        int value = 0;
        while (checkpoint < 24) {
            int pipelined = random.nextInt(4) == 0 ? 2 : 1;
            List<List<PartitionWriteResult>> prepared = new ArrayList<>();
            List<List<String>> expected = new ArrayList<>();
            for (int i = 0; i < pipelined; i++) {
                for (int change = 1 + random.nextInt(120); change > 0; change--) {
                    long id = random.nextInt(48);
                    Object[] row = model.get(id);
                    // an empty day is the partition key-only deletes name
                    String day =
                            random.nextInt(8) == 0 ? null : "2024-06-0" + (1 + random.nextInt(4));
                    int dice = random.nextInt(10);
                    if (row == null || dice < 3) {
                        if (row != null && !java.util.Objects.equals(row[1], day)) {
                            writer.delete(row.clone()); // a move: the old row's whole image
                        }
                        Object[] next = {id, day, ++value};
                        writer.upsert(next.clone());
                        model.put(id, next);
                    } else if (dice < 5) {
                        Object[] next = {id, row[1], ++value};
                        writer.upsert(next.clone());
                        model.put(id, next);
                    } else if (dice < 7) {
                        writer.delete(row.clone());
                        model.remove(id);
                    } else {
                        writer.delete(new Object[] {id, null, null});
                        model.remove(id);
                    }
                }
                prepared.add(prepare(writer, ++checkpoint));
                expected.add(Rows.sorted(new ArrayList<>(model.values())));
            }
            for (int i = 0; i < pipelined; i++) {
                long id = checkpoint - pipelined + 1 + i;
                CommitOutcome outcome = committer.commit(checkpoint(id, prepared.get(i)));
                assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
                assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                        .as("the table after checkpoint %d", id)
                        .isEqualTo(expected.get(i));
            }
        }
    }

    /**
     * Looking up key-only deletes in partitions the writer keeps no index of builds none there (a
     * look-up is not a merge: with {@code auto} the second merge of a partition builds its index),
     * and so drops none another partition may need: only the partition merged twice is indexed, and
     * the look-ups read the other partitions' key columns instead. (A partition that holds such a
     * key is merged, and its merge builds its index as any merge does.)
     */
    @Test
    void lookUpsInOtherPartitionsBuildNoIndex() {
        MergeOptions options =
                MergeOptions.DEFAULTS.withKeyIndex(
                        io.deltalite.flink.internal.merge.options.KeyIndexOptions.DEFAULTS
                                .withValidate(true));
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter writer = writer(table, options, ALL);
        java.util.TreeMap<Long, Object[]> model = new java.util.TreeMap<>();
        for (long id = 0; id < 600; id++) {
            Object[] row = {id, "2024-06-0" + (1 + id / 200), (int) id};
            writer.upsert(row);
            model.put(id, row);
        }
        committer(table, options).commit(checkpoint(1, prepare(writer, 1)));
        // Merged twice with files to look in: 2024-06-01 is indexed from its second.
        for (int checkpoint = 2; checkpoint <= 3; checkpoint++) {
            for (long id = checkpoint; id < 200; id += 10) {
                Object[] row = {id, "2024-06-01", -(int) id};
                writer.upsert(row);
                model.put(id, row);
            }
            committer(table, options).commit(checkpoint(checkpoint, prepare(writer, checkpoint)));
        }
        long rowsRead = writer.keyIndex().stats().rowsRead();

        // Twice, so that with auto a look-up taken for a merge would build the index.
        for (int checkpoint = 4; checkpoint <= 5; checkpoint++) {
            for (long id = checkpoint; id < 200; id += 10) {
                Object[] row = {id, "2024-06-01", -(int) id};
                writer.upsert(row);
                model.put(id, row);
            }
            // Keys no partition holds (never written): looked up in every partition.
            for (long id = 600 + checkpoint; id < 1000; id += 10) {
                writer.delete(new Object[] {id, null, null});
            }
            committer(table, options).commit(checkpoint(checkpoint, prepare(writer, checkpoint)));
        }

        assertThat(writer.keyIndex().stats().partitions()).isEqualTo(1);
        assertThat(writer.keyIndex().stats().rowsRead() - rowsRead)
                .as("rows the index read: the merged partition's new files, no other partition")
                .isLessThan(100);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(new ArrayList<>(model.values())));
    }

    /** A writer of whole partitions cannot tell the order, and fails as before. */
    @Test
    void aWriterOfWholePartitionsStillFailsTheCheckpoint() {
        MergeOptions options = MergeOptions.DEFAULTS;
        DeltaTable table = open(WriteMode.DELETION_VECTORS, options);
        MergeWriter writer = new MergeWriter(table, options, JOB, 0, 1, 1, null);
        writer.upsert(new Object[] {1L, "2024-06-01", 10});
        committer(table, options).commit(checkpoint(1, prepare(writer, 1)));

        writer.delete(new Object[] {1L, null, null});
        assertThatThrownBy(writer::prepare)
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining("partition day='2024-06-01' holds that key");
    }

    private DeltaTable open(WriteMode mode, MergeOptions options) {
        return DeltaTable.open(dir.toString(), Map.of(), options, ordersByDay(mode), true);
    }

    private static MergeWriter writer(DeltaTable table, MergeOptions options, KeyGroups keys) {
        return new MergeWriter(table, options, JOB, 0, 2, 1, null, WriterShare.keysIn(keys));
    }
}
