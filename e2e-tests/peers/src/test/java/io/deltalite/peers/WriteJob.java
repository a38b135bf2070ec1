package io.deltalite.peers;

import io.deltalite.peers.Changelog.Phase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.SubtaskStateStats;
import org.apache.flink.runtime.checkpoint.TaskStateStats;
import org.apache.flink.runtime.executiongraph.ArchivedExecutionGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * One write job in a JVM of its own, on one system's class path: a local Flink cluster, the
 * changelog source at parallelism 1 (throttled when {@code rate > 0}), the system's sink at {@code
 * parallelism}, a checkpoint every {@code checkpointMillis}. Reports records, the job's runtime,
 * commits, the latency from each checkpoint's trigger to its rows becoming visible, and the JVM's
 * peak RSS.
 */
public final class WriteJob {
    private WriteJob() {}

    public static void main(String[] args) throws Exception {
        JobArguments job = JobArguments.parse(args);
        PeerSystem system = PeerSystem.valueOf(job.get("system"));
        Phase phase = Phase.valueOf(job.get("phase"));
        Path table = job.getPath("table");
        long records = job.getLong("records");
        int parallelism = (int) job.getLong("parallelism");
        double rate = job.getDouble("rate");
        boolean partitioned = phase == Phase.LATE_CORRECTIONS;
        Target target = system.target();
        if (phase != Phase.CDC) {
            target.create(table, partitioned);
        }

        Configuration configuration = new Configuration();
        configuration.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 100_000);
        // A failure is a result to report, not something to retry into the measurement.
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(configuration)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(parallelism)
                                .build());
        cluster.start();
        try {
            TestStreamEnvironment.setAsContext(cluster, parallelism);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.enableCheckpointing(job.getLong("checkpointMillis"));
            // Flink settings to try against the defaults (k=v;k=v through bench.childFlags as
            // -Dbench.flinkOptions=...), e.g. execution.checkpointing.min-pause; empty in every
            // published run unless its section says otherwise.
            Configuration tried = new Configuration();
            for (String option : System.getProperty("bench.flinkOptions", "").split(";")) {
                if (!option.isBlank()) {
                    String[] keyValue = option.split("=", 2);
                    if (keyValue.length != 2) {
                        throw new IllegalArgumentException(
                                "bench.flinkOptions takes key=value;key=value, not " + option);
                    }
                    tried.setString(keyValue[0].trim(), keyValue[1].trim());
                }
            }
            env.configure(tried);
            ChangelogGenerator generator =
                    new ChangelogGenerator(
                            phase, job.getLong("bulk"), records, job.getLong("eventsPerDay"));
            DataGeneratorSource<RowData> source =
                    rate > 0
                            ? new DataGeneratorSource<>(
                                    generator,
                                    records,
                                    RateLimiterStrategy.perSecond(rate),
                                    InternalTypeInfo.of(Target.ROW_TYPE))
                            : new DataGeneratorSource<>(
                                    generator, records, InternalTypeInfo.of(Target.ROW_TYPE));
            DataStream<RowData> changes =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "changelog")
                            .setParallelism(1);
            target.sink(changes, table, partitioned, parallelism);
            long started = System.currentTimeMillis();
            JobExecutionResult result = env.execute(system + " " + phase);

            Map<Long, Long> committed = target.commitTimes(table, started);
            List<Long> latencies = new ArrayList<>();
            List<String> phases = new ArrayList<>();
            ArchivedExecutionGraph graph =
                    cluster.getArchivedExecutionGraph(result.getJobID()).get();
            // In checkpoint order (Flink's history lists the newest first).
            List<AbstractCheckpointStats> checkpoints =
                    new ArrayList<>(
                            graph.getCheckpointStatsSnapshot().getHistory().getCheckpoints());
            checkpoints.sort(
                    java.util.Comparator.comparingLong(AbstractCheckpointStats::getCheckpointId));
            for (AbstractCheckpointStats checkpoint : checkpoints) {
                Long at = committed.get(checkpoint.getCheckpointId());
                if (at != null) {
                    latencies.add(at - checkpoint.getTriggerTimestamp());
                    phases.add(phases(graph, checkpoint, at));
                }
            }
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("records", records);
            report.put("runtimeMillis", result.getNetRuntime(TimeUnit.MILLISECONDS));
            report.put("commits", committed.size());
            report.put(
                    "latencies",
                    latencies.stream().map(String::valueOf).collect(Collectors.joining(",")));
            report.put("phases", String.join(" | ", phases));
            report.put("peakRssBytes", JobArguments.peakRssBytes());
            JobArguments.report(job.getPath("result"), report);
        } finally {
            TestStreamEnvironment.unsetAsContext();
            cluster.close();
        }
    }

    /**
     * Where a checkpoint's latency went: {@code id: total=ms complete=ms} (trigger to visible,
     * trigger to the checkpoint's last acknowledgement), then per operator chain the slowest
     * subtask's barrier delay (trigger to the barrier's arrival), alignment and synchronous part
     * (for a sink writer, its merge) and its acknowledgement, all in ms.
     */
    private static String phases(
            ArchivedExecutionGraph graph, AbstractCheckpointStats checkpoint, long visibleAt) {
        long trigger = checkpoint.getTriggerTimestamp();
        StringBuilder line =
                new StringBuilder()
                        .append(checkpoint.getCheckpointId())
                        .append(": total=")
                        .append(visibleAt - trigger)
                        .append(" complete=")
                        .append(checkpoint.getLatestAckTimestamp() - trigger);
        for (TaskStateStats task : checkpoint.getAllTaskStateStats()) {
            long delay = 0;
            long alignment = 0;
            long sync = 0;
            long ack = 0;
            for (SubtaskStateStats subtask : task.getSubtaskStats()) {
                if (subtask == null) {
                    continue;
                }
                delay = Math.max(delay, subtask.getCheckpointStartDelay());
                alignment = Math.max(alignment, subtask.getAlignmentDuration());
                sync = Math.max(sync, subtask.getSyncCheckpointDuration());
                ack = Math.max(ack, subtask.getAckTimestamp() - trigger);
            }
            String name = graph.getJobVertex(task.getJobVertexId()).getName();
            line.append(" [")
                    .append(name.length() > 24 ? name.substring(0, 24) : name)
                    .append(" delay=")
                    .append(delay)
                    .append(" align=")
                    .append(alignment)
                    .append(" sync=")
                    .append(sync)
                    .append(" ack=")
                    .append(ack)
                    .append(']');
        }
        return line.toString();
    }
}
