package io.deltalite.flink.internal.delta.fileio;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer that dies mid-write leaves its file under a hidden temporary name. The next time the
 * sink opens the table, the old ones in the folders it publishes into are deleted — and nothing
 * else: not a temporary file a live writer may still be writing, not a name of another form, not a
 * file outside those folders.
 */
class TemporaryFileSweepTest {
    @TempDir Path dir;

    @Test
    void theTemporaryFilesOfACrashedWriterAreSweptAtTheNextOpen() throws IOException {
        Path table = dir.resolve("t");
        try (UpsertHarness harness =
                UpsertHarness.open(
                        table.toString(), S3UpsertHarness.ORDERS, MergeOptions.DEFAULTS)) {
            harness.upsert(1L, "d1", 1);
            harness.commit();
        }
        Instant twoHoursAgo = Instant.now().minus(Duration.ofHours(2));
        // As a writer that died mid-write leaves them, by the names it writes under.
        List<Path> crashed =
                List.of(
                        crashed(table, "_delta_log/00000000000000000002.json", twoHoursAgo),
                        crashed(table, "_delta_log/00000000000000000001.crc", twoHoursAgo),
                        crashed(
                                table,
                                "_delta_log/00000000000000000010.checkpoint.parquet",
                                twoHoursAgo),
                        crashed(table, "_deltalite/journal/harness/3-0.files", twoHoursAgo),
                        // the journal's own temporary note, published before it is copied
                        crashed(table, "_deltalite/journal/harness/", twoHoursAgo),
                        crashed(
                                table,
                                "_deltalite/staged/" + UUID.randomUUID() + ".keys",
                                twoHoursAgo));
        List<Path> kept =
                List.of(
                        // a live writer's, being written now
                        crashed(table, "_delta_log/00000000000000000002.json", Instant.now()),
                        crashed(
                                table,
                                "_deltalite/journal/harness/4-0.files",
                                Instant.now().minus(Duration.ofMinutes(20))),
                        // names not of deltalite's temporary form
                        old(table.resolve("_delta_log/.hidden-notes.tmp"), twoHoursAgo),
                        old(table.resolve("_delta_log/00000000000000000001.json.tmp"), twoHoursAgo),
                        old(table.resolve("_deltalite/journal/harness/notes.txt"), twoHoursAgo),
                        // outside the folders files are published into by name
                        crashed(table, "part-00000.parquet", twoHoursAgo),
                        crashed(table, "d=1/part-00001.parquet", twoHoursAgo));

        try (UpsertHarness reopened =
                UpsertHarness.open(
                        table.toString(), S3UpsertHarness.ORDERS, MergeOptions.DEFAULTS)) {
            crashed.forEach(file -> assertThat(file).as("left by a dead writer").doesNotExist());
            kept.forEach(file -> assertThat(file).as("not a dead writer's").exists());
            reopened.upsert(2L, "d2", 2);
            assertThat(reopened.commit().status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(Rows.sorted(reopened.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {1L, "d1", 1},
                                            new Object[] {2L, "d2", 2})));
        }
    }

    /**
     * The temporary file a writer of {@code published} creates — {@code .<name>.<uuid>.tmp} beside
     * it, or {@code .<uuid>.tmp} in a folder — half written, last modified at {@code modified}.
     */
    private static Path crashed(Path table, String published, Instant modified) throws IOException {
        Path target = table.resolve(published);
        return published.endsWith("/")
                ? old(target.resolve("." + UUID.randomUUID() + ".tmp"), modified)
                : old(
                        target.resolveSibling(
                                "." + target.getFileName() + "." + UUID.randomUUID() + ".tmp"),
                        modified);
    }

    private static Path old(Path file, Instant modified) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[] {'{', '"'});
        Files.setLastModifiedTime(file, FileTime.from(modified));
        return file;
    }
}
