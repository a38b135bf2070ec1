package io.deltalite.flink.testing;

import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.sink.DeltaLiteOptions;
import io.deltalite.flink.sink.DeltaLiteSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The job of the Flink upgrade test ({@code e2e-tests/flink-upgrade}), which runs it in a JVM of
 * its own on one Flink line with that line's connector artifact: {@link #script()} replayed into a
 * table, from a savepoint or from the start. The same source is compiled for each line, so both
 * lines build the same job graph (same operator uids, same sink).
 *
 * <p>Arguments: the table, the savepoint directory, the savepoint to restore ({@code -} for none)
 * and what to do:
 *
 * <ul>
 *   <li>{@code savepoint-and-halt N}: commits lag a second behind their checkpoints; once N commits
 *       of this job landed, take a savepoint (the job goes on), print {@code SAVEPOINT <path>} and
 *       halt the JVM at once, as a machine switched off would. The savepoint holds results that are
 *       prepared but whose commit never landed.
 *   <li>{@code finish}: run to the end of the script.
 * </ul>
 *
 * A failure prints its stack trace and exits with status 1.
 */
public final class FlinkUpgradeJob {
    private FlinkUpgradeJob() {}

    /**
     * The changes every run replays: 10,000 changes of 800 keys over four partitions, 25 seconds of
     * input for a job that is to take a savepoint (time for its first commit on a busy machine),
     * three for a job that finishes the script.
     */
    public static ChangeScript script() {
        return ChangeScript.generate(29, 10_000, 800, 4, false);
    }

    public static void main(String[] args) {
        try {
            run(args);
            System.out.flush();
            System.exit(0);
        } catch (Throwable e) {
            e.printStackTrace();
            System.err.flush();
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        Path table = Path.of(args[0]);
        Path savepoints = Path.of(args[1]);
        String restore = args[2];
        String mode = args[3];
        ChangeScript script = script();
        Configuration configuration = new Configuration();
        if (!restore.equals("-")) {
            configuration.set(StateRecoveryOptions.SAVEPOINT_PATH, restore);
        }
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(200), 0);
        env.configure(configuration);
        DeltaLiteSink sink =
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("64kb"))
                        .build();
        // Slow while a savepoint is to be taken in the middle of the script, fast to finish it.
        double recordsPerSecond = mode.equals("finish") ? 3_000 : 400;
        SinkJobs.sink(SinkJobs.changes(env, script, recordsPerSecond), sink, 2);
        if (mode.equals("finish")) {
            env.execute("upgrade-" + mode);
            System.out.println("FINISHED");
            return;
        }
        if (!mode.equals("savepoint-and-halt")) {
            throw new IllegalArgumentException("Unknown mode " + mode);
        }

        FaultInjection.arm(
                FaultInjection.Point.BEFORE_COMMIT, (location, occurrence) -> Thread.sleep(1_000));
        Set<String> earlierApps = appIds(table);
        int commits = Integer.parseInt(args[4]);
        JobClient job = env.executeAsync("upgrade-" + mode);
        while (DeltaHistory.commits(table).stream()
                        .filter(commit -> commit.appId() != null)
                        .filter(commit -> !earlierApps.contains(commit.appId()))
                        .count()
                < commits) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get();
                throw new IllegalStateException("The job ended before " + commits + " commits");
            }
            Thread.sleep(50);
        }
        String savepoint =
                job.triggerSavepoint(savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(2, TimeUnit.MINUTES);
        System.out.println("SAVEPOINT " + savepoint);
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    private static Set<String> appIds(Path table) {
        return DeltaHistory.commits(table).stream()
                .map(DeltaHistory.Commit::appId)
                .filter(id -> id != null)
                .collect(Collectors.toSet());
    }
}
