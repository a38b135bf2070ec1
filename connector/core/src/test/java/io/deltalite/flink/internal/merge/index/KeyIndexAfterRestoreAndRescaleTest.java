package io.deltalite.flink.internal.merge.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A job restored or rescaled meets a table that its writers' key indexes have not seen as it is: a
 * restore goes back behind checkpoints the old writers had indexed (committed and prepared ones), a
 * rescale gives each writer other keys. The index of a writer is therefore built from the table as
 * it is when the writer first merges, never taken over from the writer it replaces: each test here
 * fails if a restored or rescaled writer trusted the index of the writer of the same subtask before
 * it. The index runs from the first merge and without validation, so that its own answer is what
 * the table shows; the model is the changelog's last change per key.
 */
class KeyIndexAfterRestoreAndRescaleTest {
    @TempDir Path dir;

    private final Map<Long, String> model = new TreeMap<>();

    private static TableDefinition items(WriteMode mode) {
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

    /** The index from the first merge, unvalidated; no compaction, so files are marked. */
    private static MergeOptions indexed(WriteMode mode) {
        return MergeOptions.DEFAULTS
                .withWriteMode(mode)
                .withCompaction(CompactionOptions.DISABLED)
                .withKeyIndex(new KeyIndexOptions(KeyIndexMode.ON, 64L << 20, false));
    }

    /** A change of the changelog: an upsert, or a delete when {@code value} is null. */
    private record Change(long id, String value) {
        static Change upsert(long id, String value) {
            return new Change(id, value);
        }

        static Change delete(long id) {
            return new Change(id, null);
        }
    }

    /**
     * A job commits checkpoints after the savepoint it is later restored from, and prepares two
     * more before it fails; the job restored from the savepoint (a new app id, as the sink gives an
     * older savepoint's restore) replays the changelog from the savepoint on. Its writer's index
     * must be of the table as it is — holding the rows the checkpoints after the savepoint moved
     * and deleted, and none of the prepared checkpoints' files and marks — else a replayed upsert
     * misses the live row of its key and the table holds the key twice.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aJobRestoredFromASavepointOlderThanTheTableIndexesTheTableAsItIs(WriteMode mode) {
        List<List<Change>> sinceSavepoint =
                List.of(
                        List.of(
                                Change.upsert(3, "a"),
                                Change.upsert(13, "a"),
                                Change.delete(23),
                                Change.upsert(40, "new")),
                        List.of(
                                Change.upsert(3, "b"),
                                Change.upsert(14, "b"),
                                Change.delete(4),
                                Change.upsert(41, "new")),
                        // Prepared, never committed: the job fails before these checkpoints end.
                        List.of(
                                Change.upsert(5, "replayed"),
                                Change.delete(6),
                                Change.upsert(15, "replayed")),
                        List.of(Change.upsert(5, "replayed again"), Change.upsert(16, "replayed")));
        List<Change> afterRestore =
                List.of(
                        Change.upsert(3, "after restore"),
                        Change.upsert(23, "back"),
                        Change.upsert(6, "back"),
                        Change.upsert(40, "after restore"),
                        Change.upsert(25, "after restore"));
        try (UpsertHarness first = UpsertHarness.open(location(), items(mode), indexed(mode))) {
            for (long from = 0; from < 30; from += 10) {
                List<Change> seed = new ArrayList<>();
                for (long id = from; id < from + 10; id++) {
                    seed.add(Change.upsert(id, "initial"));
                }
                apply(first, seed);
                first.commit();
            }
            // The savepoint the job is restored from is taken here.
            apply(first, sinceSavepoint.get(0));
            first.commit();
            apply(first, sinceSavepoint.get(1));
            first.commit();
            // The merge of the second prepared checkpoint brings the index to the first one's
            // files and marks.
            apply(first, sinceSavepoint.get(2));
            first.prepare();
            apply(first, sinceSavepoint.get(3));
            first.prepare();
            assertThat(first.writer().keyIndex().stats().hits())
                    .as("rows the first job's index located")
                    .isPositive();

            try (UpsertHarness restored =
                    UpsertHarness.open(location(), items(mode), indexed(mode), "restored")) {
                for (List<Change> replayed : sinceSavepoint) {
                    apply(restored, replayed);
                }
                restored.commit();
                apply(restored, afterRestore);
                restored.commit();
                assertThat(restored.writer().keyIndex().stats().hits())
                        .as("rows the restored job's index located")
                        .isPositive();
            }
        }
        assertTableIsTheModel();
    }

    /**
     * Four writers distributed by key write the table, each indexing its own key range's files
     * (another writer's files cannot hold its keys, so it never reads them); the job is rescaled to
     * two writers, each owning the key groups of two writers before. A writer's index must hold the
     * files of every key it owns now — else an upsert of a key of the other former range inserts a
     * second row.
     */
    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void writersRescaledByKeyIndexTheFilesOfEveryKeyTheyNowOwn(WriteMode mode) {
        DeltaTable table = DeltaTable.open(location(), Map.of(), indexed(mode), items(mode), true);
        try (KeyedJob four = new KeyedJob(table, indexed(mode), "at-four", 4)) {
            List<Change> seed = new ArrayList<>();
            for (long id = 0; id < 80; id++) {
                seed.add(Change.upsert(id, "initial"));
            }
            four.commit(seed);
            List<Change> updates = new ArrayList<>();
            for (long id = 0; id < 80; id += 3) {
                updates.add(Change.upsert(id, "at four"));
            }
            updates.add(Change.delete(10));
            four.commit(updates);
            four.commit(List.of(Change.upsert(1, "at four again"), Change.upsert(2, "x")));
            assertThat(four.hits()).as("rows the four writers' indexes located").isPositive();
        }
        assertTableIsTheModel();

        // Restored from a savepoint at parallelism two: a new job, other key ranges.
        DeltaTable reopened =
                DeltaTable.open(location(), Map.of(), indexed(mode), items(mode), true);
        try (KeyedJob two = new KeyedJob(reopened, indexed(mode), "at-two", 2)) {
            // First only the keys of the first writer (the groups of the first two writers at
            // four), so that no other writer's result in the checkpoint makes the committer merge
            // the partition again; then every key.
            List<Change> firstWritersKeys = new ArrayList<>();
            for (long id = 0; id < 80; id++) {
                if (id % 4 < 2) {
                    firstWritersKeys.add(
                            id % 7 == 0 ? Change.delete(id) : Change.upsert(id, "at two"));
                }
            }
            two.commit(firstWritersKeys);
            List<Change> everyKey = new ArrayList<>();
            for (long id = 0; id < 80; id += 2) {
                everyKey.add(Change.upsert(id, "at two again"));
            }
            everyKey.add(Change.upsert(10, "back"));
            two.commit(everyKey);
            assertThat(two.hits()).as("rows the two writers' indexes located").isPositive();
        }
        assertTableIsTheModel();
    }

    /**
     * Writers of one sink distributed by key: of {@value #GROUPS} key groups (a key's group is its
     * id modulo {@value #GROUPS}), each writer owns a contiguous range, as Flink assigns them.
     */
    private final class KeyedJob implements AutoCloseable {
        private static final int GROUPS = 4;

        private final List<MergeWriter> writers = new ArrayList<>();
        private final CheckpointCommitter committer;
        private final String appId;
        private long checkpoint;

        KeyedJob(DeltaTable table, MergeOptions options, String appId, int parallelism) {
            this.appId = appId;
            int perWriter = GROUPS / parallelism;
            for (int writer = 0; writer < parallelism; writer++) {
                KeyGroups keys =
                        new KeyGroups(
                                "0000000b",
                                writer * perWriter,
                                (writer + 1) * perWriter - 1,
                                GROUPS);
                writers.add(
                        new MergeWriter(
                                table,
                                options,
                                appId,
                                writer,
                                parallelism,
                                1,
                                null,
                                WriterShare.keysIn(keys)));
            }
            this.committer =
                    new CheckpointCommitter(
                            table, new PartitionMerger(table, options, null), options, appId, 0);
        }

        void commit(List<Change> changes) {
            int perWriter = GROUPS / writers.size();
            for (Change change : changes) {
                MergeWriter writer = writers.get((int) (change.id() % GROUPS) / perWriter);
                if (change.value() == null) {
                    writer.delete(new Object[] {change.id(), null});
                } else {
                    writer.upsert(new Object[] {change.id(), change.value()});
                }
                applyToModel(change);
            }
            checkpoint++;
            List<PartitionWriteResult> results = new ArrayList<>();
            for (MergeWriter writer : writers) {
                results.addAll(writer.prepare());
                writer.prepared(checkpoint);
            }
            CommitOutcome outcome =
                    committer.commit(new CheckpointResults(appId, checkpoint, results));
            assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
        }

        long hits() {
            long hits = 0;
            for (MergeWriter writer : writers) {
                hits += writer.keyIndex().stats().hits();
            }
            return hits;
        }

        @Override
        public void close() {
            writers.forEach(MergeWriter::close);
        }
    }

    private void apply(UpsertHarness harness, List<Change> changes) {
        for (Change change : changes) {
            if (change.value() == null) {
                harness.delete(change.id(), null);
            } else {
                harness.upsert(change.id(), change.value());
            }
            applyToModel(change);
        }
    }

    private void applyToModel(Change change) {
        if (change.value() == null) {
            model.remove(change.id());
        } else {
            model.put(change.id(), change.value());
        }
    }

    private void assertTableIsTheModel() {
        List<Object[]> expected = new ArrayList<>();
        model.forEach((id, value) -> expected.add(new Object[] {id, value}));
        assertThat(Rows.sorted(KernelTableReader.readAll(location())))
                .isEqualTo(Rows.sorted(expected));
    }

    private String location() {
        return dir.toString();
    }
}
