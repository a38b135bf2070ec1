package io.deltalite.flink.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.Compaction;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.PendingCheckpoint;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.value.ColumnStatistics;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.DeletionVectorRef;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.merge.value.StagedKeys;
import io.deltalite.flink.internal.merge.value.ValueCodec;
import io.deltalite.flink.sink.UpsertStats;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The committables and states that Flink keeps round-trip through their serializers, and what the
 * first version wrote stays readable after an upgrade.
 */
class SerializersTest {
    private static final DataFile FILE =
            new DataFile(
                    "file:/t/day=a/1.parquet",
                    1234,
                    1_700_000_000_000L,
                    10,
                    List.of(new ColumnStatistics(1L, 99L, 0)),
                    null,
                    "{\"numRecords\":10}");

    /** A file with a deletion vector stored inline, which the result gives a new one. */
    private static final DataFile MARKED_BEFORE =
            new DataFile(
                    "file:/t/day=a/2.parquet",
                    4321,
                    1_700_000_000_001L,
                    20,
                    List.of(new ColumnStatistics(100L, 199L, 0)),
                    new DeletionVectorRef(
                            "i", "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", -1, 34, 2),
                    "{\"numRecords\":20,\"tightBounds\":false}");

    private static final UpsertStats STATS =
            new UpsertStats(-1, 1, 2, 1, 3, 1, 4, 5, 6, 7, 8, 0, 99, 1, 40, 2, 2400, 5, 3);

    /** Two small files of the partition compacted into one. */
    private static final Compaction COMPACTION =
            new Compaction(
                    List.of(
                            new DataFile(
                                    "file:/t/day=a/3.parquet",
                                    1000,
                                    1_700_000_000_002L,
                                    5,
                                    List.of(new ColumnStatistics(300L, 304L, 0)),
                                    null,
                                    "{\"numRecords\":5}"),
                            new DataFile(
                                    "file:/t/day=a/4.parquet",
                                    1400,
                                    1_700_000_000_003L,
                                    7,
                                    List.of(new ColumnStatistics(305L, 311L, 0)),
                                    null,
                                    "{\"numRecords\":7}")),
                    List.of(
                            new DataFile(
                                    "file:/t/day=a/5.parquet",
                                    1900,
                                    1_700_000_000_004L,
                                    12,
                                    List.of(new ColumnStatistics(300L, 311L, 0)),
                                    null,
                                    "{\"numRecords\":12}")),
                    2400);

    /**
     * The bytes the release before result layout 5 wrote (commit 78e67c8: committables and write
     * results of version 5, writer state of version 4), of the same {@link #result()}: each reads
     * as it was written, with no unmatched key-only deletes. Unlike the cut-down current bytes of
     * the other tests, these come from that release's own serializers.
     */
    @Test
    void theMessagesAndStateOfThePreviousReleaseReadAsTheyWereWritten() throws IOException {
        PartitionWriteResult result = result();

        assertThat(
                        new Serializers.CommittableSerializer()
                                .deserialize(5, previousRelease("committable-v5")))
                .isEqualTo(new CheckpointResults("orders-job-nonce", 12, List.of(result), true));
        assertThat(
                        new Serializers.WriteResultSerializer()
                                .deserialize(5, previousRelease("writeresult-v5")))
                .isEqualTo(new WriteResult("orders-job-nonce", List.of(result), true));
        assertThat(
                        new Serializers.WriterStateSerializer()
                                .deserialize(4, previousRelease("writerstate-v4")))
                .isEqualTo(
                        new WriterState(
                                List.of(
                                        new PendingCheckpoint(
                                                "orders-job-nonce",
                                                12,
                                                AttemptJournal.writer(3),
                                                List.of(result)))));
        assertThat(result.unmatchedKeyOnlyDeletes()).isEqualTo(DeletedKeys.NONE);
    }

