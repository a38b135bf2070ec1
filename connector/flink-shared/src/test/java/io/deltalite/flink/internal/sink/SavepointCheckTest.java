package io.deltalite.flink.internal.sink;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.internal.compat.FlinkLine;
import io.deltalite.flink.sink.DeltaLiteSink;
import io.deltalite.flink.testing.ChangeScript;
import io.deltalite.flink.testing.SinkJobs;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The savepoint a job starts from, checked where the job is built. The real case — a savepoint of
 * Flink 2.3 given to Flink 1.20 — is FlinkUpgradeTest in e2e-tests/flink-upgrade; here savepoint
 * metadata headers of made-up versions stand in for it.
 */
class SavepointCheckTest {
    @TempDir Path dir;

    @Test
    void aJobStartingFromASavepointOfANewerFlinkIsRefusedWhenItIsBuilt() throws IOException {
        Path savepoint = savepoint("newer", 99);
        ChangeScript script = ChangeScript.generate(1, 10, 5, 2, false);
        StreamExecutionEnvironment env = SinkJobs.environment(Duration.ofSeconds(1), 0);
        env.configure(
                new Configuration()
                        .set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint.toUri().toString()));
        SinkJobs.changes(env, script, 100)
                .sinkTo(
                        DeltaLiteSink.forTable(dir.resolve("t").toString())
                                .rowType(script.rowType())
                                .primaryKey(script.primaryKey())
                                .build());

        assertThatThrownBy(env::getStreamGraph)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(
                        "Cannot start this job from the savepoint " + savepoint.toUri())
                .hasMessageContaining("savepoint metadata version 99")
                .hasMessageContaining("Savepoints move to newer Flink versions only")
                .hasMessageContaining(FlinkLine.ARTIFACT);
    }

    @Test
    void aSavepointThisFlinkReadsPasses() throws IOException {
        Path savepoint = savepoint("readable", 4);

        assertThatCode(() -> SavepointCheck.checkRestorable(startingFrom(savepoint.toString())))
                .doesNotThrowAnyException();
    }

    @Test
    void aSavepointThatCannotBeReadHereIsLeftToFlinksOwnCheck() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("no-metadata"));
        Path notASavepoint =
                Files.writeString(
                        Files.createDirectories(dir.resolve("other")).resolve("_metadata"),
                        "not a savepoint");

        assertThatCode(() -> SavepointCheck.checkRestorable(startingFrom(empty.toString())))
                .doesNotThrowAnyException();
        assertThatCode(
                        () ->
                                SavepointCheck.checkRestorable(
                                        startingFrom(notASavepoint.getParent().toString())))
                .doesNotThrowAnyException();
        assertThatCode(() -> SavepointCheck.checkRestorable(new Configuration()))
                .doesNotThrowAnyException();
    }

    private static Configuration startingFrom(String savepoint) {
        return new Configuration().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    }

    /** A savepoint directory whose metadata file has a header of {@code version}, and no more. */
    private Path savepoint(String name, int version) throws IOException {
        Path savepoint = Files.createDirectories(dir.resolve(name));
        try (DataOutputStream out =
                new DataOutputStream(Files.newOutputStream(savepoint.resolve("_metadata")))) {
            out.writeInt(Checkpoints.HEADER_MAGIC_NUMBER);
            out.writeInt(version);
        }
        return savepoint;
    }
}
