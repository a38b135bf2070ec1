package io.deltalite.flink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Benchmark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 6 of BENCHMARKS.md: 1,000,000 keys over 16 partitions, parallelism 2, checkpoints every
 * 5 s, repeated. Not part of the default build:
 *
 * <pre>
 * mvn -B -ntp -pl connector test -Dtest=FlinkThroughputBenchmark -Dsurefire.excludedGroups= -Dtest.jvm.jit= [-Dbench.repetitions=3]
 * </pre>
 */
class FlinkThroughputBenchmark {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(
                                    new Configuration()
                                            .set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 1_000))
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(3)
                            .build());

    @TempDir Path dir;

    /** A small run in every build, so the benchmark keeps working. */
    @Test
    void smallRunReportsThroughputAndCommitLatency(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        FlinkThroughput.Result result =
                FlinkThroughput.run(cluster, dir.resolve("small"), 30_000, 500, 0, WriteMode.AUTO);
        assertThat(result.recordsPerSecond()).isPositive();
        assertThat(result.commits()).isPositive();
        assertThat(result.commitLatenciesMillis())
                .allSatisfy(latency -> assertThat(latency).isPositive());
    }

    @Test
    @Benchmark
    void oneMillionKeys(@InjectMiniCluster MiniCluster cluster) throws Exception {
        int repetitions = Integer.getInteger("bench.repetitions", 3);
        StringBuilder report = new StringBuilder("\n### 6. End-to-end Flink throughput\n\n");
        report.append(
                "| write mode | run | source | records | records/s | commits | commit latency p50 ms"
                        + " | p99 ms |\n");
        report.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        // The table the sink creates allows deletion vectors, so auto writes them; modes alternate.
        java.util.Map<WriteMode, List<FlinkThroughput.Result>> unthrottled =
                new java.util.EnumMap<>(WriteMode.class);
        java.util.Map<WriteMode, List<FlinkThroughput.Result>> steady =
                new java.util.EnumMap<>(WriteMode.class);
        List<WriteMode> modes = List.of(WriteMode.COPY_ON_WRITE, WriteMode.AUTO);
        for (int i = 0; i < repetitions; i++) {
            for (WriteMode mode : modes) {
                unthrottled
                        .computeIfAbsent(mode, m -> new ArrayList<>())
                        .add(
                                FlinkThroughput.run(
                                        cluster,
                                        dir.resolve(mode + "-max-" + i),
                                        1_000_000,
                                        5_000,
                                        0,
                                        mode));
                // At a steady 20,000 records/s the run spans about ten checkpoints.
                steady.computeIfAbsent(mode, m -> new ArrayList<>())
                        .add(
                                FlinkThroughput.run(
                                        cluster,
                                        dir.resolve(mode + "-steady-" + i),
                                        1_000_000,
                                        5_000,
                                        20_000,
                                        mode));
            }
        }
        for (WriteMode mode : modes) {
            appendRows(report, mode, unthrottled.get(mode), "as fast as possible");
            appendRows(report, mode, steady.get(mode), "20,000 records/s");
        }
        System.out.println(report);
    }

    private static void appendRows(
            StringBuilder report,
            WriteMode mode,
            List<FlinkThroughput.Result> results,
            String source) {
        for (int i = 0; i < results.size(); i++) {
            FlinkThroughput.Result r = results.get(i);
            report.append(
                    String.format(
                            "| %s | %d | %s | %,d | %,.0f | %d | %d | %d |%n",
                            mode,
                            i + 1,
                            source,
                            r.records(),
                            r.recordsPerSecond(),
                            r.commits(),
                            r.latencyPercentile(50),
                            r.latencyPercentile(99)));
        }
    }
}
