package io.deltalite.flink.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.testing.BuildSample;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.NoKeyIndexDisagreements;
import io.deltalite.flink.testing.Rows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.cdc.common.configuration.Configuration;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.factories.FactoryHelper;
import org.apache.flink.cdc.common.sink.DataSink;
import org.apache.flink.cdc.runtime.typeutils.EventTypeInfo;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * deltalite at the end of a Flink CDC pipeline, on a Flink 1.20 mini cluster: the pipeline's own
 * operators wired as its composer wires them ({@link PipelineTopology}), fed by a checkpointed
 * source of pipeline events ({@link PipelineScript}), with a TaskManager lost mid-run and commits
 * failing before and after they land. Every table must end equal to the model, each checkpoint
 * committed at most once per table.
 */
@ExtendWith(NoKeyIndexDisagreements.class)
class PipelineSinkITCase {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path root;

    @AfterEach
    void disarm() {
        FaultInjection.disarmAll();
    }

    @Test
    void threeTablesWithSchemaChangesLandExactlyOnceThroughALostTaskManagerAndFailedCommits(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        long seed = BuildSample.random("PipelineSinkITCase").nextLong();
        PipelineScript script = new PipelineScript(seed, 1_000);
        String id = "pipeline-" + seed + "-" + System.nanoTime();
        AtomicInteger injected = new AtomicInteger();
        failOnce(FaultInjection.Point.BEFORE_COMMIT, 3, injected);
        failOnce(FaultInjection.Point.AFTER_COMMIT, 8, injected);

        StreamExecutionEnvironment env = environment();
        DataStream<Event> events =
                env.addSource(new ScriptSource(id, script.events, 1), "pipeline source")
                        .returns(new EventTypeInfo())
                        .setParallelism(2)
                        .uid("source");
        PipelineTopology.sinkTo(
                events,
                dataSink(
                        Map.of(
                                "table.root",
                                root.toString(),
                                "partition.key",
                                "shop.orders:customer",
                                // Indexes rebuilt after each schema change, checked at every
                                // merge: a difference fails the test.
                                "key-index",
                                "on",
                                "key-index.validate",
                                "true")));
        JobClient job = env.executeAsync("deltalite pipeline");
        try {
            loseATaskManagerMidRun(cluster, job);
            job.getJobExecutionResult().get(3, TimeUnit.MINUTES);
        } finally {
            if (!job.getJobStatus().get().isTerminalState()) {
                job.cancel().get();
            }
        }

        assertThat(injected).as("commit failures injected").hasValue(2);
        // One restart per failure (two commits, the TaskManager) and none else: a schema change
        // that found a writer's changes unmerged would fail the job once more.
        assertThat(ScriptSource.starts(id)).as("replays of the script").isBetween(2, 4);
        for (Map.Entry<TableId, Map<Object, Object[]>> table : script.model.entrySet()) {
            Path location = root.resolve("shop").resolve(table.getKey().getTableName());
            assertThat(Rows.sorted(KernelTableReader.readAll(location.toString())))
                    .as("rows of %s (%s)", table.getKey(), BuildSample.describe())
                    .isEqualTo(Rows.sorted(table.getValue().values()));
            Set<String> checkpoints = new HashSet<>();
            for (DeltaHistory.Commit commit : DeltaHistory.commits(location)) {
                if (commit.appId() != null) {
                    assertThat(checkpoints.add(commit.appId() + "@" + commit.txnVersion()))
                            .as("checkpoint %s committed once to %s", commit.txnVersion(), location)
                            .isTrue();
                }
            }
            assertThat(DeltaHistory.missingReferencedFiles(location)).isEmpty();
        }
    }

    /** A TaskManager is lost once the orders table has taken a few checkpoints. */
    private void loseATaskManagerMidRun(MiniCluster cluster, JobClient job) throws Exception {
        Path orders = root.resolve("shop").resolve("orders");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (versions(orders) < 4) {
            assertThat(System.nanoTime()).as("orders committed 4 versions").isLessThan(deadline);
            assertThat(job.getJobStatus().get().isTerminalState()).isFalse();
            Thread.sleep(50);
        }
        cluster.terminateTaskManager(0).get();
        cluster.startTaskManager();
    }

    private static void failOnce(FaultInjection.Point point, long at, AtomicInteger injected) {
        FaultInjection.arm(
                point,
                (table, occurrence) -> {
                    if (occurrence == at) {
                        injected.incrementAndGet();
                        throw new IllegalStateException("injected failure at " + point);
                    }
                });
    }

    private static long versions(Path table) {
        try (var log = Files.list(table.resolve("_delta_log"))) {
            if (log.noneMatch(file -> file.toString().endsWith(".json"))) {
                return -1;
            }
        } catch (java.io.IOException e) {
            return -1; // not created yet
        }
        return KernelTableReader.latestVersion(table.toString());
    }

    static DataSink dataSink(Map<String, String> options) {
        return new DeltaLiteDataSinkFactory()
                .createDataSink(
                        new FactoryHelper.DefaultContext(
                                Configuration.fromMap(options),
                                new Configuration(),
                                PipelineSinkITCase.class.getClassLoader()));
    }

    private static StreamExecutionEnvironment environment() {
        org.apache.flink.configuration.Configuration configuration =
                new org.apache.flink.configuration.Configuration();
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 10);
        configuration.set(
                RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.enableCheckpointing(300);
        return env;
    }
}
