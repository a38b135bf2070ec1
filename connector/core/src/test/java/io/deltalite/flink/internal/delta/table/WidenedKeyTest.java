package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.PendingCheckpoint;
import io.deltalite.flink.internal.merge.result.ResultCodec;
import io.deltalite.flink.internal.merge.schema.SchemaChange;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A key column widened by another writer (Spark's {@code ALTER TABLE … ALTER COLUMN id TYPE
 * BIGINT}, with type widening) between the checkpoint a job prepared and its restore: the keys the
 * restored state holds — deleted keys inline and in staged files, and the key statistics of its
 * files — keep their old Java type, and must still meet the table's keys, now of the wider one.
 */
class WidenedKeyTest {
    /** A key type, the type another writer widens it to, and a key value of the narrow type. */
    enum Widening {
        SMALLINT_TO_INT(Kind.SMALLINT, Kind.INT, id -> (short) id),
        INT_TO_BIGINT(Kind.INT, Kind.BIGINT, id -> (int) id);

        final Kind from;
        final Kind to;
        final LongFunction<Object> key;

        Widening(Kind from, Kind to, LongFunction<Object> key) {
            this.from = from;
            this.to = to;
            this.key = key;
        }
    }

    private static final MergeOptions OPTIONS =
            MergeOptions.DEFAULTS
                    .withWriteMode(WriteMode.COPY_ON_WRITE)
                    .withCompaction(CompactionOptions.DISABLED);

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(Widening.class)
    void keysWidenedBySomeoneElseStillMeetTheKeysOfARestoredCheckpoint(Widening widening)
            throws IOException {
        TableDefinition narrow =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", ValueType.of(widening.from), false),
                                new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                                new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                        List.of("id"),
                        List.of("day"),
                        Map.of());
        // id -> (day, v): d1 holds 0..499, d2 500..999.
        Map<Long, String[]> model = new TreeMap<>();
        byte[] restoredState;
        long checkpoint;
        try (UpsertHarness job = UpsertHarness.open(dir.toString(), narrow, OPTIONS)) {
            for (long id = 0; id < 1000; id++) {
                String day = id < 500 ? "d1" : "d2";
                job.upsert(widening.key.apply(id), day, "v0");
                model.put(id, new String[] {day, "v0"});
            }
            job.commit();
            // The checkpoint the job prepared before it failed: more deletes in d1 than travel
            // inline (staged in a file), a few inline in d2, and an update.
            for (long id = 0; id < DeletedKeys.INLINE_LIMIT + 44; id++) {
                job.delete(widening.key.apply(id), "d1", "v0");
                model.remove(id);
            }
            for (long id = 500; id < 505; id++) {
                job.delete(widening.key.apply(id), "d2", "v0");
                model.remove(id);
            }
            job.upsert(widening.key.apply(600), "d2", "v1");
            model.put(600L, new String[] {"d2", "v1"});
            List<PartitionWriteResult> prepared = job.prepare();
            checkpoint = job.lastCheckpoint();
            assertThat(prepared)
                    .anySatisfy(r -> assertThat(r.deletedKeys().staged()).isNotEmpty())
                    .anySatisfy(r -> assertThat(r.deletedKeys().inline()).isNotEmpty());
            restoredState = encode(prepared);
        }

