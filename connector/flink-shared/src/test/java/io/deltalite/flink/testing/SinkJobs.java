package io.deltalite.flink.testing;

import io.deltalite.flink.sink.DeltaLiteSink;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** Flink jobs that replay a {@link ChangeScript} into a deltalite sink. */
public final class SinkJobs {
    private SinkJobs() {}

    /** The mini cluster of the sink's ITCases: two TaskManagers of two slots each. */
    public static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(2)
                        .setNumberSlotsPerTaskManager(2)
                        .build());
    }

    /** An environment with checkpoints every {@code interval} and quick restarts. */
    public static StreamExecutionEnvironment environment(
            Duration checkpointInterval, int restarts) {
        Configuration configuration = new Configuration();
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
        configuration.set(
                RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.enableCheckpointing(checkpointInterval.toMillis());
        return env;
    }

    /**
     * Scripts by id: jobs refer to their script by id instead of carrying a copy of it, which the
     * mini cluster would keep for every job it ran (the scripts of long runs are large).
     */
    private static final Map<String, ChangeScript> SCRIPTS = new ConcurrentHashMap<>();

    private static final java.util.concurrent.atomic.AtomicLong NEXT_SCRIPT =
            new java.util.concurrent.atomic.AtomicLong();

    /** The script as a rate-limited, checkpointed source of parallelism 1 (order is kept). */
    public static DataStream<RowData> changes(
            StreamExecutionEnvironment env, ChangeScript script, double recordsPerSecond) {
        String id = "script-" + NEXT_SCRIPT.incrementAndGet();
        SCRIPTS.put(id, script);
        DataGeneratorSource<RowData> source =
                new DataGeneratorSource<>(
                        index -> SCRIPTS.get(id).rowData(index),
                        script.size(),
                        RateLimiterStrategy.perSecond(recordsPerSecond),
                        InternalTypeInfo.of(script.rowType()));
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "changes")
                .setParallelism(1)
                .uid("changes");
    }

    /**
     * As {@link #changes}, but the last quarter of the records waits until the failure counted by
     * {@code failures} was injected and the restarted job completed two checkpoints ({@link
     * TailAfterRecovery}): a failure test whose failure must not come close to the end of the
     * input, however slow the machine.
     */
    public static DataStream<RowData> changesEndingAfterRecovery(
            StreamExecutionEnvironment env,
            ChangeScript script,
            double recordsPerSecond,
            java.util.concurrent.atomic.AtomicInteger failures) {
        String id = "script-" + NEXT_SCRIPT.incrementAndGet();
        SCRIPTS.put(id, script);
        TailAfterRecovery.register(id, script.size(), failures);
        DataGeneratorSource<RowData> source =
                new DataGeneratorSource<>(
                        index -> {
                            TailAfterRecovery.produced(id, index);
                            return SCRIPTS.get(id).rowData(index);
                        },
                        script.size(),
                        TailAfterRecovery.strategy(id, recordsPerSecond),
                        InternalTypeInfo.of(script.rowType()));
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "changes")
                .setParallelism(1)
                .uid("changes");
    }

    public static void sink(DataStream<RowData> changes, DeltaLiteSink sink, int parallelism) {
        changes.sinkTo(sink).setParallelism(parallelism).uid("deltalite").name("deltalite");
    }

    /**
     * Arms {@code point} to throw once, at its {@code failAt}-th occurrence for the table at {@code
     * table} (records for {@code WRITE}, checkpoints for the others).
     *
     * @return how many failures were injected so far
     */
    public static java.util.concurrent.atomic.AtomicInteger failOnceAt(
            io.deltalite.flink.internal.faults.FaultInjection.Point point,
            java.nio.file.Path table,
            long failAt) {
        java.util.concurrent.atomic.AtomicInteger failures =
                new java.util.concurrent.atomic.AtomicInteger();
        io.deltalite.flink.internal.faults.FaultInjection.arm(
                point,
                (location, occurrence) -> {
                    if (location.equals(table.toString())
                            && occurrence == failAt
                            && failures.getAndIncrement() == 0) {
                        throw new RuntimeException("injected failure at " + point);
                    }
                });
        return failures;
    }

    /**
     * Cancels {@code job} and waits until it stopped, so that no merge of it runs into the next
     * test; fails if it has not stopped after a minute.
     */
    public static void cancelAndAwaitStop(org.apache.flink.core.execution.JobClient job)
            throws Exception {
        job.cancel().get(1, java.util.concurrent.TimeUnit.MINUTES);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(1);
        while (!job.getJobStatus()
                .get(10, java.util.concurrent.TimeUnit.SECONDS)
                .isGloballyTerminalState()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "job " + job.getJobID() + " did not stop within a minute of its cancel");
            }
            Thread.sleep(50);
        }
    }

    /**
     * Waits until {@code table} holds {@code commits} more sink commits than {@code before}; fails
     * if the job ends first or two minutes pass.
     */
    public static void awaitCommits(
            org.apache.flink.core.execution.JobClient job,
            java.nio.file.Path table,
            int before,
            int commits)
            throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
        while (io.deltalite.flink.testing.DeltaHistory.transactionIds(table).size()
                < before + commits) {
            org.assertj.core.api.Assertions.assertThat(
                            job.getJobStatus().get().isGloballyTerminalState())
                    .as("the job ended before " + commits + " commits")
                    .isFalse();
            org.assertj.core.api.Assertions.assertThat(System.nanoTime())
                    .as(commits + " commits within 2 minutes")
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /**
     * Waits for {@code commits} more commits of {@code job} into {@code table} than {@code before},
     * then stops the job with a canonical savepoint under {@code savepoints}; returns its path.
     */
    public static String savepointAfterCommits(
            org.apache.flink.core.execution.JobClient job,
            java.nio.file.Path table,
            int before,
            int commits,
            java.nio.file.Path savepoints)
            throws Exception {
        awaitCommits(job, table, before, commits);
        return job.stopWithSavepoint(
                        false,
                        savepoints.toUri().toString(),
                        org.apache.flink.core.execution.SavepointFormatType.CANONICAL)
                .get();
    }
}
