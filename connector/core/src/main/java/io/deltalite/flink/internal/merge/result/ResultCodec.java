package io.deltalite.flink.internal.merge.result;

import io.deltalite.flink.internal.merge.value.ColumnStatistics;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.DeletionVectorRef;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.merge.value.RowLineage;
import io.deltalite.flink.internal.merge.value.StagedKeys;
import io.deltalite.flink.internal.merge.value.ValueCodec;
import io.deltalite.flink.sink.UpsertStats;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary form of partition results, as they travel in Flink committables and state. The layout
 * is versioned by the serializers that use it; this class writes the current layout and reads every
 * earlier one.
 *
 * <ul>
 *   <li>Layout 1: partition values, fingerprint, removed / upsert / survivor files, deleted keys
 *       inline, stats.
 *   <li>Layout 2: adds the base version after the partition values, and staged deleted-key files
 *       (path and count) after the inline keys.
 *   <li>Layout 3: a file's deletion vector is its whole descriptor, not only its id; adds the
 *       vector files (files given a new deletion vector) and the deletion vector files they refer
 *       to, after the survivor files.
 *   <li>Layout 4: adds the compaction (input files, output files, bytes read) after the stats, and
 *       the stats' compaction and file-count fields (stats are length-prefixed: older ones read as
 *       zero).
 *   <li>Layout 5: adds the unmatched key-only deletes (inline keys, then staged key files) after
 *       the compaction; older layouts read as none.
 *   <li>Layout 6: adds each file's row lineage (base row id and default row commit version) after
 *       its log statistics; older layouts read as none (they come from tables without row tracking,
 *       which deltalite refused before).
 * </ul>
 */
public final class ResultCodec {
    /** The layout {@link #writeResults} writes. */
    public static final int LAYOUT = 6;

    private ResultCodec() {}

    public static void writeResults(DataOutput out, List<PartitionWriteResult> results)
            throws IOException {
        writeResults(out, results, LAYOUT);
    }

    /**
     * Writes {@code results} in {@code layout}, from 4 on: what an earlier version of deltalite
     * wrote, for the tests that its state stays readable. Fields a layout lacks are left out.
     */
    public static void writeResults(DataOutput out, List<PartitionWriteResult> results, int layout)
            throws IOException {
        if (layout < 4 || layout > LAYOUT) {
            throw new IllegalArgumentException("writes layouts 4 to " + LAYOUT + ": " + layout);
        }
        out.writeInt(results.size());
        for (PartitionWriteResult result : results) {
            writeResult(out, result, layout);
        }
    }

