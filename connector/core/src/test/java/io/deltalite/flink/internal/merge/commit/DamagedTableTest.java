package io.deltalite.flink.internal.merge.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.deltalite.flink.exceptions.DeltaLiteDamagedTableException;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table damaged under the sink — a data file deleted or truncated, a log version file corrupt —
 * stops the checkpoint with an error that names the file or version, the table and what to do;
 * nothing of the checkpoint is committed and nothing half-written is left.
 */
class DamagedTableTest {
    private static final TableDefinition ITEMS = TestDefinitions.ITEMS;

    /** With a log checkpoint every other version. */
    private static final TableDefinition CHECKPOINTED =
            new TableDefinition(
                    ITEMS.columns(),
                    ITEMS.primaryKey(),
                    List.of(),
                    Map.of("delta.checkpointInterval", "2"));

    @TempDir Path dir;

    @Test
    void aDataFileDeletedUnderAMergeIsNamedWithTheVersionAndNothingIsCommitted()
            throws IOException {
        try (UpsertHarness harness = seeded()) {
            Path file = onlyDataFile();
            Files.delete(file);
            assertMergeFailsNaming(harness, file.getFileName().toString());
        }
    }

    @Test
    void aTruncatedDataFileIsNamedWithTheVersionAndNothingIsCommitted() throws IOException {
        try (UpsertHarness harness = seeded()) {
            Path file = onlyDataFile();
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength(raf.length() / 2);
            }
            assertMergeFailsNaming(harness, file.getFileName().toString());
        }
    }

    @Test
    void aCorruptLogVersionIsNamedAndNothingIsCommittedOnTopOfIt() throws IOException {
        try (UpsertHarness harness = seeded()) {
            long version = KernelTableReader.latestVersion(location());
            Path commit = dir.resolve("_delta_log").resolve(String.format("%020d.json", version));
            Files.writeString(commit, "{\"add\":{\"path\":\"x.parquet\",\"size\":");
            harness.upsert(7L, "new");
            Throwable error = catchThrowable(harness::commit);
            assertThat(error).isInstanceOf(DeltaLiteDamagedTableException.class);
            assertThat(error.getMessage())
                    .contains(location())
                    .contains("version " + version)
                    .containsIgnoringCase("restore");
            assertThat(
                            Files.exists(
                                    commit.resolveSibling(
                                            String.format("%020d.json", version + 1))))
                    .as("no commit on top of a log it cannot read")
                    .isFalse();
        }
    }

    @Test
    void aMissingLogCheckpointWhoseCommitsExpiredIsNamedAndNothingIsCommitted() throws IOException {
        try (UpsertHarness harness =
                UpsertHarness.open(location(), CHECKPOINTED, MergeOptions.DEFAULTS)) {
            for (long id = 1; id <= 4; id++) {
                harness.upsert(id, "v" + id);
                harness.commit();
            }
            long version = KernelTableReader.latestVersion(location());
            Path log = dir.resolve("_delta_log");
            List<Path> checkpoints;
            try (java.util.stream.Stream<Path> files = Files.list(log)) {
                checkpoints =
                        files.filter(f -> f.getFileName().toString().contains(".checkpoint."))
                                .sorted()
                                .toList();
            }
            assertThat(checkpoints).isNotEmpty();
            Path newest = checkpoints.get(checkpoints.size() - 1);
            long checkpointVersion =
                    Long.parseLong(newest.getFileName().toString().substring(0, 20));
            for (Path checkpoint : checkpoints) {
                Files.delete(checkpoint);
            }
            // While the commits before it remain, Kernel replays them instead: nothing is lost,
            // and committing is right. Once log cleanup expired them, the log cannot be read.
            for (long expired = 0; expired <= checkpointVersion; expired++) {
                Files.delete(log.resolve(String.format("%020d.json", expired)));
            }

            harness.upsert(9L, "new");
            Throwable error = catchThrowable(harness::commit);
            assertThat(error).isInstanceOf(DeltaLiteDamagedTableException.class);
            assertThat(error.getMessage())
                    .contains(location())
                    .contains("log checkpoint at version " + checkpointVersion)
                    .contains("_last_checkpoint");
            assertThat(Files.exists(log.resolve(String.format("%020d.json", version + 1))))
                    .isFalse();
        }
    }

    /**
     * Kernel writes a log checkpoint from the previous checkpoint and the commits since; if the
     * previous checkpoint cannot be read halfway, Parquet's writer still closes with a valid
     * footer. Published, that checkpoint would lack every file of the older one: rows would vanish
     * for every reader. It must not be published; the commit stands.
     */
    @Test
    void aLogCheckpointWhoseSourceCannotBeReadIsNotPublished() throws IOException {
        try (UpsertHarness harness =
                UpsertHarness.open(location(), CHECKPOINTED, MergeOptions.DEFAULTS)) {
            for (long id = 1; id <= 5; id++) {
                harness.upsert(id, "v" + id);
                harness.commit();
            }
            Path log = dir.resolve("_delta_log");
            long version = KernelTableReader.latestVersion(location());
            assertThat(version % 2).as("the next commit writes a log checkpoint").isEqualTo(1);
            String previous = String.format("%020d.checkpoint.parquet", version - 1);
            assertThat(log.resolve(previous)).exists();

            harness.upsert(6L, "v6");
            List<PartitionWriteResult> prepared = harness.prepare();
            io.deltalite.flink.internal.faults.StorageFaults.arm(
                    (operation, path, done) -> {
                        if (operation
                                        == io.deltalite.flink.internal.faults.StorageFaults
                                                .Operation.READ_FILE
                                && path.endsWith(previous)
                                && whileWritingALogCheckpoint()) {
                            throw new IOException("injected: cannot read " + path);
                        }
                    });
            CommitOutcome outcome;
            try {
                outcome = harness.commitPrepared(harness.lastCheckpoint(), prepared);
            } finally {
                io.deltalite.flink.internal.faults.StorageFaults.disarm();
            }

            assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(log.resolve(String.format("%020d.checkpoint.parquet", version + 1)))
                    .as("no partial checkpoint")
                    .doesNotExist();
            assertThat(KernelTableReader.readAll(location())).hasSize(6);
        }
    }

    /** Whether this thread is inside Kernel's log checkpoint writer (not the commit's reads). */
    private static boolean whileWritingALogCheckpoint() {
        for (StackTraceElement frame : Thread.currentThread().getStackTrace()) {
            if (frame.getClassName().contains("Checkpointer")) {
                return true;
            }
        }
        return false;
    }

    private void assertMergeFailsNaming(UpsertHarness harness, String fileName) {
        long version = KernelTableReader.latestVersion(location());
        harness.upsert(2L, "updated");
        Throwable error = catchThrowable(harness::commit);
        assertThat(error).isInstanceOf(DeltaLiteDamagedTableException.class);
        assertThat(error.getMessage())
                .contains(fileName)
                .contains(location())
                .contains("version " + version)
                .contains("FSCK");
        assertThat(KernelTableReader.latestVersion(location())).isEqualTo(version);
        harness.writer().discardUncommittable();
        assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
    }

    private UpsertHarness seeded() {
        UpsertHarness harness = UpsertHarness.open(location(), ITEMS, MergeOptions.DEFAULTS);
        for (long id = 1; id <= 3; id++) {
            harness.upsert(id, "v" + id);
        }
        harness.commit();
        return harness;
    }

    private Path onlyDataFile() {
        List<String> files = List.copyOf(KernelTableReader.readByFile(location()).keySet());
        assertThat(files).hasSize(1);
        String path = files.get(0);
        return path.contains(":") ? Path.of(URI.create(path)) : dir.resolve(path);
    }

    private String location() {
        return dir.toString();
    }
}
