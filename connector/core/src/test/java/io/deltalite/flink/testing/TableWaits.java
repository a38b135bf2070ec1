package io.deltalite.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Waits for a table that a running job writes: for its commits, or for its rows. */
public final class TableWaits {
    private TableWaits() {}

    /** Returns once the table has {@code commits} commits after its creation. */
    public static void awaitCommits(Path table, long commits, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (created(table) && KernelTableReader.latestVersion(table.toString()) >= commits) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(
                "The job made no " + commits + " commit(s) to " + table + " in " + timeout);
    }

    /** Whether the table's first commit is there (its log directory comes before it). */
    private static boolean created(Path table) {
        return Files.exists(table.resolve("_delta_log").resolve("00000000000000000000.json"));
    }

    /** Returns once the table holds exactly {@code expected}; fails with the difference. */
    public static void awaitRows(Path table, List<Object[]> expected, Duration timeout)
            throws InterruptedException {
        awaitRows(table, expected, timeout, () -> null);
    }

    /**
     * Why the job that writes a table stopped, or null while it runs: lets a wait end as soon as
     * the job has stopped instead of running out its timeout, and report the job's own failure.
     */
    @FunctionalInterface
    public interface JobEnd {
        String stopped() throws Exception;
    }

    /**
     * Returns once the table holds exactly {@code expected}; fails with the difference, or at once
     * with the job's failure when the job that writes the table stops before that.
     */
    public static void awaitRows(
            Path table, List<Object[]> expected, Duration timeout, JobEnd writer)
            throws InterruptedException {
        List<String> sorted = Rows.sorted(expected);
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> actual = List.of();
        while (System.nanoTime() < deadline) {
            String stopped;
            try {
                stopped = writer.stopped();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new AssertionError(
                        "Could not ask the job writing " + table + " its state", e);
            }
            if (stopped != null) {
                List<String> now =
                        created(table)
                                ? Rows.sorted(KernelTableReader.readAll(table.toString()))
                                : List.of();
                if (now.equals(sorted)) {
                    return;
                }
                throw new AssertionError(
                        "The job writing "
                                + table
                                + " stopped before the table held the "
                                + sorted.size()
                                + " expected rows (it holds "
                                + now.size()
                                + "): "
                                + stopped);
            }
            if (created(table)) {
                actual = Rows.sorted(KernelTableReader.readAll(table.toString()));
                if (actual.equals(sorted)) {
                    return;
                }
            }
            Thread.sleep(300);
        }
        assertThat(actual).as("the table %s after %s", table, timeout).isEqualTo(sorted);
    }
}
