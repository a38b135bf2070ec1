package io.deltalite.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spark and deltalite read and write each other's tables. */
class SparkInteropSmokeTest {
    @TempDir Path dir;

    static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), true),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(ValueType.Kind.INT), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    @Test
    void deltaliteUpsertsIntoASparkTableAndSparkReadsTheResult() {
        String table = dir.resolve("orders").toString();
        SparkDelta.sql(
                "CREATE TABLE delta.`"
                        + table
                        + "` (id BIGINT, day STRING, amount INT)"
                        + " USING delta PARTITIONED BY (day)");
        SparkDelta.sql(
                "INSERT INTO delta.`"
                        + table
                        + "` VALUES (1, 'd1', 10), (2, 'd1', 20), (3, 'd2', 30)");

        try (UpsertHarness deltalite = UpsertHarness.open(table, ORDERS, MergeOptions.DEFAULTS)) {
            deltalite.upsert(1L, "d1", 11);
            deltalite.delete(3L, "d2", null);
            deltalite.upsert(4L, "d2", 40);
            deltalite.commit();
        }

        assertThat(
                        SparkDelta.query(
                                "SELECT id, day, amount FROM delta.`" + table + "` ORDER BY id"))
                .containsExactly(
                        List.of(1L, "d1", 11), List.of(2L, "d1", 20), List.of(4L, "d2", 40));
    }
}
