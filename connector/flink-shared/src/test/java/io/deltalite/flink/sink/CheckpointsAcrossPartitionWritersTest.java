package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Unaligned checkpoints let a barrier overtake records still in flight to a writer: those records
 * land in the writer's next checkpoint, while the records of the same source that went to other
 * writers land in this one. With a table partitioned by a column outside its key and the sink
 * distributed by partition, the two halves of a change can go to two writers — an update moving its
 * row to another partition (its delete to one writer, its insert to another) or a key-only delete
 * of a row another writer inserts — and then land in two versions: one version shows the key twice
 * or not at all, and a key-only delete committed before the insert it follows leaves that row in
 * the table for good. At-least-once checkpoints do the same: a writer that has the barrier of one
 * input but not yet of another goes on reading the first, so records sent after the barrier join
 * this checkpoint at one writer and the next at another. The sink refuses these combinations where
 * the job is built.
 */
class CheckpointsAcrossPartitionWritersTest {
    @TempDir Path dir;

    /** Checkpoints that can put the two halves of one change into two versions. */
    enum SplittingCheckpoints {
        UNALIGNED("unaligned checkpoints", "execution.checkpointing.unaligned.enabled"),
        AT_LEAST_ONCE("at-least-once checkpoints", "execution.checkpointing.mode: EXACTLY_ONCE");

        final String name;
        final String setting;

        SplittingCheckpoints(String name, String setting) {
            this.name = name;
            this.setting = setting;
        }

        StreamExecutionEnvironment environment() {
            StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(1), 0);
            if (this == UNALIGNED) {
                env.getCheckpointConfig().enableUnalignedCheckpoints();
            } else {
                atLeastOnce(env);
            }
            return env;
        }
    }

    @ParameterizedTest
    @EnumSource(SplittingCheckpoints.class)
    void aSinkDistributedByPartitionOfATablePartitionedOutsideItsKeyIsRefused(
            SplittingCheckpoints checkpoints) {
        StreamExecutionEnvironment env = checkpoints.environment();
        sink(env, DeltaLiteSink.forTable(table()).primaryKey("id").partitionKey("day"));

        assertThatThrownBy(env::getStreamGraph)
                .hasMessageContaining(table())
                .hasMessageContaining(checkpoints.name)
                .hasMessageContaining("day")
                .hasMessageContaining("'distribution' = 'key'")
                .hasMessageContaining(checkpoints.setting);
    }

    @ParameterizedTest
    @EnumSource(SplittingCheckpoints.class)
    void theSameSinkDistributedByKeyIsBuilt(SplittingCheckpoints checkpoints) {
        StreamExecutionEnvironment env = checkpoints.environment();
        sink(
                env,
                DeltaLiteSink.forTable(table())
                        .primaryKey("id")
                        .partitionKey("day")
                        .option(DeltaLiteOptions.DISTRIBUTION, "key"));

        assertThatCode(env::getStreamGraph).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @EnumSource(SplittingCheckpoints.class)
    void aTablePartitionedWithinItsKeyIsBuilt(SplittingCheckpoints checkpoints) {
        StreamExecutionEnvironment env = checkpoints.environment();
        sink(env, DeltaLiteSink.forTable(table()).primaryKey("id", "day").partitionKey("day"));

        assertThatCode(env::getStreamGraph).doesNotThrowAnyException();
    }

    @Test
    void theSameSinkIsBuiltUnderAlignedExactlyOnceCheckpoints() {
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(1), 0);
        sink(env, DeltaLiteSink.forTable(table()).primaryKey("id").partitionKey("day"));

        assertThatCode(env::getStreamGraph).doesNotThrowAnyException();
    }

    /** A batch run takes no checkpoints: its one commit holds all its input. */
    @Test
    void theSameSinkIsBuiltForABatchRunWhateverItsCheckpointSettings() {
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(1), 0);
        atLeastOnce(env);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        sink(env, DeltaLiteSink.forTable(table()).primaryKey("id").partitionKey("day"));

        assertThatCode(env::getStreamGraph).doesNotThrowAnyException();
    }

    /** Without checkpoints the job commits once, at the end of its input. */
    @Test
    void theSameSinkIsBuiltForAStreamingJobWithoutCheckpoints() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        atLeastOnce(env);
        sink(env, DeltaLiteSink.forTable(table()).primaryKey("id").partitionKey("day"));

        assertThatCode(env::getStreamGraph).doesNotThrowAnyException();
    }

    private static void atLeastOnce(StreamExecutionEnvironment env) {
        env.getCheckpointConfig().setCheckpointingConsistencyMode(CheckpointingMode.AT_LEAST_ONCE);
    }

    private static final ChangeScript SCRIPT =
            ChangeScript.of(
                    List.of(
                            new ChangeScript.Change(
                                    RowKind.INSERT, new Object[] {1L, "2026-12-04", 10, "a"})));

    private String table() {
        return dir.resolve("orders").toString();
    }

    /** The script's rows into {@code builder}'s sink, at parallelism 2. */
    private static void sink(StreamExecutionEnvironment env, DeltaLiteSinkBuilder builder) {
        SinkJobs.sink(
                SinkJobs.changes(env, SCRIPT, 1_000), builder.rowType(SCRIPT.rowType()).build(), 2);
    }
}