    public static List<PartitionWriteResult> readResults(DataInput in, int layout)
            throws IOException {
        int count = in.readInt();
        List<PartitionWriteResult> results = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            results.add(readResult(in, layout));
        }
        return results;
    }

    public static void writeResult(DataOutput out, PartitionWriteResult result) throws IOException {
        writeResult(out, result, LAYOUT);
    }

    private static void writeResult(DataOutput out, PartitionWriteResult result, int layout)
            throws IOException {
        writeValues(out, result.partition().values());
        out.writeLong(result.baseVersion());
        ValueCodec.writeString(out, result.baseFingerprint());
        writeFiles(out, layout, result.removedFiles());
        writeFiles(out, layout, result.upsertFiles());
        writeFiles(out, layout, result.survivorFiles());
        writeFiles(out, layout, result.vectorFiles());
        out.writeInt(result.vectorFilePaths().size());
        for (String path : result.vectorFilePaths()) {
            ValueCodec.writeString(out, path);
        }
        writeKeys(out, result.deletedKeys());
        writeStats(out, result.stats());
        writeFiles(out, layout, result.compaction().inputs());
        writeFiles(out, layout, result.compaction().outputs());
        out.writeLong(result.compaction().bytesRead());
        if (layout >= 5) {
            writeKeys(out, result.unmatchedKeyOnlyDeletes());
        }
    }

    private static void writeKeys(DataOutput out, DeletedKeys keys) throws IOException {
        out.writeInt(keys.inline().size());
        for (RowKey key : keys.inline()) {
            writeValues(out, key.values());
        }
        out.writeInt(keys.staged().size());
        for (StagedKeys file : keys.staged()) {
            ValueCodec.writeString(out, file.path());
            out.writeLong(file.count());
        }
    }

    /** Keys as {@link #writeKeys} wrote them; before layout 2 only inline ones. */
    private static DeletedKeys readKeys(DataInput in, int layout) throws IOException {
        int keyCount = in.readInt();
        List<RowKey> inline = new ArrayList<>(keyCount);
        for (int i = 0; i < keyCount; i++) {
            inline.add(RowKey.ofValues(readValues(in).toArray()));
        }
        List<StagedKeys> staged = new ArrayList<>();
        if (layout >= 2) {
            int files = in.readInt();
            for (int i = 0; i < files; i++) {
                staged.add(new StagedKeys(ValueCodec.readString(in), in.readLong()));
            }
        }
        return new DeletedKeys(inline, staged);
    }

    public static PartitionWriteResult readResult(DataInput in, int layout) throws IOException {
        PartitionValues partition = new PartitionValues(readValues(in));
        long baseVersion = layout >= 2 ? in.readLong() : -1;
        String fingerprint = ValueCodec.readString(in);
        List<DataFile> removed = readFiles(in, layout);
        List<DataFile> upserts = readFiles(in, layout);
        List<DataFile> survivors = readFiles(in, layout);
        List<DataFile> vectorFiles = layout >= 3 ? readFiles(in, layout) : List.of();
        List<String> vectorFilePaths = new ArrayList<>();
        if (layout >= 3) {
            int paths = in.readInt();
            for (int i = 0; i < paths; i++) {
                vectorFilePaths.add(ValueCodec.readString(in));
            }
        }
        DeletedKeys deletedKeys = readKeys(in, layout);
        UpsertStats stats = readStats(in);
        Compaction compaction =
                layout >= 4
                        ? new Compaction(
                                readFiles(in, layout), readFiles(in, layout), in.readLong())
                        : Compaction.NONE;
        return new PartitionWriteResult(
                partition,
                baseVersion,
                fingerprint,
                removed,
                upserts,
                survivors,
                vectorFiles,
                vectorFilePaths,
                deletedKeys,
                stats,
                compaction,
                layout >= 5 ? readKeys(in, layout) : DeletedKeys.NONE);
    }

    private static void writeValues(DataOutput out, List<Object> values) throws IOException {
        out.writeInt(values.size());
        for (Object value : values) {
            ValueCodec.write(out, value);
        }
    }

    private static List<Object> readValues(DataInput in) throws IOException {
        int count = in.readInt();
        List<Object> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(ValueCodec.read(in));
        }
        return values;
    }

    private static void writeFiles(DataOutput out, int layout, List<DataFile> files)
            throws IOException {
        out.writeInt(files.size());
        for (DataFile file : files) {
            ValueCodec.writeString(out, file.path());
            out.writeLong(file.sizeBytes());
            out.writeLong(file.modificationTime());
            out.writeLong(file.numRecords());
            out.writeInt(file.keyStatistics().size());
            for (ColumnStatistics column : file.keyStatistics()) {
                ValueCodec.write(out, column.min());
                ValueCodec.write(out, column.max());
                out.writeLong(column.nullCount());
            }
            writeDeletionVector(out, file.deletionVector());
            writeNullableString(out, file.logStatistics());
            RowLineage lineage = layout >= 6 ? file.rowLineage() : null;
            if (layout >= 6) {
                out.writeBoolean(lineage != null);
            }
            if (lineage != null) {
                out.writeLong(lineage.baseRowId());
                out.writeLong(lineage.defaultRowCommitVersion());
            }
        }
    }

    private static List<DataFile> readFiles(DataInput in, int layout) throws IOException {
        int count = in.readInt();
        List<DataFile> files = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String path = ValueCodec.readString(in);
            long size = in.readLong();
            long modificationTime = in.readLong();
            long numRecords = in.readLong();
            int columns = in.readInt();
            List<ColumnStatistics> statistics = new ArrayList<>(columns);
            for (int c = 0; c < columns; c++) {
                statistics.add(
                        new ColumnStatistics(
                                ValueCodec.read(in), ValueCodec.read(in), in.readLong()));
            }
            DeletionVectorRef deletionVector =
                    layout >= 3 ? readDeletionVector(in) : fromId(readNullableString(in));
            String logStatistics = readNullableString(in);
            RowLineage lineage =
                    layout >= 6 && in.readBoolean()
                            ? new RowLineage(in.readLong(), in.readLong())
                            : null;
            files.add(
                    new DataFile(
                            path,
                            size,
                            modificationTime,
                            numRecords,
                            statistics,
                            deletionVector,
                            logStatistics,
                            lineage));
        }
        return files;
    }

    private static void writeDeletionVector(DataOutput out, DeletionVectorRef vector)
            throws IOException {
        out.writeBoolean(vector != null);
        if (vector != null) {
            ValueCodec.writeString(out, vector.storageType());
            ValueCodec.writeString(out, vector.pathOrInlineDv());
            out.writeInt(vector.offset());
            out.writeInt(vector.sizeInBytes());
            out.writeLong(vector.cardinality());
        }
    }

    private static DeletionVectorRef readDeletionVector(DataInput in) throws IOException {
        if (!in.readBoolean()) {
            return null;
        }
        return new DeletionVectorRef(
                ValueCodec.readString(in),
                ValueCodec.readString(in),
                in.readInt(),
                in.readInt(),
                in.readLong());
    }

    /** Layouts 1 and 2 kept only the id ({@code <type><path or data>[@<offset>]}); size unknown. */
    private static DeletionVectorRef fromId(String id) {
        if (id == null) {
            return null;
        }
        int at = id.lastIndexOf('@');
        boolean inline = id.startsWith("i") || at < 0;
        return new DeletionVectorRef(
                id.substring(0, 1),
                inline ? id.substring(1) : id.substring(1, at),
                inline ? -1 : Integer.parseInt(id.substring(at + 1)),
                -1,
                -1);
    }

    private static void writeNullableString(DataOutput out, String value) throws IOException {
        out.writeBoolean(value != null);
        if (value != null) {
            ValueCodec.writeString(out, value);
        }
    }

    private static String readNullableString(DataInput in) throws IOException {
        return in.readBoolean() ? ValueCodec.readString(in) : null;
    }

    private static void writeStats(DataOutput out, UpsertStats stats) throws IOException {
        long[] values = {
            stats.version(),
            stats.partitionsTouched(),
            stats.filesAdded(),
            stats.filesRemoved(),
            stats.filesCarriedOver(),
            stats.filesProbed(),
            stats.rowsInserted(),
            stats.rowsUpdated(),
            stats.rowsDeleted(),
            stats.rowsCopied(),
            stats.sourceRows(),
            stats.nullKeyRows(),
            stats.bytesWritten(),
            stats.deletionVectorsWritten(),
            stats.deletionVectorBytes(),
            stats.filesCompacted(),
            stats.bytesCompacted(),
            stats.liveFiles(),
            stats.smallFiles()
        };
        out.writeInt(values.length);
        for (long value : values) {
            out.writeLong(value);
        }
    }

    private static UpsertStats readStats(DataInput in) throws IOException {
        int count = in.readInt();
        long[] values = new long[19];
        for (int i = 0; i < count; i++) {
            long value = in.readLong();
            if (i < values.length) {
                values[i] = value;
            }
        }
        return new UpsertStats(
                values[0],
                values[1],
                values[2],
                values[3],
                values[4],
                values[5],
                values[6],
                values[7],
                values[8],
                values[9],
                values[10],
                values[11],
                values[12],
                values[13],
                values[14],
                values[15],
                values[16],
                values[17],
                values[18]);
    }
}
