package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.internal.sink.Serializers;
import io.deltalite.flink.internal.sink.WriteResult;
import io.deltalite.flink.internal.sink.WriterState;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * How the pipeline sink's committables and writer states are written into Flink's state: the
 * table's part, then the one-table sink's own serialized form of the rest with its version, so that
 * the two evolve apart.
 */
final class PipelineSerializers {
    private PipelineSerializers() {}

    /** Writers → aggregator → committer. */
    static final class CommittableSerializer
            implements SimpleVersionedSerializer<TableCommittable> {
        /** At least 2: the aggregator's state layout counts from it ({@code CommitAggregator}). */
        static final int VERSION = 2;

        private static final Serializers.WriteResultSerializer RESULTS =
                new Serializers.WriteResultSerializer();

        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(TableCommittable committable) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                TableSpec table = committable.table();
                out.writeUTF(table.name());
                out.writeUTF(table.location());
                writeLongString(out, table.rowType());
                writeStrings(out, table.primaryKey());
                writeStrings(out, table.partitionKey());
                out.writeLong(committable.checkpointId());
                out.writeInt(RESULTS.getVersion());
                byte[] result = RESULTS.serialize(committable.result());
                out.writeInt(result.length);
                out.write(result);
            }
            return bytes.toByteArray();
        }

        @Override
        public TableCommittable deserialize(int version, byte[] serialized) throws IOException {
            requireVersion(version, VERSION, "committable");
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                TableSpec table =
                        new TableSpec(
                                in.readUTF(),
                                in.readUTF(),
                                readLongString(in),
                                readStrings(in),
                                readStrings(in));
                long checkpointId = in.readLong();
                int resultVersion = in.readInt();
                byte[] result = new byte[in.readInt()];
                in.readFully(result);
                WriteResult writeResult = RESULTS.deserialize(resultVersion, result);
                return new TableCommittable(table, checkpointId, writeResult);
            }
        }
    }

    /** A writer's state, per table. */
    static final class WriterStateSerializer
            implements SimpleVersionedSerializer<PipelineWriterState> {
        static final int VERSION = 1;

        private static final Serializers.WriterStateSerializer STATES =
                new Serializers.WriterStateSerializer();

        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(PipelineWriterState state) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeUTF(state.location());
                out.writeInt(STATES.getVersion());
                byte[] table = STATES.serialize(state.state());
                out.writeInt(table.length);
                out.write(table);
            }
            return bytes.toByteArray();
        }

        @Override
        public PipelineWriterState deserialize(int version, byte[] serialized) throws IOException {
            requireVersion(version, VERSION, "writer state");
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                String location = in.readUTF();
                int tableVersion = in.readInt();
                byte[] table = new byte[in.readInt()];
                in.readFully(table);
                WriterState state = STATES.deserialize(tableVersion, table);
                return new PipelineWriterState(location, state);
            }
        }
    }

    private static void requireVersion(int version, int known, String what) throws IOException {
        if (version < 1 || version > known) {
            throw new IOException(
                    "This deltalite pipeline sink reads "
                            + what
                            + " versions up to "
                            + known
                            + ", but the state holds version "
                            + version
                            + ": it was written by a newer deltalite. Run that version, or start"
                            + " the pipeline without state.");
        }
    }

    /** A string longer than writeUTF's 64 KiB (a wide table's row type). */
    private static void writeLongString(DataOutputStream out, String value) throws IOException {
        byte[] bytes = value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static String readLongString(DataInputStream in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void writeStrings(DataOutputStream out, List<String> values) throws IOException {
        out.writeInt(values.size());
        for (String value : values) {
            out.writeUTF(value);
        }
    }

    private static List<String> readStrings(DataInputStream in) throws IOException {
        int count = in.readInt();
        List<String> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(in.readUTF());
        }
        return values;
    }
}
