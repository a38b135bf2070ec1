package io.deltalite.flink.internal.delta.fileio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.deltalite.flink.testing.LocalDisks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Writes to a local disk that is full, on a real size-limited file system (tmpfs; skipped where the
 * machine does not allow a mount): the write fails with an {@link IOException} naming the file, and
 * nothing of it stays open — an open file keeps its space and keeps the disk from being unmounted.
 */
class LocalDiskFullTest {
    @TempDir Path dir;

    private Path disk;

    @BeforeEach
    void mount() throws Exception {
        disk = dir.resolve("disk");
        Files.createDirectories(disk);
        Assumptions.assumeTrue(
                LocalDisks.mount(disk, "size=1m"),
                "a size-limited file system needs a mount, which this machine does not allow");
    }

    @AfterEach
    void unmount() throws Exception {
        LocalDisks.unmount(disk);
    }

    @ParameterizedTest(name = "putIfAbsent={0}")
    @ValueSource(booleans = {true, false})
    void aDataFileThatFillsTheDiskFailsAndLeavesNothingOpen(boolean putIfAbsent) throws Exception {
        RenamingFileIO io = RenamingFileIO.local(new HadoopFileIO(new Configuration()));
        String file = disk.resolve("t/day=1/part-1.parquet").toString();
        assertThatThrownBy(() -> writeTwoMegabytes(io, file, putIfAbsent))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(file)
                .hasMessageContaining("No space left on device");
        assertThat(LocalDisks.openFilesUnder(disk)).isEmpty();
        try (Stream<Path> left = Files.walk(disk)) {
            assertThat(left.filter(Files::isRegularFile)).as("files left").isEmpty();
        }
    }

    @Test
    void aLogFileThatFillsTheDiskFailsAndLeavesNothingOpen() throws Exception {
        RenamingFileIO io = RenamingFileIO.local(new HadoopFileIO(new Configuration()));
        String file = disk.resolve("t/_delta_log/00000000000000000001.json").toString();
        assertThatThrownBy(() -> writeTwoMegabytes(io, file, true)).isInstanceOf(IOException.class);
        assertThat(LocalDisks.openFilesUnder(disk)).isEmpty();
        try (Stream<Path> left = Files.walk(disk)) {
            assertThat(left.filter(Files::isRegularFile)).as("files left").isEmpty();
        }
    }

    @Test
    void aFileLeftUnfinishedWhenItsWriteScopeEndsIsDroppedAndClosed() throws Exception {
        TrackingFileIO io =
                new TrackingFileIO(
                        new FaultInjectingFileIO(
                                RenamingFileIO.local(new HadoopFileIO(new Configuration()))),
                        java.util.Map.of());
        String file = disk.resolve("t/day=1/part-2.parquet").toString();
        try (TrackingFileIO.WriteScope scope = new TrackingFileIO.WriteScope()) {
            PositionOutputStream out = io.newOutputFile(file).create(true);
            out.write(new byte[100_000]);
            assertThat(LocalDisks.openFilesUnder(disk)).hasSize(1);
        }
        assertThat(LocalDisks.openFilesUnder(disk)).isEmpty();
        try (Stream<Path> left = Files.walk(disk)) {
            assertThat(left.filter(Files::isRegularFile)).as("files left").isEmpty();
        }
    }

    @Test
    void aJournalNoteThatFillsTheDiskFailsAndLeavesNothingOpen() throws Exception {
        RenamingFileIO io = RenamingFileIO.local(new HadoopFileIO(new Configuration()));
        String file = disk.resolve("t/_deltalite/journal/app/7.files").toString();
        assertThatThrownBy(() -> writeTwoMegabytes(io, file, false))
                .isInstanceOf(IOException.class);
        assertThat(LocalDisks.openFilesUnder(disk)).isEmpty();
        try (Stream<Path> left = Files.walk(disk)) {
            assertThat(left.filter(Files::isRegularFile)).as("files left").isEmpty();
        }
    }

    private static void writeTwoMegabytes(RenamingFileIO io, String file, boolean putIfAbsent)
            throws IOException {
        byte[] block = new byte[16 * 1024];
        try (PositionOutputStream out = io.newOutputFile(file).create(putIfAbsent)) {
            for (int i = 0; i < 128; i++) {
                out.write(block);
            }
        }
    }
}
