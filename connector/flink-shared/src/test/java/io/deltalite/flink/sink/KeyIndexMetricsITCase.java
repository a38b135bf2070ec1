package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writers report their key index through Flink's metrics, under the names the README lists: a
 * job started on a table that already holds rows builds each writer's index from its files (a
 * bootstrap: its count, rows, time and rate) and then locates the rows it replaces with it.
 */
class KeyIndexMetricsITCase {
    private static final InMemoryReporter REPORTER = InMemoryReporter.create();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path dir;

    @Test
    void aJobOnAFilledTableReportsItsIndexBuildsAndHits() throws Exception {
        Path table = dir.resolve("t");
        ChangeScript filling = ChangeScript.generate(7, 6_000, 3_000, 0, false);
        StreamExecutionEnvironment first = SinkJobs.environment(Duration.ofMillis(500), 0);
        SinkJobs.sink(SinkJobs.changes(first, filling, 100_000), sink(filling, table), 2);
        first.execute("fill");
        int filled = filling.expected().size();

        // Updates of the same keys, slowly enough to run for as long as the test looks.
        ChangeScript updates = ChangeScript.generate(8, 20_000, 3_000, 0, false);
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofMillis(200), 0);
        SinkJobs.sink(SinkJobs.changes(env, updates, 1_000), sink(updates, table), 2);
        int committedBefore = DeltaHistory.transactionIds(table).size();
        JobClient job = env.executeAsync("updates");
        try {
            SinkJobs.awaitCommits(job, table, committedBefore, 3);
            JobID id = job.getJobID();
            assertThat(sum(id, "deltaliteKeyIndexBuilds")).isPositive();
            assertThat(sum(id, "deltaliteKeyIndexBuildRowsPerSecond")).isPositive();
            // Every writer read the rows of its keys in the filled table.
            assertThat(sum(id, "deltaliteKeyIndexRowsRead")).isGreaterThanOrEqualTo(filled);
            // Builds are reads too.
            assertThat(sum(id, "deltaliteKeyIndexReadMillis"))
                    .isGreaterThanOrEqualTo(sum(id, "deltaliteKeyIndexBuildMillis"));
            assertThat(sum(id, "deltaliteKeyIndexKeys")).isGreaterThanOrEqualTo(filled);
            assertThat(sum(id, "deltaliteKeyIndexBytes")).isPositive();
            assertThat(sum(id, "deltaliteKeyIndexPartitions")).isPositive();
            assertThat(sum(id, "deltaliteKeyIndexHits")).isPositive();
            assertThat(sum(id, "deltaliteKeyIndexFallbacks")).isZero();
        } finally {
            SinkJobs.cancelAndAwaitStop(job);
        }
    }

    /** The sum of a gauge over the job's writers; fails if none reports it. */
    private static long sum(JobID job, String name) {
        long sum = 0;
        int found = 0;
        for (Map.Entry<MetricGroup, Map<String, Metric>> group :
                REPORTER.getMetricsByGroup().entrySet()) {
            Metric metric = group.getValue().get(name);
            if (metric != null
                    && job.toString().equals(group.getKey().getAllVariables().get("<job_id>"))) {
                sum += ((Number) ((Gauge<?>) metric).getValue()).longValue();
                found++;
            }
        }
        assertThat(found).as("writers reporting " + name).isEqualTo(2);
        return sum;
    }

    private static DeltaLiteSink sink(ChangeScript script, Path table) {
        return DeltaLiteSink.forTable(table.toString())
                .rowType(script.rowType())
                .primaryKey(script.primaryKey())
                .option(DeltaLiteOptions.KEY_INDEX, KeyIndexMode.ON)
                .build();
    }
}
