package io.deltalite.flink.internal.delta.fileio;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.deltalite.flink.internal.delta.kernel.KernelIterators;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file is published only after its data is forced to storage, and its folder is synced after the
 * name appears: a power loss cannot leave a commit, a log checkpoint, a journal note or a staged
 * key file published but empty, nor a data file a commit references. Observed through a file system
 * that records the order of the (real) operations.
 */
class DurablePublishingTest {
    @TempDir Path dir;

    @Test
    void everyFileIsForcedToTheDiskBeforeItsNameAppearsAndItsFolderAfter() throws IOException {
        RecordingFileSystem disk = new RecordingFileSystem(new LocalDiskFiles());
        RenamingFileIO io = new RenamingFileIO(new HadoopFileIO(new Configuration()), disk);
        String table = dir.resolve("t").toUri().toString();
        String keys = UUID.randomUUID() + ".keys";

        write(io, table + "/_deltalite/journal/app/1-0.files", false, "note");
        write(io, table + "/_deltalite/staged/" + keys, false, "keys");
        io.newOutputFile(table + "/_delta_log/00000000000000000000.json")
                .writeAtomically(KernelIterators.of(List.of("{}").iterator()), false);
        io.newOutputFile(table + "/_delta_log/_last_checkpoint")
                .writeAtomically(KernelIterators.of(List.of("{}").iterator()), true);
        try (PositionOutputStream out =
                io.newOutputFile(table + "/_delta_log/00000000000000000000.checkpoint.parquet")
                        .create(true)) {
            out.write(parquetShaped());
        }
        io.copyFileAtomically(
                table + "/_deltalite/journal/app/1-0.files",
                table + "/_deltalite/journal/app/2-0.files",
                true);
        write(io, table + "/day=1/part-00000.parquet", true, "rows");

        List<String> events = disk.events();
        for (String published :
                List.of(
                        "1-0.files",
                        keys,
                        "00000000000000000000.json",
                        "_last_checkpoint",
                        "00000000000000000000.checkpoint.parquet",
                        "2-0.files")) {
            String temporary = temporaryOf(events, published);
            assertThat(temporary).matches(RenamingFileIO.TEMPORARY_NAME.pattern());
            assertInOrder(
                    events,
                    "create " + temporary,
                    "sync " + temporary,
                    "close " + temporary,
                    "rename " + temporary + " -> " + published,
                    "syncFolder " + folderOf(published));
        }
        // A data file is written under its name; a commit references it once its write returns.
        assertInOrder(
                events,
                "create part-00000.parquet",
                "sync part-00000.parquet",
                "close part-00000.parquet",
                "syncFolder day=1");
        assertThat(Files.readString(dir.resolve("t/_deltalite/journal/app/2-0.files")))
                .isEqualTo("note");
        try (var left = Files.walk(dir)) {
            assertThat(left.map(p -> p.getFileName().toString()))
                    .as("temporary files left")
                    .noneMatch(name -> RenamingFileIO.TEMPORARY_NAME.matcher(name).matches());
        }
    }

    private static String folderOf(String published) {
        if (published.endsWith(".files")) {
            return "app";
        }
        return published.endsWith(".keys") ? "staged" : "_delta_log";
    }

    private static void write(RenamingFileIO io, String path, boolean putIfAbsent, String text)
            throws IOException {
        try (PositionOutputStream out = io.newOutputFile(path).create(putIfAbsent)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Bytes that end as a Parquet file does, which the publishing guard asks of a checkpoint. */
    private static byte[] parquetShaped() {
        return ByteBuffer.allocate(16)
                .order(ByteOrder.LITTLE_ENDIAN)
                .put("PAR1".getBytes(StandardCharsets.US_ASCII))
                .putInt(0)
                .putInt(4)
                .put("PAR1".getBytes(StandardCharsets.US_ASCII))
                .array();
    }

    /** The temporary name {@code published} was renamed from. */
    static String temporaryOf(List<String> events, String published) {
        String suffix = " -> " + published;
        return events.stream()
                .filter(event -> event.startsWith("rename ") && event.endsWith(suffix))
                .map(event -> event.substring("rename ".length(), event.length() - suffix.length()))
                .findFirst()
                .orElseThrow(() -> new AssertionError(published + " was never renamed: " + events));
    }

    /** Each of {@code expected} happened, in this order. */
    static void assertInOrder(List<String> events, String... expected) {
        int at = -1;
        for (String event : expected) {
            int next = events.subList(at + 1, events.size()).indexOf(event);
            assertThat(next)
                    .as("%s after %s in %s", event, at < 0 ? "the start" : events.get(at), events)
                    .isNotNegative();
            at += 1 + next;
        }
    }
}
