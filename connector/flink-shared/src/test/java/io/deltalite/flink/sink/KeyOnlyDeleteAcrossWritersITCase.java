package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.deltalite.flink.exceptions.DeltaLiteInvalidInputException;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.sink.ColumnValuesKeySelector;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.SinkJobs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key-only delete (PostgreSQL's REPLICA IDENTITY DEFAULT: every column but the key empty, so it
 * names the null partition) and the insert of its row into another partition, in one checkpoint of
 * a sink distributed by partition: two writers get them, neither sees the other's change, and only
 * the committer can tell that the row would stay.
 */
class KeyOnlyDeleteAcrossWritersITCase {
    @RegisterExtension static final MiniClusterExtension CLUSTER = SinkJobs.miniCluster();

    private static final int WRITERS = 2;
    private static final int MAX_PARALLELISM = 128;

    @TempDir Path dir;

    @Test
    void aKeyOnlyDeleteOfARowAnotherWriterInsertsInTheSameCheckpointFailsTheJobAndCommitsNothing() {
        String day = aDayOfAnotherWriterThanTheNullPartition();
        ChangeScript script =
                ChangeScript.of(
                        List.of(
                                new ChangeScript.Change(
                                        RowKind.INSERT, new Object[] {1L, day, 10, "inserted"}),
                                new ChangeScript.Change(
                                        RowKind.INSERT, new Object[] {2L, day, 20, "other"}),
                                new ChangeScript.Change(
                                        RowKind.DELETE, new Object[] {1L, null, null, null})));
        Path table = dir.resolve("orders");
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(1), 0);
        env.setMaxParallelism(MAX_PARALLELISM);
        SinkJobs.sink(
                SinkJobs.changes(env, script, 1_000),
                DeltaLiteSink.forTable(table.toString())
                        .rowType(script.rowType())
                        .primaryKey(script.primaryKey())
                        .partitionKey("day")
                        .build(),
                WRITERS);

        Throwable thrown =
                assertTimeoutPreemptively(
                        Duration.ofSeconds(60),
                        () -> {
                            try {
                                env.execute("deltalite-key-only-delete-across-writers");
                                return null;
                            } catch (Exception e) {
                                return e;
                            }
                        });

        assertThat(thrown).as("the job failed").isNotNull();
        Optional<DeltaLiteInvalidInputException> failure =
                ExceptionUtils.findThrowable(thrown, DeltaLiteInvalidInputException.class);
        assertThat(failure).as("the key-only delete's error in " + thrown).isPresent();
        assertThat(failure.get().getMessage())
                .contains("A delete of key (id=1) carries nothing but its key")
                .contains("names partition day=null")
                .contains("while partition day='" + day + "' holds that key")
                .contains("REPLICA IDENTITY FULL")
                .contains("was not committed: nothing of it is in the table")
                .contains("another writer of the sink");
        assertThat(KernelTableReader.readAll(table.toString())).isEmpty();
        assertThat(DeltaHistory.transactionIds(table)).as("checkpoints committed").isEmpty();
    }

    /**
     * A day whose partition the sink routes to another writer than the null partition, as Flink
     * routes the sink's partition keys.
     */
    private static String aDayOfAnotherWriterThanTheNullPartition() {
        int nullWriter = writerOf(null);
        for (int day = 1; day <= 28; day++) {
            String value = String.format("2024-06-%02d", day);
            if (writerOf(value) != nullWriter) {
                return value;
            }
        }
        throw new IllegalStateException("every day goes to the writer of the null partition");
    }

    private static int writerOf(String day) {
        StringBuilder key = new StringBuilder();
        ColumnValuesKeySelector.appendValue(key, day);
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                key.toString(), MAX_PARALLELISM, WRITERS);
    }
}
