package io.deltalite.flink.internal.merge.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.sink.SchemaEvolution;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An existing table's schema following the input at job start ({@link SchemaEvolution}): on real
 * Delta tables, read back with Delta Kernel; the log is checked for what Delta readers need.
 */
class SchemaEvolutionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static ValueType.Field field(String name, ValueType type, boolean nullable) {
        return new ValueType.Field(name, type, nullable);
    }

    private static final ValueType.Field ID = field("id", ValueType.of(Kind.BIGINT), false);
    private static final ValueType.Field DAY = field("day", ValueType.of(Kind.STRING), true);

    /** The table as a first job created it. */
    private static TableDefinition version1(ValueType.Field... more) {
        List<ValueType.Field> columns = new ArrayList<>(List.of(ID, DAY));
        columns.addAll(List.of(more));
        return new TableDefinition(columns, List.of("id"), List.of("day"), Map.of());
    }

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void addedColumnsAreNullInOldRowsAndCarryValuesFromThen(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        TableDefinition v1 = version1(field("amount", ValueType.of(Kind.INT), true));
        v1 =
                new TableDefinition(
                        v1.columns(),
                        v1.primaryKey(),
                        v1.partitionColumns(),
                        Map.of(
                                "delta.enableDeletionVectors",
                                Boolean.toString(mode == WriteMode.DELETION_VECTORS)));
        try (UpsertHarness first = UpsertHarness.open(dir.toString(), v1, options)) {
            first.upsert(1L, "d1", 10);
            first.upsert(2L, "d1", 20);
            first.upsert(3L, "d2", 30);
            first.commit();
        }
        long before = latestVersion();
        TableDefinition v2 =
                version1(
                                field("amount", ValueType.of(Kind.INT), true),
                                field("note", ValueType.of(Kind.STRING), true),
                                field("score", ValueType.of(Kind.DOUBLE), true))
                        .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS);
        try (UpsertHarness second = UpsertHarness.open(dir.toString(), v2, options)) {
            // One version, only the new metadata: no data file touched.
            assertThat(latestVersion()).isEqualTo(before + 1);
            List<JsonNode> actions = DeltaHistory.actions(dir, before + 1);
            assertThat(actions).noneMatch(a -> a.has("add") || a.has("remove") || a.has("txn"));
            assertThat(actions)
                    .anySatisfy(
                            a ->
                                    assertThat(a.path("commitInfo").path("operation").asText())
                                            .isEqualTo("Manual Update"));
            JsonNode metaData =
                    actions.stream().filter(a -> a.has("metaData")).findFirst().orElseThrow();
            assertThat(fieldNames(metaData))
                    .containsExactly("id", "day", "amount", "note", "score");
            assertThat(second.table().schema().columns()).containsAll(v2.columns());

            assertThat(Rows.sorted(second.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {1L, "d1", 10, null, null},
                                            new Object[] {2L, "d1", 20, null, null},
                                            new Object[] {3L, "d2", 30, null, null})));

            // An old row updated (its file rewritten or given a vector), one left alone, one new.
            second.upsert(1L, "d1", 11, "first", 1.5);
            second.upsert(4L, "d2", 40, "new", 4.0);
            second.delete(3L, "d2", null, null, null);
            second.commit();
            assertThat(Rows.sorted(second.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {1L, "d1", 11, "first", 1.5},
                                            new Object[] {2L, "d1", 20, null, null},
                                            new Object[] {4L, "d2", 40, "new", 4.0})));
        }
        // The job restarted with the same declaration: nothing left to change.
        long after = latestVersion();
        try (UpsertHarness third = UpsertHarness.open(dir.toString(), v2, options)) {
            assertThat(latestVersion()).isEqualTo(after);
        }
    }

    @Test
    void withoutSchemaEvolutionANewColumnIsRefusedNamingTheOption() {
        TableDefinition v1 = version1(field("amount", ValueType.of(Kind.INT), true));
        try (UpsertHarness first = UpsertHarness.open(dir.toString(), v1, MergeOptions.DEFAULTS)) {
            first.upsert(1L, "d1", 10);
            first.commit();
        }
        long before = latestVersion();
        TableDefinition v2 =
                version1(
                        field("amount", ValueType.of(Kind.INT), true),
                        field("note", ValueType.of(Kind.STRING), true));
        assertThatThrownBy(() -> plan(v2))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("Column 'note' of the input is not a column")
                .hasMessageContaining("schema-evolution = add-columns");
        // Opening the table as a writer does changes nothing either.
        DeltaTable.open(dir.toString(), Map.of(), MergeOptions.DEFAULTS, v2, false);
        assertThat(latestVersion()).isEqualTo(before);
    }

    @Test
    void theJobBuildChecksTheChangeButOnlyTheWritersCommitIt() {
        TableDefinition v1 = version1(field("amount", ValueType.of(Kind.INT), true));
        try (UpsertHarness first = UpsertHarness.open(dir.toString(), v1, MergeOptions.DEFAULTS)) {
            first.upsert(1L, "d1", 10);
            first.commit();
        }
        long before = latestVersion();
        TableDefinition v2 =
                version1(
                                field("amount", ValueType.of(Kind.BIGINT), true),
                                field("note", ValueType.of(Kind.STRING), true))
                        .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS_AND_WIDEN_TYPES);
        TableSchema planned = plan(v2);
        assertThat(planned.columns())
                .containsExactly(
                        ID,
                        DAY,
                        field("amount", ValueType.of(Kind.BIGINT), true),
                        field("note", ValueType.of(Kind.STRING), true));
        assertThat(latestVersion()).isEqualTo(before);
    }

    @Test
    void widenedColumnsReadOldValuesAsTheWiderTypeAndRecordTheChange() {
        TableDefinition v1 =
                version1(
                        field("amount", ValueType.of(Kind.INT), true),
                        field("price", new ValueType.Decimal(10, 2), true),
                        field("ratio", ValueType.of(Kind.FLOAT), true),
                        field("small", ValueType.of(Kind.SMALLINT), true));
        try (UpsertHarness first = UpsertHarness.open(dir.toString(), v1, MergeOptions.DEFAULTS)) {
            first.upsert(1L, "d1", 10, new BigDecimal("1.25"), 0.5f, (short) 7);
            first.upsert(2L, "d1", 20, new BigDecimal("2.50"), 1.5f, (short) 8);
            first.commit();
        }
        long before = latestVersion();
        TableDefinition v2 =
                version1(
                                field("amount", ValueType.of(Kind.BIGINT), true),
                                field("price", new ValueType.Decimal(18, 2), true),
                                field("ratio", ValueType.of(Kind.DOUBLE), true),
                                field("small", ValueType.of(Kind.INT), true))
                        .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS_AND_WIDEN_TYPES);
        try (UpsertHarness second = UpsertHarness.open(dir.toString(), v2, MergeOptions.DEFAULTS)) {
            assertThat(latestVersion()).isEqualTo(before + 1);
            List<JsonNode> actions = DeltaHistory.actions(dir, before + 1);
            JsonNode protocol =
                    actions.stream().filter(a -> a.has("protocol")).findFirst().orElseThrow();
            assertThat(protocol.get("protocol").get("minReaderVersion").asInt()).isEqualTo(3);
            assertThat(protocol.get("protocol").get("minWriterVersion").asInt()).isEqualTo(7);
            assertThat(texts(protocol.get("protocol").get("readerFeatures")))
                    .contains("typeWidening");
            assertThat(texts(protocol.get("protocol").get("writerFeatures")))
                    .contains("typeWidening");
            JsonNode metaData =
                    actions.stream().filter(a -> a.has("metaData")).findFirst().orElseThrow();
            assertThat(
                            metaData.get("metaData")
                                    .get("configuration")
                                    .get("delta.enableTypeWidening")
                                    .asText())
                    .isEqualTo("true");
            JsonNode amount = schemaField(metaData, "amount");
            assertThat(amount.get("type").asText()).isEqualTo("long");
            JsonNode change = amount.get("metadata").get("delta.typeChanges").get(0);
            assertThat(change.get("fromType").asText()).isEqualTo("integer");
            assertThat(change.get("toType").asText()).isEqualTo("long");
            assertThat(schemaField(metaData, "price").get("type").asText())
                    .isEqualTo("decimal(18,2)");
            assertThat(schemaField(metaData, "ratio").get("type").asText()).isEqualTo("double");

            // Old files hold int, decimal(10,2), float and short: read as the wider types.
            assertThat(Rows.sorted(second.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {
                                                1L, "d1", 10L, new BigDecimal("1.25"), 0.5, 7
                                            },
                                            new Object[] {
                                                2L, "d1", 20L, new BigDecimal("2.50"), 1.5, 8
                                            })));
            // A value only the wider types hold; the old file is rewritten with its survivor.
            second.upsert(
                    1L, "d1", 5_000_000_000L, new BigDecimal("12345678901.25"), 1e300, 100_000);
            second.commit();
            assertThat(Rows.sorted(second.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {
                                                1L,
                                                "d1",
                                                5_000_000_000L,
                                                new BigDecimal("12345678901.25"),
                                                1e300,
                                                100_000
                                            },
                                            new Object[] {
                                                2L, "d1", 20L, new BigDecimal("2.50"), 1.5, 8
                                            })));
        }
    }

    @Test
    void addColumnsAloneDoesNotWidenATypeAndSaysWhichModeWould() {
        TableDefinition v1 = version1(field("amount", ValueType.of(Kind.INT), true));
        UpsertHarness.open(dir.toString(), v1, MergeOptions.DEFAULTS).close();
        TableDefinition v2 =
                version1(field("amount", ValueType.of(Kind.BIGINT), true))
                        .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS);
        assertThatThrownBy(() -> plan(v2))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("Column 'amount' is bigint in the input but int")
                .hasMessageContaining("schema-evolution = add-columns-and-widen-types");
    }

    @Test
    void whatDeltaCannotWidenStaysAMismatchNamingTheColumn() {
        TableDefinition v1 =
                version1(
                        field("amount", ValueType.of(Kind.BIGINT), true),
                        field("price", new ValueType.Decimal(10, 2), true));
        UpsertHarness.open(dir.toString(), v1, MergeOptions.DEFAULTS).close();
        long before = latestVersion();
        // A widening Delta does not allow (bigint to double).
        assertThatThrownBy(
                        () ->
                                open(
                                        version1(
                                                        field(
                                                                "amount",
                                                                ValueType.of(Kind.DOUBLE),
                                                                true),
                                                        field(
                                                                "price",
                                                                new ValueType.Decimal(10, 2),
                                                                true),
                                                        field(
                                                                "extra",
                                                                ValueType.of(Kind.INT),
                                                                true))
                                                .withSchemaEvolution(
                                                        SchemaEvolution
                                                                .ADD_COLUMNS_AND_WIDEN_TYPES)))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("'amount'");
        // Another scale.
        assertThatThrownBy(
                        () ->
                                plan(
                                        version1(
                                                        field(
                                                                "amount",
                                                                ValueType.of(Kind.BIGINT),
                                                                true),
                                                        field(
                                                                "price",
                                                                new ValueType.Decimal(12, 3),
                                                                true))
                                                .withSchemaEvolution(
                                                        SchemaEvolution
                                                                .ADD_COLUMNS_AND_WIDEN_TYPES)))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("'price'");
        // Another type altogether.
        assertThatThrownBy(
                        () ->
                                plan(
                                        version1(
                                                        field(
                                                                "amount",
                                                                ValueType.of(Kind.STRING),
                                                                true),
                                                        field(
                                                                "price",
                                                                new ValueType.Decimal(10, 2),
                                                                true))
                                                .withSchemaEvolution(
                                                        SchemaEvolution
                                                                .ADD_COLUMNS_AND_WIDEN_TYPES)))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("'amount'");
        // A new column that is NOT NULL.
        assertThatThrownBy(
                        () ->
                                plan(
                                        version1(
                                                        field(
                                                                "amount",
                                                                ValueType.of(Kind.BIGINT),
                                                                true),
                                                        field(
                                                                "price",
                                                                new ValueType.Decimal(10, 2),
                                                                true),
                                                        field(
                                                                "code",
                                                                ValueType.of(Kind.STRING),
                                                                false))
                                                .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS)))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("Column 'code' of the input is NOT NULL");
        // The partition column.
        TableDefinition intDay =
                new TableDefinition(
                        List.of(ID, field("day", ValueType.of(Kind.INT), true)),
                        List.of("id"),
                        List.of("day"),
                        Map.of());
        Path other = dir.resolve("by-int-day");
        UpsertHarness.open(other.toString(), intDay, MergeOptions.DEFAULTS).close();
        assertThatThrownBy(
                        () ->
                                DeltaTable.open(
                                        other.toString(),
                                        Map.of(),
                                        MergeOptions.DEFAULTS,
                                        new TableDefinition(
                                                List.of(
                                                        ID,
                                                        field(
                                                                "day",
                                                                ValueType.of(Kind.BIGINT),
                                                                true)),
                                                List.of("id"),
                                                List.of("day"),
                                                Map.of(),
                                                SchemaEvolutionPolicy.of(
                                                        SchemaEvolution
                                                                .ADD_COLUMNS_AND_WIDEN_TYPES)),
                                        false))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("'day'")
                .hasMessageContaining("partition column");
        // None of it changed the table.
        assertThat(latestVersion()).isEqualTo(before);
    }

    @Test
    void aPrimaryKeyColumnIsNotWidened() {
        TableDefinition intKey =
                new TableDefinition(
                        List.of(field("id", ValueType.of(Kind.INT), false), DAY),
                        List.of("id"),
                        List.of("day"),
                        Map.of());
        UpsertHarness.open(dir.toString(), intKey, MergeOptions.DEFAULTS).close();
        long before = latestVersion();
        TableDefinition wider =
                new TableDefinition(
                        List.of(field("id", ValueType.of(Kind.BIGINT), false), DAY),
                        List.of("id"),
                        List.of("day"),
                        Map.of(),
                        SchemaEvolutionPolicy.of(SchemaEvolution.ADD_COLUMNS_AND_WIDEN_TYPES));
        assertThatThrownBy(() -> open(wider))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("'id'")
                .hasMessageContaining("primary-key column");
        assertThatThrownBy(() -> plan(wider.withSchemaEvolution(SchemaEvolution.NONE)))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageNotContaining("add-columns-and-widen-types");
        assertThat(latestVersion()).isEqualTo(before);
    }

    @Test
    void aColumnNameDeltaRefusesWithoutColumnMappingIsNotAdded() {
        TableDefinition v1 = version1(field("amount", ValueType.of(Kind.INT), true));
        UpsertHarness.open(dir.toString(), v1, MergeOptions.DEFAULTS).close();
        long before = latestVersion();
        TableDefinition spaced =
                version1(
                                field("amount", ValueType.of(Kind.INT), true),
                                field("my col", ValueType.of(Kind.STRING), true))
                        .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS);
        assertThatThrownBy(() -> plan(spaced))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("my col");
        assertThatThrownBy(() -> open(spaced))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("my col");
        assertThat(latestVersion()).isEqualTo(before);
    }

    @Test
    void aTableWithTypeWideningTurnedOffIsNotWidened() {
        TableDefinition v1 =
                new TableDefinition(
                        List.of(ID, DAY, field("amount", ValueType.of(Kind.INT), true)),
                        List.of("id"),
                        List.of("day"),
                        Map.of("delta.enableTypeWidening", "false"));
        UpsertHarness.open(dir.toString(), v1, MergeOptions.DEFAULTS).close();
        long before = latestVersion();
        TableDefinition wider =
                version1(field("amount", ValueType.of(Kind.BIGINT), true))
                        .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS_AND_WIDEN_TYPES);
        assertThatThrownBy(() -> open(wider))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("delta.enableTypeWidening = false");
        assertThat(latestVersion()).isEqualTo(before);
    }

    @Test
    void writersOpeningAtOnceChangeTheSchemaOnce() throws Exception {
        TableDefinition v1 = version1(field("amount", ValueType.of(Kind.INT), true));
        try (UpsertHarness first = UpsertHarness.open(dir.toString(), v1, MergeOptions.DEFAULTS)) {
            first.upsert(1L, "d1", 10);
            first.commit();
        }
        long before = latestVersion();
        TableDefinition v2 =
                version1(
                                field("amount", ValueType.of(Kind.BIGINT), true),
                                field("note", ValueType.of(Kind.STRING), true))
                        .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS_AND_WIDEN_TYPES);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<TableSchema>> opened = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Callable<TableSchema> openOne = () -> open(v2).schema();
                opened.add(pool.submit(openOne));
            }
            for (Future<TableSchema> schema : opened) {
                assertThat(schema.get().columns()).isEqualTo(v2.columns());
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(latestVersion()).isEqualTo(before + 1);
    }

    /**
     * A job still running with the old declaration while another evolves the table: its next commit
     * stops with a clear error, nothing of it lands; restarted (reopened) with its old declaration
     * it writes on, with null in the new column.
     */
    @Test
    void aRunningJobWithTheOldSchemaStopsAndAfterARestartWritesOn() {
        TableDefinition v1 = version1(field("amount", ValueType.of(Kind.INT), true));
        try (UpsertHarness old = UpsertHarness.open(dir.toString(), v1, MergeOptions.DEFAULTS)) {
            old.upsert(1L, "d1", 10);
            old.commit();
            TableDefinition v2 =
                    version1(
                                    field("amount", ValueType.of(Kind.BIGINT), true),
                                    field("note", ValueType.of(Kind.STRING), true))
                            .withSchemaEvolution(SchemaEvolution.ADD_COLUMNS_AND_WIDEN_TYPES);
            try (UpsertHarness evolved =
                    UpsertHarness.open(dir.toString(), v2, MergeOptions.DEFAULTS, "other-job")) {
                evolved.upsert(2L, "d1", 20L, "new");
                evolved.commit();
            }
            long before = latestVersion();
            old.upsert(3L, "d1", 30);
            assertThatThrownBy(old::commit)
                    .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                    .hasMessageContaining("changed while the sink was running");
            assertThat(latestVersion()).isEqualTo(before);
        }
        try (UpsertHarness restarted =
                UpsertHarness.open(dir.toString(), v1, MergeOptions.DEFAULTS)) {
            // The restarted job's rows are in the table's (new) column order: its input mapped.
            InputProjection projection =
                    InputProjection.plan(v1.columns(), restarted.table().schema(), dir.toString());
            restarted.upsert(projection.project(new Object[] {3L, "d1", 30}));
            restarted.upsert(projection.project(new Object[] {2L, "d1", 21}));
            restarted.commit();
            assertThat(Rows.sorted(restarted.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {1L, "d1", 10L, null},
                                            new Object[] {2L, "d1", 21L, null},
                                            new Object[] {3L, "d1", 30L, null})));
        }
    }

    private DeltaTable open(TableDefinition definition) {
        return DeltaTable.open(dir.toString(), Map.of(), MergeOptions.DEFAULTS, definition, false);
    }

    /** What the sink checks when the job is built. */
    private TableSchema plan(TableDefinition definition) {
        TableSchema schema =
                DeltaTable.existingSchema(dir.toString(), StorageSettings.of(Map.of()), definition)
                        .orElseThrow();
        InputProjection.plan(definition.columns(), schema, dir.toString());
        return schema;
    }

    private long latestVersion() {
        return DeltaHistory.commits(dir).get(DeltaHistory.commits(dir).size() - 1).version();
    }

    private static List<String> fieldNames(JsonNode metaData) throws RuntimeException {
        List<String> names = new ArrayList<>();
        schema(metaData).get("fields").forEach(f -> names.add(f.get("name").asText()));
        return names;
    }

    private static JsonNode schemaField(JsonNode metaData, String name) {
        for (JsonNode f : schema(metaData).get("fields")) {
            if (f.get("name").asText().equals(name)) {
                return f;
            }
        }
        throw new AssertionError("no field " + name);
    }

    private static JsonNode schema(JsonNode metaData) {
        try {
            return JSON.readTree(metaData.get("metaData").get("schemaString").asText());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
