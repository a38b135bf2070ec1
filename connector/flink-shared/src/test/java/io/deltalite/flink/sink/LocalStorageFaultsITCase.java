package io.deltalite.flink.sink;

import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertEachCheckpointCommittedOnce;
import static io.deltalite.flink.sink.DeltaLiteSinkITCase.assertTableEquals;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.deltalite.flink.exceptions.DeltaLiteStorageException;
import io.deltalite.flink.internal.faults.StorageFaults;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.LocalDisks;
import io.deltalite.flink.testing.SinkJobs;
import io.deltalite.flink.testing.s3.CapturedLogs;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local disk that fills up under a running job, and a table folder the sink may not write. A real
 * size-limited file system (tmpfs) where the machine lets the test mount one; else the table's file
 * access fails its writes with the error a full disk gives.
 */
class LocalStorageFaultsITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    @TempDir Path dir;

    private Path mounted;

    @AfterEach
    void unmount() throws Exception {
        StorageFaults.disarm();
        if (mounted != null) {
            LocalDisks.unmount(mounted);
        }
    }

    @Test
    void aFullDiskFailsCheckpointsUntilThereIsSpaceAndLosesNothing() throws Exception {
        Path disk = dir.resolve("disk");
        Files.createDirectories(disk);
        boolean real = mount(disk, "size=48m");
        Path table = disk.resolve("t");
        ChangeScript script = ChangeScript.generate(31, 8_000, 1_500, 4, false);
        String logs;
        try (CapturedLogs captured = CapturedLogs.start(Map.of("io.deltalite", Level.WARN))) {
            StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(300), 100);
            SinkJobs.sink(
                    SinkJobs.changes(env, script, 1_000),
                    DeltaLiteSink.forTable(table.toString())
                            .rowType(script.rowType())
                            .primaryKey(script.primaryKey())
                            .partitionKey("day")
                            .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("64kb"))
                            .build(),
                    2);
            CompletableFuture<Void> job =
                    CompletableFuture.runAsync(
                            () -> {
                                try {
                                    env.execute("deltalite-full-disk");
                                } catch (Exception e) {
                                    throw new RuntimeException(e);
                                }
                            });
            Thread.sleep(2_500);
            Path filler = disk.resolve("filler");
            if (real) {
                fill(filler);
            } else {
                StorageFaults.arm(
                        (operation, path, done) -> {
                            if (!done
                                    && operation != StorageFaults.Operation.READ_FILE
                                    && path.contains(table.toString())) {
                                throw new IOException("No space left on device");
                            }
                        });
            }
            Thread.sleep(4_000);
            assertThat(job).as("the job waits for space").isNotDone();
            if (real) {
                Files.delete(filler);
            } else {
                StorageFaults.disarm();
            }
            job.get(3, TimeUnit.MINUTES);
            logs = captured.text();
        }

        assertThat(LocalDisks.openFilesUnder(disk))
                .as("files the finished job left open")
                .isEmpty();
        assertThat(logs)
                .contains("No space left on device")
                .contains(table.toString())
                .contains(DeltaLiteStorageException.class.getName());
        assertTableEquals(table, script.expected());
        assertEachCheckpointCommittedOnce(table);
        assertThat(DeltaHistory.missingReferencedFiles(table)).isEmpty();
        assertThat(DeltaHistory.uncommittedDataFiles(table)).isEmpty();
    }

    @Test
    void aTableFolderTheSinkMayNotWriteFailsTheJobSayingSo() throws Exception {
        Path disk = dir.resolve("readonly");
        Files.createDirectories(disk);
        Assumptions.assumeTrue(
                mount(disk, "size=1m")
                        && LocalDisks.run("mount", "-o", "remount,ro", disk.toString()),
                "a read-only file system needs a mount, which this machine does not allow");
        String table = disk.resolve("t").toString();
        ChangeScript script = ChangeScript.generate(1, 10, 10, 1, false);
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(300), 0);
        SinkJobs.sink(
                SinkJobs.changes(env, script, 1_000),
                DeltaLiteSink.forTable(table)
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .build(),
                1);
        Throwable thrown =
                assertTimeoutPreemptively(
                        Duration.ofSeconds(60),
                        () -> {
                            try {
                                env.execute("deltalite-read-only");
                                return null;
                            } catch (Exception e) {
                                return e;
                            }
                        });
        assertThat(thrown).as("the job failed").isNotNull();
        Optional<DeltaLiteStorageException> storage =
                ExceptionUtils.findThrowable(thrown, DeltaLiteStorageException.class);
        assertThat(storage).as("a storage error in " + thrown).isPresent();
        assertThat(storage.get().getMessage())
                .contains(table)
                .contains("read-only file system")
                .contains("write permission");
    }

    /** Mounts a tmpfs at {@code where}, if this machine allows it. */
    private boolean mount(Path where, String options) throws Exception {
        if (LocalDisks.mount(where, options)) {
            mounted = where;
            return true;
        }
        return false;
    }

    /** Writes {@code file} until the file system is full. */
    private static void fill(Path file) throws IOException {
        byte[] block = new byte[64 * 1024];
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            // full
        }
    }
}