        // Spark: ALTER TABLE … ALTER COLUMN id TYPE …, then another job writes into both
        // partitions, so the restored checkpoint has to be merged again.
        widenKey(widening);
        TableDefinition wide =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", ValueType.of(widening.to), false),
                                new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                                new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                        List.of("id"),
                        List.of("day"),
                        Map.of());
        try (UpsertHarness other = UpsertHarness.open(dir.toString(), wide, OPTIONS, "other")) {
            other.upsert(wideKey(widening, 499), "d1", "other");
            other.upsert(wideKey(widening, 999), "d2", "other");
            other.commit();
            model.put(499L, new String[] {"d1", "other"});
            model.put(999L, new String[] {"d2", "other"});
        }

        // The job restarts from its checkpoint with its old DDL; the table now has the wide key.
        try (UpsertHarness restored = UpsertHarness.open(dir.toString(), narrow, OPTIONS)) {
            assertThat(restored.table().schema().column("id").type())
                    .isEqualTo(ValueType.of(widening.to));
            CommitOutcome outcome = restored.commitPrepared(checkpoint, decode(restoredState));
            assertThat(outcome.remergedPartitions()).isEqualTo(2);
            assertThat(outcome.stats().rowsDeleted()).isEqualTo(DeletedKeys.INLINE_LIMIT + 44 + 5);
            List<Object[]> expected = new ArrayList<>();
            model.forEach(
                    (id, row) ->
                            expected.add(new Object[] {wideKey(widening, id), row[0], row[1]}));
            assertThat(Rows.sorted(restored.read())).isEqualTo(Rows.sorted(expected));
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
        }
    }

    /**
     * A writer restored with a checkpoint its state holds as pending: new input merges against the
     * pending checkpoint's files, whose key statistics are of the narrow type.
     */
    @ParameterizedTest
    @EnumSource(Widening.class)
    void keysWidenedBySomeoneElseStillMeetTheStatisticsOfARestoredWritersFiles(Widening widening)
            throws IOException {
        TableDefinition narrow =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", ValueType.of(widening.from), false),
                                new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                                new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                        List.of("id"),
                        List.of("day"),
                        Map.of());
        List<Object[]> expected = new ArrayList<>();
        PendingCheckpoint pending;
        byte[] restoredState;
        try (UpsertHarness job = UpsertHarness.open(dir.toString(), narrow, OPTIONS)) {
            for (long id = 0; id < 10; id++) {
                job.upsert(widening.key.apply(id), "d1", "v0");
                expected.add(new Object[] {wideKey(widening, id), "d1", "v0"});
            }
            job.commit();
            job.upsert(widening.key.apply(20), "d1", "v1");
            job.prepare();
            pending = job.writer().pending().get(0);
            restoredState = encode(pending.results());
        }
        widenKey(widening);

        try (UpsertHarness restored = UpsertHarness.open(dir.toString(), narrow, OPTIONS)) {
            List<PartitionWriteResult> decoded = decode(restoredState);
            restored.writer()
                    .restorePending(
                            List.of(
                                    new PendingCheckpoint(
                                            pending.appId(),
                                            pending.checkpointId(),
                                            pending.journalOwner(),
                                            decoded)));
            // The input, cast to the table's type, updates the key of the pending file.
            restored.upsert(wideKey(widening, 20), "d1", "v2");
            List<PartitionWriteResult> next = restored.prepareAs(pending.checkpointId() + 1);
            restored.commitPrepared(pending.checkpointId(), decoded);
            restored.commitPrepared(pending.checkpointId() + 1, next);
            expected.add(new Object[] {wideKey(widening, 20), "d1", "v2"});
            assertThat(Rows.sorted(restored.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    /** The partition column widened: a restored checkpoint's partition values are narrow. */
    @ParameterizedTest
    @EnumSource(Widening.class)
    void aPartitionColumnWidenedBySomeoneElseStillHoldsTheRestoredCheckpointsChanges(
            Widening widening) throws IOException {
        TableDefinition narrow =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                                new ValueType.Field("p", ValueType.of(widening.from), true),
                                new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                        List.of("id"),
                        List.of("p"),
                        Map.of());
        Map<Long, String> model = new TreeMap<>();
        byte[] restoredState;
        PendingCheckpoint pending;
        try (UpsertHarness job = UpsertHarness.open(dir.toString(), narrow, OPTIONS)) {
            for (long id = 0; id < 10; id++) {
                job.upsert(id, widening.key.apply(1), "v0");
                model.put(id, "v0");
            }
            job.commit();
            job.delete(3L, widening.key.apply(1), "v0");
            model.remove(3L);
            job.upsert(4L, widening.key.apply(1), "v1");
            model.put(4L, "v1");
            List<PartitionWriteResult> prepared = job.prepare();
            pending = job.writer().pending().get(0);
            restoredState = encode(prepared);
        }
        widen("p", widening);
        TableDefinition wide =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                                new ValueType.Field("p", ValueType.of(widening.to), true),
                                new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                        List.of("id"),
                        List.of("p"),
                        Map.of());
        try (UpsertHarness other = UpsertHarness.open(dir.toString(), wide, OPTIONS, "other")) {
            other.upsert(9L, wideKey(widening, 1), "other");
            other.commit();
            model.put(9L, "other");
        }
        // The restored writer holds the checkpoint as pending, and updates a key of its files
        // (which the committer finds in the pending checkpoint's files, once committed).
        try (UpsertHarness restored = UpsertHarness.open(dir.toString(), narrow, OPTIONS)) {
            List<PartitionWriteResult> decoded = decode(restoredState);
            restored.writer()
                    .restorePending(
                            List.of(
                                    new PendingCheckpoint(
                                            pending.appId(),
                                            pending.checkpointId(),
                                            pending.journalOwner(),
                                            decoded)));
            restored.upsert(4L, wideKey(widening, 1), "v2");
            List<PartitionWriteResult> next = restored.prepareAs(pending.checkpointId() + 1);
            restored.commitPrepared(pending.checkpointId(), decoded);
            restored.commitPrepared(pending.checkpointId() + 1, next);
            model.put(4L, "v2");
            List<Object[]> expected = new ArrayList<>();
            model.forEach((id, v) -> expected.add(new Object[] {id, wideKey(widening, 1), v}));
            assertThat(Rows.sorted(restored.read())).isEqualTo(Rows.sorted(expected));
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
        }
    }

    private static Object wideKey(Widening widening, long id) {
        return widening.to == Kind.BIGINT ? (Object) id : (Object) (int) id;
    }

    /** Commits the widened key column as Spark's type widening does (SchemaChangeCommit). */
    private void widenKey(Widening widening) {
        widen("id", widening);
    }

    /** Commits {@code column} widened as Spark's type widening does (SchemaChangeCommit). */
    private void widen(String column, Widening widening) {
        Engine engine = DefaultEngine.create(new Configuration());
        Snapshot snapshot = TableManager.loadSnapshot(dir.toString()).build(engine);
        SchemaChangeCommit.commit(
                snapshot,
                new SchemaChange(
                        List.of(),
                        List.of(),
                        List.of(
                                new SchemaChange.Widening(
                                        column,
                                        ValueType.of(widening.from),
                                        ValueType.of(widening.to))),
                        List.of()),
                List.of(),
                java.util.Map.of(),
                engine,
                dir.toString());
    }

    /** The results as the job's state holds them: encoded, and decoded on restore. */
    private static byte[] encode(List<PartitionWriteResult> results) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            ResultCodec.writeResults(out, results);
        }
        return bytes.toByteArray();
    }

    private static List<PartitionWriteResult> decode(byte[] state) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
            return ResultCodec.readResults(in, ResultCodec.LAYOUT);
        }
    }
}
