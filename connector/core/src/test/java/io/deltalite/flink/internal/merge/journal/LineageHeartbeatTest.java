package io.deltalite.flink.internal.merge.journal;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.commit.TestDefinitions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A running job's heartbeat in a real table's journal: refreshed while started, never after. */
class LineageHeartbeatTest {
    private static final Duration INTERVAL = Duration.ofMillis(100);

    @TempDir Path dir;

    @Test
    void aStartedHeartbeatIsRefreshedEveryIntervalAndNoMoreOnceStopped() throws Exception {
        DeltaTable table = open();
        Path file = dir.resolve("_deltalite/journal/app/w3.heartbeat");
        LineageHeartbeat heartbeat =
                new LineageHeartbeat(table.journal(), dir.toString(), "app", "w3", INTERVAL);

        heartbeat.start();
        long first = awaitModified(file, -1);
        long refreshed = awaitModified(file, first);
        heartbeat.stop();
        long last = Files.getLastModifiedTime(file).toMillis();
        Thread.sleep(INTERVAL.toMillis() * 5);

        assertThat(refreshed).isGreaterThan(first);
        assertThat(Files.getLastModifiedTime(file).toMillis()).isEqualTo(last);
        assertThat(Files.readString(file)).isEqualTo("#deltalite-heartbeat 1 100\n");
        Optional<AttemptJournal.Heartbeat> listed =
                table.journal().lineages().stream()
                        .filter(lineage -> lineage.appId().equals("app"))
                        .findFirst()
                        .orElseThrow()
                        .heartbeat();
        assertThat(listed).contains(new AttemptJournal.Heartbeat(last, INTERVAL));
    }

    @Test
    void aHeartbeatWhoseWriteFailedIsWrittenAgainLongBeforeItsNextInterval() throws Exception {
        DeltaTable table = open();
        // The storage refuses the write: a file stands where the lineage's folder goes.
        Path folder = dir.resolve("_deltalite/journal/app");
        Files.createDirectories(folder.getParent());
        Files.write(folder, new byte[0]);
        Path file = folder.resolve("w0.heartbeat");
        Duration interval = Duration.ofMinutes(10);
        LineageHeartbeat heartbeat =
                new LineageHeartbeat(table.journal(), dir.toString(), "app", "w0", interval);

        heartbeat.start();
        try {
            Thread.sleep(500);
            System.err.println(
                    "DEBUG folder is dir "
                            + Files.isDirectory(folder)
                            + " regular "
                            + Files.isRegularFile(folder));
            assertThat(Files.exists(file)).as("the first beat failed").isFalse();
            Files.delete(folder);
            long written = awaitModified(file, -1, Duration.ofSeconds(30));
            assertThat(written).isPositive();
        } finally {
            heartbeat.stop();
        }
    }

    @Test
    void removingTheHeartbeatsOfAnEndedLineageLeavesNoFolder() throws Exception {
        DeltaTable table = open();
        table.journal().beat("app", "w0", INTERVAL);
        table.journal().beat("app", "c", INTERVAL);

        table.journal().removeLineage("app");
        assertThat(Files.exists(dir.resolve("_deltalite/journal/app/c.heartbeat"))).isTrue();

        table.journal().removeHeartbeats("app", Long.MAX_VALUE);
        table.journal().removeLineage("app");
        assertThat(Files.exists(dir.resolve("_deltalite/journal/app"))).isFalse();
        assertThat(table.journal().lineages()).isEmpty();
    }

    private static long awaitModified(Path file, long after) throws Exception {
        return awaitModified(file, after, Duration.ofSeconds(30));
    }

    private static long awaitModified(Path file, long after, Duration patience) throws Exception {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            if (Files.exists(file)) {
                long modified = Files.getLastModifiedTime(file).toMillis();
                if (modified > after) {
                    return modified;
                }
            }
            assertThat(System.nanoTime()).as("a heartbeat after %s", after).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private DeltaTable open() {
        UpsertHarness.open(dir.toString(), TestDefinitions.ITEMS, MergeOptions.DEFAULTS, "t")
                .close();
        return DeltaTable.open(
                dir.toString(),
                Map.of(),
                MergeOptions.DEFAULTS,
                TableDefinition.existingTable(),
                false);
    }
}