    /**
     * The bytes the release before result layout 6 wrote (commit d38b073: committables and write
     * results of version 6, writer state of version 5), of the same {@link #result()}: each reads
     * as it was written, its files without row lineage.
     */
    @Test
    void theMessagesAndStateOfTheReleaseBeforeRowLineageReadAsTheyWereWritten() throws IOException {
        PartitionWriteResult result = result();

        assertThat(
                        new Serializers.CommittableSerializer()
                                .deserialize(6, release("before-layout-6", "committable-v6")))
                .isEqualTo(new CheckpointResults("orders-job-nonce", 12, List.of(result), true));
        assertThat(
                        new Serializers.WriteResultSerializer()
                                .deserialize(6, release("before-layout-6", "writeresult-v6")))
                .isEqualTo(new WriteResult("orders-job-nonce", List.of(result), true));
        assertThat(
                        new Serializers.WriterStateSerializer()
                                .deserialize(5, release("before-layout-6", "writerstate-v5")))
                .isEqualTo(
                        new WriterState(
                                List.of(
                                        new PendingCheckpoint(
                                                "orders-job-nonce",
                                                12,
                                                AttemptJournal.writer(3),
                                                List.of(result)))));
        assertThat(result.removedFiles()).allMatch(file -> file.rowLineage() == null);
    }

    /** A file of a table with row tracking keeps its lineage through every message and state. */
    @Test
    void rowLineageRoundTripsInEveryMessageAndState() throws IOException {
        DataFile tracked =
                new DataFile(
                        FILE.path(),
                        FILE.sizeBytes(),
                        FILE.modificationTime(),
                        FILE.numRecords(),
                        FILE.keyStatistics(),
                        null,
                        FILE.logStatistics(),
                        new io.deltalite.flink.internal.merge.value.RowLineage(4_000_000_000L, 17));
        PartitionWriteResult base = result();
        PartitionWriteResult withLineage =
                new PartitionWriteResult(
                        base.partition(),
                        base.baseVersion(),
                        base.baseFingerprint(),
                        List.of(tracked, MARKED_BEFORE),
                        base.upsertFiles(),
                        base.survivorFiles(),
                        base.vectorFiles(),
                        base.vectorFilePaths(),
                        base.deletedKeys(),
                        base.stats(),
                        base.compaction(),
                        base.unmatchedKeyOnlyDeletes());
        CheckpointResults committable =
                new CheckpointResults("orders-job-nonce", 12, List.of(withLineage), true);
        WriterState state =
                new WriterState(
                        List.of(
                                new PendingCheckpoint(
                                        "orders-job-nonce",
                                        12,
                                        AttemptJournal.writer(0),
                                        List.of(withLineage))));
        Serializers.CommittableSerializer committables = new Serializers.CommittableSerializer();
        Serializers.WriterStateSerializer states = new Serializers.WriterStateSerializer();

        CheckpointResults read =
                committables.deserialize(
                        committables.getVersion(), committables.serialize(committable));
        assertThat(read).isEqualTo(committable);
        assertThat(read.results().get(0).removedFiles().get(0).rowLineage())
                .isEqualTo(
                        new io.deltalite.flink.internal.merge.value.RowLineage(4_000_000_000L, 17));
        assertThat(states.deserialize(states.getVersion(), states.serialize(state)))
                .isEqualTo(state);
        WriteResult writeResult = new WriteResult("orders-job-nonce", List.of(withLineage), true);
        Serializers.WriteResultSerializer writeResults = new Serializers.WriteResultSerializer();
        assertThat(
                        writeResults.deserialize(
                                writeResults.getVersion(), writeResults.serialize(writeResult)))
                .isEqualTo(writeResult);
    }

    private static byte[] previousRelease(String name) throws IOException {
        return release("before-layout-5", name);
    }

