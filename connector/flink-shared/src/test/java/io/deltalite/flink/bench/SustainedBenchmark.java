package io.deltalite.flink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Benchmark;
import java.nio.file.Path;
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
 * Scenario 8 of BENCHMARKS.md: a table written steadily for a long time, in copy-on-write and
 * deletion-vector mode, with and without compaction. Not part of the default build:
 *
 * <pre>
 * mvn -B -ntp -pl connector test -Dtest=SustainedBenchmark -Dsurefire.excludedGroups= -Dtest.jvm.jit= \
 *     [-Dbench.seconds=1200] [-Dbench.rate=2000] [-Dbench.only=copy-on-write/on]
 * </pre>
 */
class SustainedBenchmark {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(
                                    new Configuration()
                                            .set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 10_000))
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(3)
                            .build());

    @TempDir Path dir;

    /** A 30-second run in every build, so the benchmark keeps working. */
    @Test
    void aShortSteadyRunReportsEachFifth(@InjectMiniCluster MiniCluster cluster) throws Exception {
        SustainedWrites.Result result =
                SustainedWrites.run(cluster, dir.resolve("smoke"), WriteMode.AUTO, true, 500, 30);
        assertThat(result.fifths()).hasSize(5);
        assertThat(result.fifths()).allSatisfy(fifth -> assertThat(fifth.commits()).isPositive());
        assertThat(result.rows()).isPositive().isLessThanOrEqualTo(result.offeredRecords());
        assertThat(result.fifths().get(4).liveFilesPerPartitionMax()).isPositive();
    }

    @Test
    @Benchmark
    void steadyWritesInEachModeWithAndWithoutCompaction(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        int seconds = Integer.getInteger("bench.seconds", 1200);
        int rate = Integer.getInteger("bench.rate", 2000);
        StringBuilder report =
                new StringBuilder(
                        String.format(
                                "%n### 8. Sustained writes (%d s at %d records/s)%n%n",
                                seconds, rate));
        report.append(
                "| write mode | compaction | fifth | commits | latency p50 ms | p99 ms |"
                        + " bytes/checkpoint | files probed/checkpoint | live files/partition"
                        + " median | max |\n");
        report.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        StringBuilder summary = new StringBuilder();
        summary.append(
                "\n| write mode | compaction | kept up (runtime / target s) | rows | files at"
                        + " end | final scan ms | fresh table: files, scan ms | scan ratio |"
                        + " last/first fifth p50 |\n");
        summary.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        // For example -Dbench.only=copy-on-write/on to repeat one configuration.
        String only = System.getProperty("bench.only", "");
        for (boolean compaction : List.of(true, false)) {
            for (WriteMode mode : List.of(WriteMode.COPY_ON_WRITE, WriteMode.AUTO)) {
                if (!only.isEmpty() && !only.equals(mode + "/" + (compaction ? "on" : "off"))) {
                    continue;
                }
                SustainedWrites.Result r =
                        SustainedWrites.run(
                                cluster,
                                dir.resolve(mode + "-" + compaction),
                                mode,
                                compaction,
                                rate,
                                seconds);
                String name = mode == WriteMode.AUTO ? "deletion vectors" : "copy-on-write";
                for (int i = 0; i < 5; i++) {
                    SustainedWrites.Fifth f = r.fifths().get(i);
                    report.append(
                            String.format(
                                    "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d |%n",
                                    name,
                                    compaction ? "on" : "off",
                                    i + 1,
                                    f.commits(),
                                    f.latencyP50(),
                                    f.latencyP99(),
                                    f.bytesPerCheckpoint(),
                                    f.filesProbedPerCheckpoint(),
                                    f.liveFilesPerPartitionMedian(),
                                    f.liveFilesPerPartitionMax()));
                }
                summary.append(
                        String.format(
                                "| %s | %s | %s (%.0f / %d) | %d | %d | %d | %d, %d | %.2f |"
                                        + " %.2f |%n",
                                name,
                                compaction ? "on" : "off",
                                r.keptUp() ? "yes" : "no",
                                r.runtimeMillis() / 1000.0,
                                seconds,
                                r.rows(),
                                r.finalFiles(),
                                r.scanMillis(),
                                r.freshFiles(),
                                r.freshScanMillis(),
                                r.scanMillis() / (double) Math.max(1, r.freshScanMillis()),
                                r.fifths().get(4).latencyP50()
                                        / (double) Math.max(1, r.fifths().get(0).latencyP50())));
                System.out.println(report);
                System.out.println(summary);
            }
        }
        System.out.println(report.append(summary));
    }
}
