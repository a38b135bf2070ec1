package io.deltalite.flink.internal.merge.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UpsertBasicsTest {
    static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(Kind.INT), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    @TempDir Path dir;

    @Test
    void insertsUpdatesAndDeletesLandAsOneRowPerKey() {
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), ORDERS, MergeOptions.DEFAULTS)) {
            harness.upsert(1L, "d1", 10);
            harness.upsert(2L, "d1", 20);
            harness.upsert(3L, "d2", 30);
            CommitOutcome first = harness.commit();
            assertThat(first.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(first.stats().rowsInserted()).isEqualTo(3);

            harness.upsert(1L, "d1", 11);
            harness.delete(3L, "d2", null);
            harness.upsert(4L, "d2", 40);
            CommitOutcome second = harness.commit();
            UpsertStats stats = second.stats();
            assertThat(stats.rowsUpdated()).isEqualTo(1);
            assertThat(stats.rowsDeleted()).isEqualTo(1);
            assertThat(stats.rowsInserted()).isEqualTo(1);
            assertThat(stats.version()).isEqualTo(second.version());
            // The writer planned against exactly the committed files: no re-merge was needed.
            assertThat(second.remergedPartitions()).isZero();
            assertThat(second.attempts()).isEqualTo(1);

            assertThat(Rows.sorted(harness.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {1L, "d1", 11},
                                            new Object[] {2L, "d1", 20},
                                            new Object[] {4L, "d2", 40})));
        }
    }
}
