package io.deltalite.flink.internal.merge.value;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Field;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition values of every partitionable type, null included, are written to the log, read back as
 * the same values, and the partition is found again by the next merge — also by one planned against
 * files that were still pending.
 */
class TypedPartitionValuesTest {
    @TempDir Path dir;

    /** Types whose partition predicate the engine hands to Kernel's log scan. */
    @Test
    void filterableTypesRoundTripAndAreFoundAgain() {
        List<Field> partitions =
                List.of(
                        new Field("p_int", ValueType.of(Kind.INT), true),
                        new Field("p_bigint", ValueType.of(Kind.BIGINT), true),
                        new Field("p_smallint", ValueType.of(Kind.SMALLINT), true),
                        new Field("p_tinyint", ValueType.of(Kind.TINYINT), true),
                        new Field("p_date", ValueType.of(Kind.DATE), true),
                        new Field("p_boolean", ValueType.of(Kind.BOOLEAN), true),
                        new Field("p_string", ValueType.of(Kind.STRING), true));
        List<List<Object>> values =
                List.of(
                        Arrays.asList(0, 0L, (short) 0, (byte) 0, 0, false, "a"),
                        Arrays.asList(
                                Integer.MIN_VALUE,
                                Long.MIN_VALUE,
                                Short.MIN_VALUE,
                                Byte.MIN_VALUE,
                                -719162,
                                true,
                                "b"),
                        Arrays.asList(
                                Integer.MAX_VALUE,
                                Long.MAX_VALUE,
                                Short.MAX_VALUE,
                                Byte.MAX_VALUE,
                                2932896,
                                true,
                                "c"),
                        Arrays.asList(null, null, null, null, null, null, null),
                        Arrays.asList(-1, null, (short) -1, null, 19723, null, "d"));
        assertRoundTrip(partitions, values);
    }

    /** Types the engine filters itself after listing the whole log. */
    @Test
    void otherTypesRoundTripAndAreFoundAgain() {
        List<Field> partitions =
                List.of(
                        new Field("p_timestamp", ValueType.of(Kind.TIMESTAMP), true),
                        new Field("p_timestamp_ntz", ValueType.of(Kind.TIMESTAMP_NTZ), true),
                        new Field("p_decimal", new ValueType.Decimal(12, 3), true),
                        new Field("p_double", ValueType.of(Kind.DOUBLE), true),
                        new Field("p_float", ValueType.of(Kind.FLOAT), true));
        List<List<Object>> values =
                List.of(
                        Arrays.asList(0L, 0L, new BigDecimal("0.000"), 0.0, 0.0f),
                        Arrays.asList(1L, 1L, new BigDecimal("-123456789.123"), -0.0, -0.0f),
                        Arrays.asList(
                                1_700_000_000_123_456L,
                                1_700_000_000_123_456L,
                                new BigDecimal("999999999.999"),
                                1.0E300,
                                Float.MAX_VALUE),
                        Arrays.asList(
                                -62135596800000000L,
                                253402300799999999L,
                                new BigDecimal("0.001"),
                                Double.NaN,
                                Float.NEGATIVE_INFINITY),
                        Arrays.asList(-1L, null, null, 0.1, null),
                        Arrays.asList(null, null, null, null, null));
        assertRoundTrip(partitions, values);
    }

    private void assertRoundTrip(List<Field> partitionFields, List<List<Object>> values) {
        List<Field> columns = new ArrayList<>();
        columns.add(new Field("id", ValueType.of(Kind.BIGINT), false));
        columns.addAll(partitionFields);
        columns.add(new Field("v", ValueType.of(Kind.INT), true));
        List<String> partitionColumns = new ArrayList<>();
        partitionFields.forEach(field -> partitionColumns.add(field.name()));
        TableDefinition table =
                new TableDefinition(columns, List.of("id"), partitionColumns, Map.of());
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), table, MergeOptions.DEFAULTS)) {
            for (int i = 0; i < values.size(); i++) {
                harness.upsert(row(i, values.get(i), 1));
            }
            harness.commit();
            assertThat(Rows.sorted(harness.read())).isEqualTo(rows(values, 1));

            for (int i = 0; i < values.size(); i++) {
                harness.upsert(row(i, values.get(i), 2));
            }
            List<PartitionWriteResult> second = harness.prepare();
            long secondCheckpoint = harness.lastCheckpoint();
            // Planned against checkpoint 2's files before they are committed.
            for (int i = 0; i < values.size(); i++) {
                harness.upsert(row(i, values.get(i), 3));
            }
            List<PartitionWriteResult> third = harness.prepare();
            long thirdCheckpoint = harness.lastCheckpoint();

            CommitOutcome updated = harness.commitPrepared(secondCheckpoint, second);
            assertThat(updated.stats().rowsUpdated()).isEqualTo(values.size());
            assertThat(updated.stats().rowsInserted()).isZero();
            assertThat(updated.remergedPartitions()).isZero();
            assertThat(Rows.sorted(harness.read())).isEqualTo(rows(values, 2));

            CommitOutcome again = harness.commitPrepared(thirdCheckpoint, third);
            assertThat(again.stats().rowsUpdated()).isEqualTo(values.size());
            assertThat(again.remergedPartitions()).isZero();
            assertThat(Rows.sorted(harness.read())).isEqualTo(rows(values, 3));
        }
    }

    private static List<String> rows(List<List<Object>> values, int v) {
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            rows.add(row(i, values.get(i), v));
        }
        return Rows.sorted(rows);
    }

    private static Object[] row(long id, List<Object> partition, int v) {
        Object[] row = new Object[partition.size() + 2];
        row[0] = id;
        for (int i = 0; i < partition.size(); i++) {
            row[i + 1] = partition.get(i);
        }
        row[row.length - 1] = v;
        return row;
    }
}
