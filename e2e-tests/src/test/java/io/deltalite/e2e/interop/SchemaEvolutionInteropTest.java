package io.deltalite.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.SchemaEvolution;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Schema changes across engines: what deltalite's schema evolution commits is read by Spark with
 * Delta (added columns null in old rows, widened columns read from old files as the wider type),
 * and deltalite writes tables whose schema Spark changed the same ways.
 */
class SchemaEvolutionInteropTest {
    private static final ValueType BIGINT = ValueType.of(ValueType.Kind.BIGINT);
    private static final ValueType INT = ValueType.of(ValueType.Kind.INT);
    private static final ValueType FLOAT = ValueType.of(ValueType.Kind.FLOAT);
    private static final ValueType DOUBLE = ValueType.of(ValueType.Kind.DOUBLE);
    private static final ValueType STRING = ValueType.of(ValueType.Kind.STRING);

    @TempDir Path dir;

    private static TableDefinition orders(
            ValueType amount, ValueType price, ValueType ratio, boolean withChannel) {
        List<ValueType.Field> columns =
                new java.util.ArrayList<>(
                        List.of(
                                new ValueType.Field("id", BIGINT, false),
                                new ValueType.Field("day", STRING, true),
                                new ValueType.Field("amount", amount, true),
                                new ValueType.Field("price", price, true),
                                new ValueType.Field("ratio", ratio, true)));
        if (withChannel) {
            columns.add(new ValueType.Field("channel", STRING, true));
        }
        return new TableDefinition(
                columns,
                List.of("id"),
                List.of("day"),
                Map.of("delta.enableDeletionVectors", "true"));
    }

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void sparkReadsWhatDeltalitesSchemaEvolutionCommitted(WriteMode mode) {
        String table = dir.resolve("orders").toString();
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        try (UpsertHarness first =
                UpsertHarness.open(
                        table, orders(INT, new ValueType.Decimal(9, 2), FLOAT, false), options)) {
            for (long id = 1; id <= 6; id++) {
                first.upsert(id, "d" + (id % 2), (int) id, new BigDecimal(id + ".25"), id / 2f);
            }
            first.commit();
        }
        TableDefinition evolved =
                orders(BIGINT, new ValueType.Decimal(18, 2), DOUBLE, true)
                        .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS_AND_WIDEN_TYPES);
        try (UpsertHarness second = UpsertHarness.open(table, evolved, options)) {
            // Old keys changed (their old files rewritten or given vectors), one removed, one new.
            second.upsert(
                    1L, "d1", 5_000_000_000L, new BigDecimal("1234567890123.25"), 1e300, "web");
            second.upsert(2L, "d0", 2L, new BigDecimal("2.25"), 1.0, "app");
            second.delete(3L, "d1", null, null, null, null);
            second.upsert(7L, "d1", 7L, new BigDecimal("7.75"), 3.5, null);
            second.commit();
        }
        List<Object[]> expected =
                List.of(
                        new Object[] {
                            1L,
                            "d1",
                            5_000_000_000L,
                            new BigDecimal("1234567890123.25"),
                            1e300,
                            "web"
                        },
                        new Object[] {2L, "d0", 2L, new BigDecimal("2.25"), 1.0, "app"},
                        new Object[] {4L, "d0", 4L, new BigDecimal("4.25"), 2.0, null},
                        new Object[] {5L, "d1", 5L, new BigDecimal("5.25"), 2.5, null},
                        new Object[] {6L, "d0", 6L, new BigDecimal("6.25"), 3.0, null},
                        new Object[] {7L, "d1", 7L, new BigDecimal("7.75"), 3.5, null});

        StructType schema = SparkDelta.session().read().format("delta").load(table).schema();
        assertThat(schema.fieldNames())
                .containsExactly("id", "day", "amount", "price", "ratio", "channel");
        assertThat(schema.apply("amount").dataType()).isEqualTo(DataTypes.LongType);
        assertThat(schema.apply("price").dataType()).isEqualTo(DataTypes.createDecimalType(18, 2));
        assertThat(schema.apply("ratio").dataType()).isEqualTo(DataTypes.DoubleType);
        assertThat(Rows.sorted(SparkRows.readTable(table)))
                .as("the evolved table read by Spark")
                .isEqualTo(Rows.sorted(expected));
        assertThat(Rows.sorted(KernelTableReader.readAll(table)))
                .as("the evolved table read by Kernel")
                .isEqualTo(Rows.sorted(expected));
    }

    @Test
    void deltaliteWritesATableWhoseSchemaSparkChanged() {
        String table = dir.resolve("orders").toString();
        try (UpsertHarness first =
                UpsertHarness.open(
                        table,
                        orders(INT, new ValueType.Decimal(9, 2), FLOAT, false),
                        MergeOptions.DEFAULTS)) {
            first.upsert(1L, "d1", 1, new BigDecimal("1.25"), 0.5f);
            first.upsert(2L, "d0", 2, new BigDecimal("2.25"), 1.0f);
            first.commit();
        }
        String delta = "delta.`" + table + "`";
        SparkDelta.sql(
                "ALTER TABLE "
                        + delta
                        + " SET TBLPROPERTIES ('delta.enableTypeWidening' = 'true')");
        SparkDelta.sql("ALTER TABLE " + delta + " CHANGE COLUMN amount TYPE BIGINT");
        SparkDelta.sql("ALTER TABLE " + delta + " ADD COLUMNS (channel STRING)");

        // The new shape, declared as it is now: no evolution needed; key 1's old file rewritten.
        try (UpsertHarness second =
                UpsertHarness.open(
                        table,
                        orders(BIGINT, new ValueType.Decimal(9, 2), FLOAT, true),
                        MergeOptions.DEFAULTS)) {
            second.upsert(1L, "d1", 5_000_000_000L, new BigDecimal("1.50"), 0.75f, "web");
            second.commit();
        }
        List<Object[]> expected =
                List.of(
                        new Object[] {
                            1L, "d1", 5_000_000_000L, new BigDecimal("1.50"), 0.75f, "web"
                        },
                        new Object[] {2L, "d0", 2L, new BigDecimal("2.25"), 1.0f, null});
        assertThat(Rows.sorted(SparkRows.readTable(table)))
                .as("read by Spark")
                .isEqualTo(Rows.sorted(expected));
        assertThat(Rows.sorted(KernelTableReader.readAll(table)))
                .as("read by Kernel")
                .isEqualTo(Rows.sorted(expected));
    }
}
