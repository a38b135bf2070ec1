package io.deltalite.flink.internal.delta.fileio;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep runs while writers publish their temporary files and other sinks sweep the same table:
 * a file listed may be gone before the sweep looks at it, and the sweep goes on with the others.
 */
class TemporaryFileSweepRaceTest {
    @TempDir Path dir;

    @Test
    void aTemporaryFileThatVanishesWhileTheSweepListsItsFolderDoesNotStopTheSweep()
            throws IOException {
        Path table = dir.resolve("t");
        Instant twoHoursAgo = Instant.now().minus(Duration.ofHours(2));
        List<Path> old = new ArrayList<>();
        for (String folder : List.of("_delta_log", "_deltalite/journal/app", "_deltalite/staged")) {
            for (int i = 0; i < 3; i++) {
                old.add(temporary(table.resolve(folder), twoHoursAgo));
            }
        }
        Configuration conf = new Configuration(false);
        conf.setClass(
                "fs.file.impl", VanishingListing.class, org.apache.hadoop.fs.FileSystem.class);
        conf.setBoolean("fs.file.impl.disable.cache", true);

        List<String> deleted =
                TemporaryFileSweep.sweep(table.toString(), conf, System.currentTimeMillis());

        old.forEach(file -> assertThat(file).as("swept or vanished").doesNotExist());
        assertThat(deleted)
                .as("every temporary file but those that vanished while listed")
                .hasSize(old.size() - VanishingListing.vanished(conf));
    }

    private static Path temporary(Path folder, Instant modified) throws IOException {
        Files.createDirectories(folder);
        Path file = folder.resolve("." + UUID.randomUUID() + ".tmp");
        Files.write(file, new byte[] {'{'});
        Files.setLastModifiedTime(file, FileTime.from(modified));
        return file;
    }

    /**
     * The local file system, where another process removes the first temporary file of each folder
     * right after the folder was listed: a writer publishing it, or another sink's sweep.
     */
    public static final class VanishingListing extends RawLocalFileSystem {
        private static final String COUNT = "test.vanished";

        @Override
        public FileStatus[] listStatus(org.apache.hadoop.fs.Path folder) throws IOException {
            FileStatus[] listed = super.listStatus(folder);
            for (FileStatus file : listed) {
                if (file.getPath().getName().endsWith(".tmp")) {
                    Files.delete(Path.of(file.getPath().toUri()));
                    getConf().setInt(COUNT, getConf().getInt(COUNT, 0) + 1);
                    break;
                }
            }
            return listed;
        }

        static int vanished(Configuration conf) {
            return conf.getInt(COUNT, 0);
        }
    }
}
