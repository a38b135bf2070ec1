package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.internal.deletionvectors.Base85Codec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/** Commits that give a file an inline deletion vector, written by hand as Spark's DELETE would. */
final class DeletionVectorCommits {
    private DeletionVectorCommits() {}

    /**
     * Commits an inline deletion vector on the table's single data file that deletes {@code rows}.
     *
     * @param partitionValues the file's partition values, as a JSON object
     */
    static void deleteRowsInline(Path dir, String partitionValues, int... rows) throws IOException {
        Map<String, KernelTableReader.LiveFile> files = KernelTableReader.liveFiles(dir.toString());
        assertThat(files).hasSize(1);
        KernelTableReader.LiveFile file = files.values().iterator().next();
        byte[] bitmap = portableBitmapArray(rows);
        String descriptor =
                "{\"storageType\":\"i\",\"pathOrInlineDv\":\""
                        + Base85Codec.encodeBytes(bitmap)
                        + "\",\"sizeInBytes\":"
                        + bitmap.length
                        + ",\"cardinality\":"
                        + rows.length
                        + "}";
        long now = System.currentTimeMillis();
        String remove =
                "{\"remove\":{\"path\":\""
                        + file.logPath()
                        + "\",\"deletionTimestamp\":"
                        + now
                        + ",\"dataChange\":true,\"extendedFileMetadata\":true,"
                        + "\"partitionValues\":"
                        + partitionValues
                        + ",\"size\":"
                        + file.size()
                        + "}}";
        String add =
                "{\"add\":{\"path\":\""
                        + file.logPath()
                        + "\",\"partitionValues\":"
                        + partitionValues
                        + ",\"size\":"
                        + file.size()
                        + ",\"modificationTime\":"
                        + now
                        + ",\"dataChange\":true,\"stats\":\""
                        + file.stats().replace("\"", "\\\"")
                        + "\",\"deletionVector\":"
                        + descriptor
                        + "}}";
        long version = KernelTableReader.latestVersion(dir.toString()) + 1;
        Files.writeString(
                dir.resolve(String.format("_delta_log/%020d.json", version)),
                remove + "\n" + add + "\n",
                StandardCharsets.UTF_8);
    }

    /** The Delta protocol's portable RoaringBitmapArray format, for row indexes below 2^32. */
    static byte[] portableBitmapArray(int... rows) {
        RoaringBitmap bitmap = RoaringBitmap.bitmapOf(rows);
        ByteBuffer buffer =
                ByteBuffer.allocate(4 + 8 + 4 + bitmap.serializedSizeInBytes())
                        .order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(1681511377);
        buffer.putLong(1);
        buffer.putInt(0);
        bitmap.serialize(buffer);
        return buffer.array();
    }
}
