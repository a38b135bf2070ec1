package io.deltalite.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spark's VACUUM on a deltalite table deletes only what no version after it needs. */
class SparkVacuumTest {
    private static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), true),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(ValueType.Kind.INT), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    @TempDir Path dir;

    @Test
    void vacuumLeavesADeltaliteTableCorrectForSparkKernelAndDeltalite() {
        Path location = dir.resolve("orders");
        String table = location.toString();
        try (UpsertHarness deltalite = UpsertHarness.open(table, ORDERS, MergeOptions.DEFAULTS)) {
            ExpectedTable expected = new ExpectedTable(deltalite, ORDERS.toSchema(), List.of());
            for (int checkpoint = 0; checkpoint < 4; checkpoint++) {
                for (long id = 0; id < 30; id++) {
                    if ((id + checkpoint) % 3 == 0) {
                        expected.upsert(id, "d" + (id % 4), checkpoint);
                    }
                }
                expected.delete((long) checkpoint * 3, "d" + (checkpoint * 3 % 4), null);
                expected.commit();
            }
            Set<Path> live = livePaths(table);
            assertThat(dataFiles(location))
                    .as("data files on disk before VACUUM: the live ones and rewritten ones")
                    .containsAll(live)
                    .hasSizeGreaterThan(live.size());

            SparkDelta.sql("VACUUM delta.`" + table + "` RETAIN 0 HOURS");

            assertThat(dataFiles(location))
                    .as("data files on disk after VACUUM")
                    .containsExactlyInAnyOrderElementsOf(live);
            assertThat(Rows.sorted(SparkRows.readTable(table)))
                    .as("read by Spark after VACUUM")
                    .isEqualTo(expected.rows());
            assertThat(Rows.sorted(KernelTableReader.readAll(table)))
                    .as("read by Kernel after VACUUM")
                    .isEqualTo(expected.rows());

            for (long id = 0; id < 30; id += 2) {
                expected.upsert(id, "d" + (id % 4), 100);
            }
            expected.delete(1L, "d1", null);
            expected.commit();
            assertThat(Rows.sorted(SparkRows.readTable(table)))
                    .as("read by Spark after deltalite upserted again")
                    .isEqualTo(expected.rows());
            assertThat(Rows.sorted(KernelTableReader.readAll(table)))
                    .as("read by Kernel after deltalite upserted again")
                    .isEqualTo(expected.rows());
        }
    }

    private static Set<Path> livePaths(String table) {
        return KernelTableReader.liveFiles(table).keySet().stream()
                .map(path -> Path.of(URI.create(path)))
                .collect(Collectors.toSet());
    }

    private static List<Path> dataFiles(Path table) {
        try (Stream<Path> files = Files.walk(table)) {
            return files.filter(file -> file.toString().endsWith(".parquet"))
                    .filter(file -> !file.startsWith(table.resolve("_delta_log")))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
