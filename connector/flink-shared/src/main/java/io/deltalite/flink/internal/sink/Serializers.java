package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.PendingCheckpoint;
import io.deltalite.flink.internal.merge.result.ResultCodec;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.value.ValueCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The versioned serializers of the sink's committables and state. A later layout gets a new version
 * and the old ones stay readable. Version 2 carries each result's base version and staged
 * deleted-key files ({@link ResultCodec} layout 2), version 3 its files given a deletion vector
 * (layout 3), version 4 its compaction (layout 4); writer state from version 2 on also names the
 * journal entry of each pending checkpoint. Write results and committables of version 5 add whether
 * the input ended, their results still in layout 4; version 6 of those (and version 5 of writer
 * state) carries each result's unmatched key-only deletes (layout 5); version 7 of those (and
 * version 6 of writer state) each file's row lineage (layout 6). Each serializer maps its version
 * to the result layout it wrote.
 */
@Internal
public final class Serializers {
    private Serializers() {}

    /** Writer subtask → aggregator. */
    public static final class WriteResultSerializer
            implements SimpleVersionedSerializer<WriteResult> {
        public static final int VERSION = 7;

        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(WriteResult result) throws IOException {
            return serialize(result, VERSION);
        }

        /** As version {@code version} (5 on) wrote it: for tests that old bytes stay readable. */
        byte[] serialize(WriteResult result, int version) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                ValueCodec.writeString(out, result.appId());
                ResultCodec.writeResults(out, result.results(), resultLayoutOfMessage(version));
                out.writeBoolean(result.endOfInput());
            }
            return bytes.toByteArray();
        }

        @Override
        public WriteResult deserialize(int version, byte[] serialized) throws IOException {
            requireVersion(version, VERSION, "write result");
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                String appId = ValueCodec.readString(in);
                List<PartitionWriteResult> results =
                        ResultCodec.readResults(in, resultLayoutOfMessage(version));
                // Version 5 added whether the writer's input ended.
                return new WriteResult(appId, results, version >= 5 && in.readBoolean());
            }
        }
    }

    /** Aggregator → committer: one per checkpoint. */
    public static final class CommittableSerializer
            implements SimpleVersionedSerializer<CheckpointResults> {
        public static final int VERSION = 7;

        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(CheckpointResults committable) throws IOException {
            return serialize(committable, VERSION);
        }

        /** As version {@code version} (5 on) wrote it: for tests that old bytes stay readable. */
        byte[] serialize(CheckpointResults committable, int version) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                writeCheckpoint(out, committable, resultLayoutOfMessage(version));
            }
            return bytes.toByteArray();
        }

        @Override
        public CheckpointResults deserialize(int version, byte[] serialized) throws IOException {
            requireVersion(version, VERSION, "committable");
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                return readCheckpoint(in, version);
            }
        }
    }

    /** Writer subtask state. */
    public static final class WriterStateSerializer
            implements SimpleVersionedSerializer<WriterState> {
        public static final int VERSION = 6;

        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(WriterState state) throws IOException {
            return serialize(state, VERSION);
        }

        /** As version {@code version} (4 on) wrote it: for tests that old bytes stay readable. */
        byte[] serialize(WriterState state, int version) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(state.pending().size());
                for (PendingCheckpoint pending : state.pending()) {
                    ValueCodec.writeString(out, pending.appId());
                    out.writeLong(pending.checkpointId());
                    ValueCodec.writeString(out, pending.journalOwner());
                    ResultCodec.writeResults(out, pending.results(), version);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public WriterState deserialize(int version, byte[] serialized) throws IOException {
            requireVersion(version, VERSION, "writer state");
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                int count = in.readInt();
                List<PendingCheckpoint> pending = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    String appId = ValueCodec.readString(in);
                    long checkpointId = in.readLong();
                    // Version 1 did not say which subtask noted the journal entry.
                    String owner =
                            version >= 2 ? ValueCodec.readString(in) : AttemptJournal.writer(-1);
                    // Writer state versions are the result layouts they wrote.
                    pending.add(
                            new PendingCheckpoint(
                                    appId,
                                    checkpointId,
                                    owner,
                                    ResultCodec.readResults(in, version)));
                }
                return new WriterState(pending);
            }
        }
    }

    private static void writeCheckpoint(
            DataOutputStream out, CheckpointResults checkpoint, int resultLayout)
            throws IOException {
        ValueCodec.writeString(out, checkpoint.appId());
        out.writeLong(checkpoint.checkpointId());
        ResultCodec.writeResults(out, checkpoint.results(), resultLayout);
        out.writeBoolean(checkpoint.endsInput());
    }

    private static CheckpointResults readCheckpoint(DataInputStream in, int version)
            throws IOException {
        String appId = ValueCodec.readString(in);
        long checkpointId = in.readLong();
        List<PartitionWriteResult> results =
                ResultCodec.readResults(in, resultLayoutOfMessage(version));
        // Version 5 added whether the checkpoint ends the input of every writer.
        boolean endsInput =
                version >= 5 ? in.readBoolean() : checkpointId == CheckpointResults.END_OF_INPUT;
        return new CheckpointResults(appId, checkpointId, results, endsInput);
    }

    /**
     * The {@link ResultCodec} layout of the results in a write result or committable of {@code
     * version}: the same number up to 4; version 5 added a field of its own to layout 4, version 6
     * carries layout 5, version 7 layout 6.
     */
    static int resultLayoutOfMessage(int version) {
        return version <= 4 ? version : version - 1;
    }

    private static void requireVersion(int version, int current, String what) throws IOException {
        if (version < 1 || version > current) {
            throw new IOException(
                    "Cannot read a deltalite "
                            + what
                            + " of serializer version "
                            + version
                            + "; this version of deltalite reads versions 1 to "
                            + current
                            + ". Restore with the deltalite version that wrote the state, or newer.");
        }
    }
}
