package io.deltalite.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.examples.OrderTimeline;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The examples' job jar on a standalone Flink cluster of real processes — a JobManager and two
 * TaskManagers with one slot each, so the job runs on both — loses the TaskManager that commits to
 * {@code SIGKILL} after a few commits; a replacement TaskManager joins, the job restores its last
 * checkpoint and finishes. The table must then hold exactly the final state of the change stream,
 * and no checkpoint may have been committed twice.
 *
 * <p>The processes' output is kept in {@code target/flink-cluster-logs/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TaskManagerFailoverTest {
    /** About 160,000 source records at 5,000 per second: the job runs for half a minute or more. */
    private static final int ORDERS = 20_011;

    private static final int ROUNDS = 4;
    private static final int RECORDS_PER_SECOND = 5_000;
    private static final long CHECKPOINT_INTERVAL_MILLIS = 1_000;
    private static final int COMMITS_BEFORE_THE_KILL = 2;
    private static final Duration FIRST_COMMITS = Duration.ofMinutes(2);
    private static final Duration RECOVERY_AND_REST_OF_THE_JOB = Duration.ofMinutes(3);

    private Path table;
    private String jobId;
    private String killedTaskManager;
    private int commitsAtTheKill;
    private String finalState;
    private boolean restarted;
    private List<String> failures;
    private String logTails;

    @BeforeAll
    void runTheJobAndKillATaskManagerWhileItCommits(@TempDir Path dir) throws Exception {
        table = dir.resolve("orders");
        try (FlinkCluster cluster = FlinkCluster.start(dir.resolve("cluster"), logDirectory(), 2)) {
            ClusterRestApi rest = cluster.restApi();
            jobId =
                    JobSubmission.submitDetached(
                            cluster,
                            jobJar(),
                            List.of(
                                    "--table", table.toString(),
                                    "--orders", String.valueOf(ORDERS),
                                    "--rounds", String.valueOf(ROUNDS),
                                    "--rate", String.valueOf(RECORDS_PER_SECOND),
                                    "--checkpoint-interval",
                                            String.valueOf(CHECKPOINT_INTERVAL_MILLIS)));

            cluster.await(
                    COMMITS_BEFORE_THE_KILL + " commits of the job",
                    FIRST_COMMITS,
                    () -> DeltaHistory.transactionIds(table).size() >= COMMITS_BEFORE_THE_KILL);
            assertThat(rest.jobState(jobId))
                    .as("the job still runs when the TaskManager is killed")
                    .isEqualTo("RUNNING");

            FlinkProcess victim = committingTaskManager(cluster);
            victim.kill();
            commitsAtTheKill = DeltaHistory.transactionIds(table).size();
            killedTaskManager = victim.name();
            cluster.startTaskManager();

            cluster.await(
                    "the job to end",
                    RECOVERY_AND_REST_OF_THE_JOB,
                    () -> List.of("FINISHED", "FAILED", "CANCELED").contains(rest.jobState(jobId)));
            finalState = rest.jobState(jobId);
            restarted = rest.jobHasRestarted(jobId);
            failures = rest.jobFailures(jobId);
            logTails = cluster.logTails();
        }
    }

    @Test
    void theJobRestartsAfterLosingATaskManagerAndFinishes() {
        assertThat(finalState).as("the job's final state; %s", logTails).isEqualTo("FINISHED");
        assertThat(restarted).as("the job restarted; %s", logTails).isTrue();
        assertThat(failures)
                .as("the failures the job recovered from name the killed TaskManager; %s", logTails)
                .anyMatch(stackTrace -> stackTrace.contains(killedTaskManager));
        assertThat(DeltaHistory.transactionIds(table).size())
                .as("commits after the kill, of %d before it", commitsAtTheKill)
                .isGreaterThan(commitsAtTheKill);
    }

    @Test
    void theTableHoldsTheFinalStateOfEveryOrder() {
        Map<Long, Object[]> expected = new OrderTimeline(ORDERS, ROUNDS).expectedTable();
        List<Object[]> rows = KernelTableReader.readAll(table.toString());

        assertThat(differences(expected, rows))
                .as(
                        "differences between the table (%d rows) and the expected state (%d rows)",
                        rows.size(), expected.size())
                .isEmpty();
    }

    @Test
    void everyCommitCarriesOneApplicationIdAndADistinctCheckpoint() {
        List<DeltaHistory.Commit> commits = DeltaHistory.commits(table);
        List<DeltaHistory.Commit> dataCommits =
                commits.stream().filter(commit -> commit.adds() + commit.removes() > 0).toList();

        assertThat(dataCommits)
                .as("commits that change data carry the job's transaction id")
                .allMatch(commit -> commit.appId() != null);
        assertThat(
                        commits.stream()
                                .map(DeltaHistory.Commit::appId)
                                .filter(Objects::nonNull)
                                .distinct())
                .as("application ids in the history: the job keeps its own across the restart")
                .hasSize(1);
        assertThat(
                        commits.stream()
                                .filter(commit -> commit.appId() != null)
                                .map(DeltaHistory.Commit::txnVersion))
                .as("the checkpoint ids of the commits")
                .doesNotHaveDuplicates()
                .isSorted();
    }

    /**
     * The TaskManager that runs the committer: the one whose output has the example job's "commit
     * version N (checkpoint C)" lines. Killing it kills the source, the commit aggregator and the
     * committer at once, possibly in the middle of a commit.
     */
    private static FlinkProcess committingTaskManager(FlinkCluster cluster) {
        return cluster.taskManagers().stream()
                .filter(taskManager -> taskManager.output().contains("commit version"))
                .findFirst()
                .orElseThrow(
                        () ->
                                new AssertionError(
                                        "No TaskManager printed a commit.\n" + cluster.logTails()));
    }

    /** Missing, unexpected, duplicated and differing orders; at most 20, then a count. */
    private static List<String> differences(Map<Long, Object[]> expected, List<Object[]> rows) {
        List<String> differences = new ArrayList<>();
        Map<Long, Object[]> actual = new HashMap<>();
        for (Object[] row : rows) {
            Object[] previous = actual.put((Long) row[0], row);
            if (previous != null) {
                differences.add(
                        "order "
                                + row[0]
                                + " twice: "
                                + Rows.canonical(previous)
                                + " and "
                                + Rows.canonical(row));
            }
        }
        expected.forEach(
                (order, row) -> {
                    Object[] found = actual.get(order);
                    if (found == null) {
                        differences.add("order " + order + " missing: " + Rows.canonical(row));
                    } else if (!Rows.canonical(found).equals(Rows.canonical(row))) {
                        differences.add(
                                "order "
                                        + order
                                        + ": expected "
                                        + Rows.canonical(row)
                                        + " but found "
                                        + Rows.canonical(found));
                    }
                });
        actual.forEach(
                (order, row) -> {
                    if (!expected.containsKey(order)) {
                        differences.add("order " + order + " unexpected: " + Rows.canonical(row));
                    }
                });
        if (differences.size() <= 20) {
            return differences;
        }
        List<String> first = new ArrayList<>(differences.subList(0, 20));
        first.add("... and " + (differences.size() - 20) + " more");
        return first;
    }

    private static Path jobJar() {
        Path jar = Paths.get(System.getProperty("flink.job.jar", "(flink.job.jar not set)"));
        assertThat(jar).as("the examples' job jar; run the tests through Maven").isRegularFile();
        return jar;
    }

    /** target/flink-cluster-logs/TaskManagerFailoverTest, emptied of an earlier run's logs. */
    private static Path logDirectory() throws IOException {
        Path logs =
                Paths.get(System.getProperty("flink.cluster.logs", "target/flink-cluster-logs"))
                        .resolve(TaskManagerFailoverTest.class.getSimpleName());
        Files.createDirectories(logs);
        try (Stream<Path> files = Files.list(logs)) {
            for (Path log : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                Files.delete(log);
            }
        }
        return logs;
    }
}
