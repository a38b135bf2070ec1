package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    @Test
    void
            aSinkDistributedByPartitionOfATablePartitionedOutsideItsKeyIsRefusedUnderUnalignedCheckpoints() {
        StreamExecutionEnvironment env = unaligned();
        sink(env, DeltaLiteSink.forTable(table()).primaryKey("id").partitionKey("day"));

        assertThatThrownBy(env::getStreamGraph)
                .hasMessageContaining(table())
                .hasMessageContaining("unaligned checkpoints")
                .hasMessageContaining("day")
                .hasMessageContaining("'distribution' = 'key'")
                .hasMessageContaining("execution.checkpointing.unaligned.enabled");
    }

    @Test
    void
            aSinkDistributedByPartitionOfATablePartitionedOutsideItsKeyIsRefusedUnderAtLeastOnceCheckpoints() {
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(1), 0);
        env.getCheckpointConfig().setCheckpointingConsistencyMode(CheckpointingMode.AT_LEAST_ONCE);
        sink(env, DeltaLiteSink.forTable(table()).primaryKey("id").partitionKey("day"));

        assertThatThrownBy(env::getStreamGraph)
                .hasMessageContaining(table())
                .hasMessageContaining("at-least-once checkpoints")
                .hasMessageContaining("day")
                .hasMessageContaining("'distribution' = 'key'")
                .hasMessageContaining("execution.checkpointing.mode: EXACTLY_ONCE");
    }

    @Test
    void theSameSinkDistributedByKeyIsBuiltUnderAtLeastOnceCheckpoints() {
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(1), 0);
        env.getCheckpointConfig().setCheckpointingConsistencyMode(CheckpointingMode.AT_LEAST_ONCE);
        sink(
                env,
                DeltaLiteSink.forTable(table())
                        .primaryKey("id")
                        .partitionKey("day")
                        .option(DeltaLiteOptions.DISTRIBUTION, "key"));

        assertThatCode(env::getStreamGraph).doesNotThrowAnyException();
    }

    @Test
    void theSameSinkDistributedByKeyIsBuiltUnderUnalignedCheckpoints() {
        StreamExecutionEnvironment env = unaligned();
        sink(
                env,
                DeltaLiteSink.forTable(table())
                        .primaryKey("id")
                        .partitionKey("day")
                        .option(DeltaLiteOptions.DISTRIBUTION, "key"));

        assertThatCode(env::getStreamGraph).doesNotThrowAnyException();
    }

    @Test
    void aTablePartitionedWithinItsKeyIsBuiltUnderUnalignedCheckpoints() {
        StreamExecutionEnvironment env = unaligned();
        sink(env, DeltaLiteSink.forTable(table()).primaryKey("id", "day").partitionKey("day"));

        assertThatCode(env::getStreamGraph).doesNotThrowAnyException();
    }

    @Test
    void theSameSinkIsBuiltUnderAlignedCheckpoints() {
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(1), 0);
        sink(env, DeltaLiteSink.forTable(table()).primaryKey("id").partitionKey("day"));

        assertThatCode(env::getStreamGraph).doesNotThrowAnyException();
    }

    private static final ChangeScript SCRIPT =
            ChangeScript.of(
                    List.of(
                            new ChangeScript.Change(
                                    RowKind.INSERT, new Object[] {1L, "2026-12-04", 10, "a"})));

    private String table() {
        return dir.resolve("orders").toString();
    }

    private static StreamExecutionEnvironment unaligned() {
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(1), 0);
        env.getCheckpointConfig().enableUnalignedCheckpoints();
        return env;
    }

    /** The script's rows into {@code builder}'s sink, at parallelism 2. */
    private static void sink(StreamExecutionEnvironment env, DeltaLiteSinkBuilder builder) {
        SinkJobs.sink(
                SinkJobs.changes(env, SCRIPT, 1_000), builder.rowType(SCRIPT.rowType()).build(), 2);
    }
}
