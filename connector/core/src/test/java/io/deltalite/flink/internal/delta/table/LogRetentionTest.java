package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log does not grow with the table's age: the sink's log checkpoints delete the commit files
 * (and their checksum files) older than {@code delta.logRetentionDuration} that precede a
 * checkpoint, as Delta writers do.
 */
class LogRetentionTest {
    @TempDir Path dir;

    @Test
    void commitFilesPastTheRetentionAreDeletedAtALogCheckpoint() throws Exception {
        TableDefinition items =
                new TableDefinition(
                        List.of(
                                new ValueType.Field(
                                        "id", ValueType.of(ValueType.Kind.BIGINT), false),
                                new ValueType.Field(
                                        "v", ValueType.of(ValueType.Kind.STRING), true)),
                        List.of("id"),
                        List.of(),
                        Map.of(
                                "delta.checkpointInterval", "5",
                                "delta.logRetentionDuration", "interval 6 seconds"));
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), items, MergeOptions.DEFAULTS)) {
            for (long id = 0; id < 12; id++) {
                harness.upsert(id, "v");
                harness.commit();
            }
            assertThat(commitFiles()).contains("00000000000000000000.json");
            Thread.sleep(6500);
            for (long id = 12; id < 20; id++) {
                harness.upsert(id, "v");
                harness.commit();
            }
            assertThat(commitFiles())
                    .as("commit files left after the checkpoint at version 20")
                    .doesNotContain(
                            "00000000000000000000.json",
                            "00000000000000000009.json",
                            "00000000000000000000.crc",
                            "00000000000000000009.crc")
                    .contains("00000000000000000020.json");
            assertThat(KernelTableReader.readAll(dir.toString())).hasSize(20);
        }
    }

    private List<String> commitFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve("_delta_log"))) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(".json") || name.endsWith(".crc"))
                    .sorted()
                    .toList();
        }
    }
}
