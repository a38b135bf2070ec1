package io.deltalite.e2e.interop;

import static io.deltalite.flink.testing.WriterCheckpoints.checkpoint;
import static io.deltalite.flink.testing.WriterCheckpoints.committer;
import static io.deltalite.flink.testing.WriterCheckpoints.ordersByDay;
import static io.deltalite.flink.testing.WriterCheckpoints.prepare;
import static io.deltalite.flink.testing.WriterCheckpoints.sharingWriter;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.BuildSample;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 31's test grid where the key index meets another engine: writers of a sink distributed by
 * key (two, then three after a rescale), each with its key index on and checked against the exact
 * probe at every merge, share the partitions of a table partitioned outside its key, while Spark's
 * DELETE, UPDATE, MERGE and OPTIMIZE and a second deltalite job change the same files between their
 * checkpoints. Keys move between partitions (update-before, then the new row) and are deleted by
 * their key alone, which the writer of the key resolves in whatever partition holds the row. In
 * both write modes, Spark and Kernel read the table as the model says after every step.
 */
class WritersByKeyBesideSparkTest {
    /** Key groups of the sink; a key's group is fixed, writers own contiguous ranges of them. */
    private static final int GROUPS = 128;

    private static final String SCHEME = "0000000b";

    @TempDir Path dir;

    /** The model: each id's row. */
    private final Map<Long, Object[]> model = new TreeMap<>();

    private final Random random = new Random(31);

    private String table;
    private long checkpointId;

    /** One write mode per build, drawn by {@link BuildSample}; both with {@code -Dtests.all}. */
    static List<WriteMode> modes() {
        return BuildSample.some(
                "WritersByKeyBesideSparkTest",
                List.of(WriteMode.COPY_ON_WRITE, WriteMode.DELETION_VECTORS),
                1);
    }

    @ParameterizedTest
    @MethodSource("modes")
    void writersByKeyFollowSparkAndAnotherJobWithTheirIndexesChecked(WriteMode mode) {
        table = dir.resolve("orders").toString();
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(mode)
                        .withKeyIndex(
                                KeyIndexOptions.DEFAULTS
                                        .withMode(KeyIndexMode.ON)
                                        .withValidate(true));
        DeltaTable deltaTable = DeltaTable.open(table, Map.of(), options, ordersByDay(mode), true);
        List<MergeWriter> writers = writers(deltaTable, options, 2);

        for (long id = 0; id < 3_000; id++) {
            upsert(writers, id, "d" + id % 3, 0);
        }
        commit(deltaTable, options, writers);
        round(deltaTable, options, writers, 1);
        check("after the writers' first rounds");

        SparkDelta.sql("DELETE FROM delta.`" + table + "` WHERE id % 100 = 3");
        model.keySet().removeIf(id -> id % 100 == 3);
        check("after Spark's DELETE");
        round(deltaTable, options, writers, 2);
        check("after the writers followed Spark's DELETE");

        SparkDelta.sql("UPDATE delta.`" + table + "` SET amount = -1 WHERE id % 50 = 7");
        model.replaceAll((id, row) -> id % 50 == 7 ? new Object[] {id, row[1], -1} : row);
        check("after Spark's UPDATE");
        round(deltaTable, options, writers, 3);
        check("after the writers followed Spark's UPDATE");

        // New keys and keys the writers hold, some of them in another partition than Spark's.
        SparkDelta.sql(
                "MERGE INTO delta.`"
                        + table
                        + "` t USING (SELECT id, 'd9' AS day, -2 AS amount FROM range(2950, 3050))"
                        + " s ON t.id = s.id"
                        + " WHEN MATCHED THEN UPDATE SET amount = s.amount"
                        + " WHEN NOT MATCHED THEN INSERT *");
        for (long id = 2950; id < 3050; id++) {
            Object[] before = model.get(id);
            model.put(id, new Object[] {id, before == null ? "d9" : before[1], -2});
        }
        check("after Spark's MERGE");
        round(deltaTable, options, writers, 4);
        check("after the writers followed Spark's MERGE");

        // A second deltalite job, writing whole partitions, adds keys and overwrites rows.
        MergeWriter other = new MergeWriter(deltaTable, options, "other-job", 0, 1, 1, null);
        for (long id = 2990; id < 3100; id += 3) {
            // In the partition that holds the key (a row is its key within its partition).
            String day = model.containsKey(id) ? (String) model.get(id)[1] : "d1";
            other.upsert(new Object[] {id, day, -3});
            model.put(id, new Object[] {id, day, -3});
        }
        List<PartitionWriteResult> otherResults = other.prepare();
        other.prepared(1);
        committer(deltaTable, options).commit(new CheckpointResults("other-job", 1, otherResults));
        check("after a second job's commit");
        round(deltaTable, options, writers, 5);
        check("after the writers followed the second job");

        SparkDelta.sql("OPTIMIZE delta.`" + table + "`");
        check("after Spark's OPTIMIZE");
        round(deltaTable, options, writers, 6);
        check("after the writers followed Spark's OPTIMIZE");

        // Rescaled to three writers: new ranges, empty indexes, files in the old ranges' folders.
        writers.forEach(MergeWriter::close);
        writers = writers(deltaTable, options, 3);
        round(deltaTable, options, writers, 7);
        round(deltaTable, options, writers, 8);
        check("after three writers took over the keys of two");
        assertThat(DeltaHistory.missingReferencedFiles(Path.of(table))).isEmpty();
        writers.forEach(MergeWriter::close);
        other.close();
    }