    private static byte[] release(String folder, String name) throws IOException {
        String resource = "/serializers/" + folder + "/" + name;
        try (java.io.InputStream in = SerializersTest.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("test resource " + resource);
            }
            return in.readAllBytes();
        }
    }

    private static PartitionWriteResult result() {
        return resultWithoutCompaction().withCompaction(COMPACTION, 5, 3);
    }

    private static PartitionWriteResult resultWithoutCompaction() {
        return new PartitionWriteResult(
                new PartitionValues(List.of("a")),
                41,
                "3:abc",
                List.of(FILE, MARKED_BEFORE),
                List.of(FILE),
                List.of(),
                List.of(
                        MARKED_BEFORE.withDeletionVector(
                                new DeletionVectorRef("u", "abcdefghij0123456789", 41, 28, 3),
                                MARKED_BEFORE.logStatistics())),
                List.of("file:/t/deletion_vector_0.bin"),
                new DeletedKeys(
                        List.of(RowKey.ofValues(7L, new BigDecimal("1.50"))),
                        List.of(new StagedKeys("file:/t/_deltalite/staged/k.keys", 100_000))),
                STATS);
    }

    @Test
    void aCommittableRoundTrips() throws IOException {
        CheckpointResults committable =
                new CheckpointResults("orders-job-nonce", 12, List.of(result()));
        Serializers.CommittableSerializer serializer = new Serializers.CommittableSerializer();

        CheckpointResults read =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(committable));

        assertThat(read).isEqualTo(committable);
        assertThat(read.notCommittedAt()).isEqualTo(41);
    }

    /** Layout 3 ends a result with its stats; the reader of layout 4 finds no compaction. */
    @Test
    void aCommittableOfVersion3ReadsWithoutACompaction() throws IOException {
        PartitionWriteResult result = resultWithoutCompaction();
        Serializers.CommittableSerializer serializer = new Serializers.CommittableSerializer();
        byte[] version6 =
                serializer.serialize(
                        new CheckpointResults("orders-job-nonce", 12, List.of(result)), 6);
        // Version 5 ends with whether the checkpoint ends the input: one byte.
        byte[] version5 = withoutUnmatchedKeyOnlyDeletes(version6);
        byte[] version4 = java.util.Arrays.copyOf(version5, version5.length - 1);
        // An empty compaction is two empty file lists and a zero byte count: 4 + 4 + 8 bytes.
        byte[] version3 = java.util.Arrays.copyOf(version4, version4.length - 16);

        CheckpointResults read = serializer.deserialize(3, version3);

        assertThat(read.results()).containsExactly(result);
        assertThat(read.results().get(0).compaction()).isEqualTo(Compaction.NONE);
    }

    /** With checkpoints, the last checkpoint of a bounded job says that it ends the input. */
    @Test
    void aCommittableEndingTheInputRoundTripsAndOneOfVersion4DoesNot() throws IOException {
        CheckpointResults last =
                new CheckpointResults("orders-job-nonce", 12, List.of(result()), true);
        Serializers.CommittableSerializer serializer = new Serializers.CommittableSerializer();
        assertThat(serializer.deserialize(7, serializer.serialize(last))).isEqualTo(last);
        byte[] bytes = serializer.serialize(last, 6);

        assertThat(serializer.deserialize(6, bytes)).isEqualTo(last);
        byte[] version5 = withoutUnmatchedKeyOnlyDeletes(bytes);
        assertThat(serializer.deserialize(5, version5)).isEqualTo(last);
        CheckpointResults version4 =
                serializer.deserialize(4, java.util.Arrays.copyOf(version5, version5.length - 1));
        assertThat(version4.endsInput()).isFalse();
        assertThat(version4.results()).isEqualTo(last.results());
    }

    @Test
    void aWriteResultAtTheEndOfTheInputRoundTripsAndOneOfVersion4DoesNot() throws IOException {
        WriteResult last = new WriteResult("orders-job-nonce", List.of(result()), true);
        Serializers.WriteResultSerializer serializer = new Serializers.WriteResultSerializer();
        assertThat(serializer.deserialize(7, serializer.serialize(last))).isEqualTo(last);
        byte[] bytes = serializer.serialize(last, 6);

        assertThat(serializer.deserialize(6, bytes)).isEqualTo(last);
        byte[] version5 = withoutUnmatchedKeyOnlyDeletes(bytes);
        assertThat(serializer.deserialize(5, version5)).isEqualTo(last);
        assertThat(
                        serializer
                                .deserialize(
                                        4, java.util.Arrays.copyOf(version5, version5.length - 1))
                                .endOfInput())
                .isFalse();
    }

    @Test
    void aWriteResultRoundTrips() throws IOException {
        WriteResult writeResult = new WriteResult("orders-job-nonce", List.of(result()));
        Serializers.WriteResultSerializer serializer = new Serializers.WriteResultSerializer();

        assertThat(
                        serializer.deserialize(
                                serializer.getVersion(), serializer.serialize(writeResult)))
                .isEqualTo(writeResult);
    }

    @Test
    void writerStateRoundTripsWithTheJournalOwnerOfEachCheckpoint() throws IOException {
        WriterState state =
                new WriterState(
                        List.of(
                                new PendingCheckpoint(
                                        "orders-job-nonce",
                                        12,
                                        AttemptJournal.writer(3),
                                        List.of(result()))));
        Serializers.WriterStateSerializer serializer = new Serializers.WriterStateSerializer();

        WriterState read =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(state));

        assertThat(read).isEqualTo(state);
        assertThat(read.pending().get(0).journalOwner()).isEqualTo("w3");
    }

    /**
     * A result's key-only deletes that found no row (inline, and staged past the inline limit)
     * travel from the writer to the committer and through the writer's state.
     */
    @Test
    void unmatchedKeyOnlyDeletesRoundTripInEveryMessageAndState() throws IOException {
        PartitionWriteResult base = result();
        PartitionWriteResult withDeletes =
                new PartitionWriteResult(
                        base.partition(),
                        base.baseVersion(),
                        base.baseFingerprint(),
                        base.removedFiles(),
                        base.upsertFiles(),
                        base.survivorFiles(),
                        base.vectorFiles(),
                        base.vectorFilePaths(),
                        base.deletedKeys(),
                        base.stats(),
                        base.compaction(),
                        new DeletedKeys(
                                List.of(RowKey.ofValues(9L, new BigDecimal("2.00"))),
                                List.of(new StagedKeys("file:/t/_deltalite/staged/u.keys", 300))));
        Serializers.CommittableSerializer committables = new Serializers.CommittableSerializer();
        Serializers.WriteResultSerializer writeResults = new Serializers.WriteResultSerializer();
        Serializers.WriterStateSerializer states = new Serializers.WriterStateSerializer();
        CheckpointResults committable =
                new CheckpointResults("orders-job-nonce", 12, List.of(withDeletes), true);
        WriteResult writeResult = new WriteResult("orders-job-nonce", List.of(withDeletes), true);
        WriterState state =
                new WriterState(
                        List.of(
                                new PendingCheckpoint(
                                        "orders-job-nonce",
                                        12,
                                        AttemptJournal.writer(0),
                                        List.of(withDeletes))));

        for (int version = 6; version <= Serializers.CommittableSerializer.VERSION; version++) {
            assertThat(
                            committables.deserialize(
                                    version, committables.serialize(committable, version)))
                    .isEqualTo(committable);
            assertThat(
                            writeResults.deserialize(
                                    version, writeResults.serialize(writeResult, version)))
                    .isEqualTo(writeResult);
            assertThat(states.deserialize(version - 1, states.serialize(state, version - 1)))
                    .isEqualTo(state);
        }
        assertThat(withDeletes.writtenPaths()).contains("file:/t/_deltalite/staged/u.keys");
    }

    /** Writer state of version 4 holds results of layout 4: read with no unmatched deletes. */
    @Test
    void aWriterStateOfVersion4ReadsWithNoUnmatchedKeyOnlyDeletes() throws IOException {
        WriterState state =
                new WriterState(
                        List.of(
                                new PendingCheckpoint(
                                        "orders-job-nonce",
                                        12,
                                        AttemptJournal.writer(3),
                                        List.of(result()))));
        Serializers.WriterStateSerializer serializer = new Serializers.WriterStateSerializer();
        byte[] version5 = serializer.serialize(state, 5);
        // One pending checkpoint of one result, which ends with two empty key lists.
        byte[] version4 = java.util.Arrays.copyOf(version5, version5.length - 8);

        WriterState read = serializer.deserialize(4, version4);

        assertThat(read).isEqualTo(state);
        assertThat(read.pending().get(0).results().get(0).unmatchedKeyOnlyDeletes())
                .isEqualTo(DeletedKeys.NONE);
    }

    /**
     * A committable or write result of one result without unmatched key-only deletes, as version 5
     * wrote it: layout 5 ends the result with two empty key lists (8 bytes), before the flag that
     * ends the message.
     */
    private static byte[] withoutUnmatchedKeyOnlyDeletes(byte[] version6) {
        byte[] version5 = new byte[version6.length - 8];
        System.arraycopy(version6, 0, version5, 0, version5.length - 1);
        version5[version5.length - 1] = version6[version6.length - 1];
        return version5;
    }

    /** Bytes as the first version of deltalite wrote them: no base version, no staged keys. */
    @Test
    void aFirstVersionCommittableAndWriterStateAreStillRead() throws IOException {
        byte[] checkpoint = firstVersionCheckpoint("orders", 12);

        CheckpointResults committable =
                new Serializers.CommittableSerializer().deserialize(1, checkpoint);
        assertThat(committable.appId()).isEqualTo("orders");
        assertThat(committable.checkpointId()).isEqualTo(12);
        PartitionWriteResult read = committable.results().get(0);
        assertThat(read.baseVersion()).isEqualTo(-1);
        assertThat(read.removedFiles()).containsExactly(FILE);
        assertThat(read.deletedKeys().inline()).containsExactly(RowKey.ofValues(7L));
        assertThat(read.deletedKeys().staged()).isEmpty();
        // Stats of the first version had no deletion vector counts.
        assertThat(read.stats())
                .isEqualTo(new UpsertStats(-1, 1, 2, 1, 3, 1, 4, 5, 6, 7, 8, 0, 99, 0, 0));
        assertThat(committable.notCommittedAt()).isEqualTo(-1);

        ByteArrayOutputStream state = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(state)) {
            out.writeInt(1);
            out.write(checkpoint);
        }
        WriterState restored =
                new Serializers.WriterStateSerializer().deserialize(1, state.toByteArray());
        assertThat(restored.pending())
                .singleElement()
                .satisfies(pending -> assertThat(pending.checkpointId()).isEqualTo(12));
    }

    /**
     * Bytes as the second version wrote them, with a removed file that had a deletion vector
     * (Spark's, say): that version kept only the vector's id, as a nullable string.
     */
    @Test
    void aSecondVersionCommittableWithAFileCarryingADeletionVectorIsStillRead() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            ValueCodec.writeString(out, "orders");
            out.writeLong(12);
            out.writeInt(1); // results
            out.writeInt(0); // partition values: unpartitioned
            out.writeLong(41); // base version
            ValueCodec.writeString(out, "1:abc");
            out.writeInt(1); // removed files
            ValueCodec.writeString(out, "part-1.parquet");
            out.writeLong(1234);
            out.writeLong(1_700_000_000_000L);
            out.writeLong(10);
            out.writeInt(0); // column statistics
            out.writeBoolean(true);
            ValueCodec.writeString(out, "uabcdefghij0123456789@1");
            out.writeBoolean(true);
            ValueCodec.writeString(out, "{\"numRecords\":10}");
            out.writeInt(0); // upserts
            out.writeInt(0); // survivors
            out.writeInt(0); // inline deleted keys
            out.writeInt(0); // staged deleted keys
            out.writeInt(13);
            for (long value = 0; value < 13; value++) {
                out.writeLong(value);
            }
        }

        CheckpointResults committable =
                new Serializers.CommittableSerializer().deserialize(2, bytes.toByteArray());

        DataFile removed = committable.results().get(0).removedFiles().get(0);
        assertThat(removed.identity()).isEqualTo("part-1.parquet#dv=uabcdefghij0123456789@1");
        assertThat(removed.logStatistics()).isEqualTo("{\"numRecords\":10}");
        assertThat(committable.results().get(0).vectorFiles()).isEmpty();
    }

    @Test
    void aNewerVersionIsRefusedWithTheRemedy() {
        assertThatThrownBy(
                        () -> new Serializers.CommittableSerializer().deserialize(99, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 99")
                .hasMessageContaining("Restore with the deltalite version that wrote the state");
    }

    /** appId, checkpoint id, then one result in layout 1. */
    private static byte[] firstVersionCheckpoint(String appId, long checkpointId)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            ValueCodec.writeString(out, appId);
            out.writeLong(checkpointId);
            out.writeInt(1); // results
            out.writeInt(1); // partition values
            ValueCodec.write(out, "a");
            ValueCodec.writeString(out, "3:abc");
            writeFile(out); // removed
            out.writeInt(0); // upserts
            out.writeInt(0); // survivors
            out.writeInt(1); // deleted keys
            out.writeInt(1);
            ValueCodec.write(out, 7L);
            long[] stats = {-1, 1, 2, 1, 3, 1, 4, 5, 6, 7, 8, 0, 99};
            out.writeInt(stats.length);
            for (long value : stats) {
                out.writeLong(value);
            }
        }
        return bytes.toByteArray();
    }

    private static void writeFile(DataOutputStream out) throws IOException {
        out.writeInt(1);
        ValueCodec.writeString(out, FILE.path());
        out.writeLong(FILE.sizeBytes());
        out.writeLong(FILE.modificationTime());
        out.writeLong(FILE.numRecords());
        out.writeInt(1);
        ValueCodec.write(out, 1L);
        ValueCodec.write(out, 99L);
        out.writeLong(0);
        out.writeBoolean(false);
        out.writeBoolean(true);
        ValueCodec.writeString(out, FILE.logStatistics());
    }
}
