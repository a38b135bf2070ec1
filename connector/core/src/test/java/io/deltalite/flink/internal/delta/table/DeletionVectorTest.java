package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows that a deletion vector another writer wrote deletes stay deleted in copy-on-write mode: the
 * probe does not match them, and a rewrite of their file does not copy them. (The test writes the
 * commit that adds one by hand, as Spark's DELETE would.)
 */
class DeletionVectorTest {
    private static final List<ValueType.Field> COLUMNS =
            List.of(
                    new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                    new ValueType.Field("v", ValueType.of(Kind.STRING), true));

    private static final TableDefinition ITEMS =
            new TableDefinition(COLUMNS, List.of("id"), List.of(), Map.of());

    private static final List<ValueType.Field> PARTITIONED_COLUMNS =
            List.of(
                    new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                    new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                    new ValueType.Field("v", ValueType.of(Kind.STRING), true));

    private static final TableDefinition PARTITIONED_ITEMS =
            new TableDefinition(PARTITIONED_COLUMNS, List.of("id"), List.of("day"), Map.of());

    /** Without the key index: what these tests count is the exact probe's reading. */
    private static final MergeOptions COPY_ON_WRITE =
            MergeOptions.DEFAULTS
                    .withWriteMode(WriteMode.COPY_ON_WRITE)
                    .withKeyIndex(
                            io.deltalite.flink.internal.merge.options.KeyIndexOptions.DEFAULTS
                                    .withMode(io.deltalite.flink.sink.KeyIndexMode.OFF));

    @TempDir Path dir;

    @Test
    void rowsDeletedByADeletionVectorNeitherMatchNorSurviveARewrite() throws IOException {
        TestTables.createWithKernel(
                dir.toString(), COLUMNS, List.of(), Map.of("delta.enableDeletionVectors", "true"));
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), ITEMS, COPY_ON_WRITE)) {
            for (long id = 0; id < 10; id++) {
                harness.upsert(id, "initial");
            }
            harness.commit();
            // The upsert file is sorted by key: ids 3 and 4 are rows 3 and 4.
            deleteRowsWithDeletionVector("{}", 3, 4);
            assertThat(harness.read()).hasSize(8);

            // Id 4 is only in a deleted row: the file is probed but not rewritten.
            harness.upsert(4L, "new");
            UpsertStats insert = harness.commit().stats();
            assertThat(insert.filesProbed()).isEqualTo(1);
            assertThat(insert.filesRemoved()).isZero();
            assertThat(insert.rowsInserted()).isEqualTo(1);

            harness.upsert(3L, "new");
            harness.upsert(5L, "new");
            UpsertStats rewrite = harness.commit().stats();
            assertThat(rewrite.filesRemoved()).isEqualTo(1);
            assertThat(rewrite.rowsInserted()).isEqualTo(1);
            assertThat(rewrite.rowsUpdated()).isEqualTo(1);
            assertThat(rewrite.rowsCopied()).isEqualTo(7);

            List<Object[]> expected = new ArrayList<>();
            for (long id = 0; id < 10; id++) {
                expected.add(new Object[] {id, id >= 3 && id <= 5 ? "new" : "initial"});
            }
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    /**
     * In a partitioned table too: Kernel applies a deletion vector only to a batch that holds every
     * data column, so the probe, which needs only the keys, must still read them all.
     */
    @Test
    void aFileWithADeletionVectorInAPartitionIsProbedAndRewritten() throws IOException {
        TestTables.createWithKernel(
                dir.toString(),
                PARTITIONED_COLUMNS,
                List.of("day"),
                Map.of("delta.enableDeletionVectors", "true"));
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), PARTITIONED_ITEMS, COPY_ON_WRITE)) {
            for (long id = 0; id < 10; id++) {
                harness.upsert(id, "d1", "initial");
            }
            harness.commit();
            deleteRowsWithDeletionVector("{\"day\":\"d1\"}", 3, 4);
            assertThat(harness.read()).hasSize(8);

            harness.upsert(4L, "d1", "new");
            UpsertStats insert = harness.commit().stats();
            assertThat(insert.filesProbed()).isEqualTo(1);
            assertThat(insert.filesRemoved()).isZero();
            assertThat(insert.rowsInserted()).isEqualTo(1);

            harness.upsert(3L, "d1", "new");
            harness.upsert(5L, "d1", "new");
            UpsertStats rewrite = harness.commit().stats();
            assertThat(rewrite.filesRemoved()).isEqualTo(1);
            assertThat(rewrite.rowsUpdated()).isEqualTo(1);
            assertThat(rewrite.rowsCopied()).isEqualTo(7);

            List<Object[]> expected = new ArrayList<>();
            for (long id = 0; id < 10; id++) {
                expected.add(new Object[] {id, "d1", id >= 3 && id <= 5 ? "new" : "initial"});
            }
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    private void deleteRowsWithDeletionVector(String partitionValues, int... rows)
            throws IOException {
        DeletionVectorCommits.deleteRowsInline(dir, partitionValues, rows);
    }
}