    /**
     * One checkpoint of scattered changes: updates in place, moves to another partition (the old
     * row's update-before, then the new row, as a CDC source sends them), inserts of new keys, and
     * deletes by key alone (the writer finds the row's partition).
     */
    private void round(
            DeltaTable deltaTable, MergeOptions options, List<MergeWriter> writers, int round) {
        for (int i = 0; i < 300; i++) {
            long id = random.nextInt(3_200);
            Object[] row = model.get(id);
            int pick = random.nextInt(10);
            int amount = round * 1_000 + i;
            if (row == null) {
                upsert(writers, id, "d" + random.nextInt(4), amount);
            } else if (pick < 4) {
                upsert(writers, id, (String) row[1], amount);
            } else if (pick < 8) {
                writerOf(writers, id).delete(row.clone());
                upsert(writers, id, "d" + random.nextInt(4), amount);
            } else {
                writerOf(writers, id).delete(new Object[] {id, null, null});
                model.remove(id);
            }
        }
        commit(deltaTable, options, writers);
    }

    private void upsert(List<MergeWriter> writers, long id, String day, int amount) {
        Object[] row = {id, day, amount};
        writerOf(writers, id).upsert(row);
        model.put(id, row);
    }

    private void commit(DeltaTable deltaTable, MergeOptions options, List<MergeWriter> writers) {
        checkpointId++;
        List<PartitionWriteResult> results = new ArrayList<>();
        for (MergeWriter writer : writers) {
            results.addAll(prepare(writer, checkpointId));
        }
        CommitOutcome outcome =
                committer(deltaTable, options).commit(checkpoint(checkpointId, results));
        assertThat(outcome.status())
                .as("checkpoint %d", checkpointId)
                .isIn(CommitOutcome.Status.COMMITTED, CommitOutcome.Status.NOTHING_TO_COMMIT);
    }

    /** The key group of an id: fixed for the id, spread over the groups. */
    private static int group(long id) {
        return (int) Math.floorMod(id * 0x9E3779B97F4A7C15L >>> 40, GROUPS);
    }

    private static MergeWriter writerOf(List<MergeWriter> writers, long id) {
        return writers.get(group(id) * writers.size() / GROUPS);
    }

    /** Writer {@code i} of {@code count} owns groups {@code [i·G/count, (i+1)·G/count)}. */
    private static List<MergeWriter> writers(DeltaTable table, MergeOptions options, int count) {
        List<MergeWriter> writers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int first = (i * GROUPS + count - 1) / count;
            int last = ((i + 1) * GROUPS + count - 1) / count - 1;
            writers.add(
                    sharingWriter(
                            table, options, i, count, new KeyGroups(SCHEME, first, last, GROUPS)));
        }
        return writers;
    }

    private void check(String when) {
        List<String> expected = Rows.sorted(new ArrayList<>(model.values()));
        sameRows(Rows.sorted(SparkRows.readTable(table)), expected, "Spark reads, " + when);
        sameRows(Rows.sorted(KernelTableReader.readAll(table)), expected, "Kernel reads, " + when);
    }

    /** Equal row lists, or a failure naming the rows missing and the rows too many. */
    private static void sameRows(List<String> read, List<String> expected, String what) {
        List<String> missing = new ArrayList<>(expected);
        missing.removeAll(read);
        List<String> extra = new ArrayList<>(read);
        extra.removeAll(expected);
        assertThat(missing).as("%s: rows missing (too many: %s)", what, extra).isEmpty();
        assertThat(read).as("%s: rows", what).hasSameSizeAs(expected);
    }
}
