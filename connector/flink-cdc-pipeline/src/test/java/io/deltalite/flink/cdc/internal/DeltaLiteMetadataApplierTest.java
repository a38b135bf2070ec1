package io.deltalite.flink.cdc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.storage.StorageSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.cdc.common.event.AddColumnEvent;
import org.apache.flink.cdc.common.event.AlterColumnTypeEvent;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.DropColumnEvent;
import org.apache.flink.cdc.common.event.DropTableEvent;
import org.apache.flink.cdc.common.event.RenameColumnEvent;
import org.apache.flink.cdc.common.event.SchemaChangeEvent;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.event.TruncateTableEvent;
import org.apache.flink.cdc.common.exceptions.SchemaEvolveException;
import org.apache.flink.cdc.common.exceptions.UnsupportedSchemaChangeEventException;
import org.apache.flink.cdc.common.schema.Column;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.types.DataTypes;
import org.assertj.core.api.AbstractStringAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The applier against real Delta tables: what each event leaves, and what it refuses. */
class DeltaLiteMetadataApplierTest {
    private static final TableId ORDERS = TableId.tableId("shop", "orders");
    private static final Schema ORDERS_SCHEMA =
            Schema.newBuilder()
                    .physicalColumn("id", DataTypes.BIGINT().notNull())
                    .physicalColumn("day", DataTypes.STRING())
                    .physicalColumn("qty", DataTypes.INT().notNull())
                    .physicalColumn("amount", DataTypes.DECIMAL(10, 2))
                    .primaryKey("id")
                    .partitionKey("day")
                    .build();

    @TempDir Path dir;

    private PipelineSettings settings(
            Map<TableId, List<String>> partitionKeys, Map<String, String> tableProperties) {
        return new PipelineSettings(
                TableLocations.under(dir.toString()),
                new org.apache.flink.configuration.Configuration(),
                Map.of(),
                tableProperties,
                partitionKeys,
                null,
                4);
    }

    private DeltaLiteMetadataApplier applier(Map<String, String> tableProperties) {
        return new DeltaLiteMetadataApplier(settings(Map.of(), tableProperties));
    }

    private String location() {
        return dir.resolve("shop").resolve("orders").toString();
    }

    private TableSchema schema() {
        return DeltaTable.existingSchema(
                        location(), StorageSettings.of(Map.of()), TableDefinition.existingTable())
                .orElseThrow();
    }

    private long version() {
        return KernelTableReader.latestVersion(location());
    }

    private ValueType.Field column(String name) {
        return schema().column(name);
    }

    /** An applier that has created the orders table. */
    private DeltaLiteMetadataApplier created(Map<String, String> tableProperties) {
        DeltaLiteMetadataApplier applier = applier(tableProperties);
        applier.applySchemaChange(new CreateTableEvent(ORDERS, ORDERS_SCHEMA));
        return applier;
    }

    private static SchemaChangeEvent addColumn(AddColumnEvent.ColumnWithPosition column) {
        return new AddColumnEvent(ORDERS, List.of(column));
    }

    /** The refusal {@code apply} throws: its own message, which the framework reports. */
    private static AbstractStringAssert<?> refusal(
            ThrowingCallable apply, Class<? extends SchemaEvolveException> type) {
        Throwable thrown = catchThrowable(apply);
        assertThat(thrown).isInstanceOf(type);
        return assertThat(((SchemaEvolveException) thrown).getExceptionMessage());
    }

    @Test
    void aCreateTableEventCreatesTheTableWithItsKeyAndPartitionColumns() {
        applier(Map.of()).applySchemaChange(new CreateTableEvent(ORDERS, ORDERS_SCHEMA));

        TableSchema schema = schema();
        assertThat(schema.columns())
                .extracting(ValueType.Field::name)
                .containsExactly("id", "day", "qty", "amount");
        assertThat(schema.primaryKey()).containsExactly("id");
        assertThat(schema.partitionColumns()).containsExactly("day");
        assertThat(column("amount").type()).isEqualTo(new ValueType.Decimal(10, 2));
        assertThat(column("qty").nullable()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "name"})
    void columnCommentsOfTheSourceBecomeTheDeltaColumnsCommentsAlsoOfAddedColumns(String mapping) {
        Schema commented =
                Schema.newBuilder()
                        .physicalColumn("id", DataTypes.BIGINT().notNull(), "order number")
                        .physicalColumn("note", DataTypes.STRING())
                        .primaryKey("id")
                        .build();

        DeltaLiteMetadataApplier applier = applier(Map.of("delta.columnMapping.mode", mapping));
        applier.applySchemaChange(new CreateTableEvent(ORDERS, commented));
        applier.applySchemaChange(
                new AddColumnEvent(
                        ORDERS,
                        List.of(
                                AddColumnEvent.last(
                                        Column.physicalColumn(
                                                "channel", DataTypes.STRING(), "web or shop")))));

        io.delta.kernel.types.StructType table = KernelTableReader.schema(location());
        assertThat(table.get("id").getMetadata().getString("comment")).isEqualTo("order number");
        assertThat(table.get("note").getMetadata().contains("comment")).isFalse();
        assertThat(table.get("channel").getMetadata().getString("comment"))
                .isEqualTo("web or shop");
    }

    @Test
    void partitionColumnsComeFromTheSinkWhenTheEventNamesNone() {
        Schema unpartitioned =
                Schema.newBuilder()
                        .physicalColumn("id", DataTypes.BIGINT().notNull())
                        .physicalColumn("day", DataTypes.STRING())
                        .primaryKey("id")
                        .build();
        new DeltaLiteMetadataApplier(settings(Map.of(ORDERS, List.of("day")), Map.of()))
                .applySchemaChange(new CreateTableEvent(ORDERS, unpartitioned));

        assertThat(schema().partitionColumns()).containsExactly("day");
    }

    @Test
    void aCreateTableEventReSentForTheTableChangesNothing() {
        DeltaLiteMetadataApplier applier = created(Map.of());
        long created = version();

        applier.applySchemaChange(new CreateTableEvent(ORDERS, ORDERS_SCHEMA));

        assertThat(version()).isEqualTo(created);
    }

    @Test
    void anAddedColumnIsAddedOnceWhenTheEventComesTwice() {
        DeltaLiteMetadataApplier applier = created(Map.of());
        SchemaChangeEvent add =
                addColumn(AddColumnEvent.first(Column.physicalColumn("note", DataTypes.STRING())));

        applier.applySchemaChange(add);
        long added = version();
        applier.applySchemaChange(add);

        assertThat(schema().columns())
                .extracting(ValueType.Field::name)
                .as("added at the end, whatever position the event gives")
                .containsExactly("id", "day", "qty", "amount", "note");
        assertThat(version()).isEqualTo(added);
    }

    @Test
    void aColumnAddedWithAnotherTypeThanTheTablesIsRefusedNamingIt() {
        DeltaLiteMetadataApplier applier = created(Map.of());
        SchemaChangeEvent add =
                addColumn(AddColumnEvent.last(Column.physicalColumn("QTY", DataTypes.STRING())));

        refusal(() -> applier.applySchemaChange(add), SchemaEvolveException.class)
                .contains("shop.orders")
                .contains(location())
                .contains(
                        "already has a column 'qty' of type int, and the event adds it as string");
    }

    @Test
    void aTypeIsWidenedAndNotNullRelaxedOnceWhenTheEventComesTwice() {
        DeltaLiteMetadataApplier applier = created(Map.of());
        SchemaChangeEvent widen =
                new AlterColumnTypeEvent(ORDERS, Map.of("qty", DataTypes.BIGINT()));

        applier.applySchemaChange(widen);
        long widened = version();
        applier.applySchemaChange(widen);

        assertThat(column("qty").type()).isEqualTo(ValueType.of(ValueType.Kind.BIGINT));
        assertThat(column("qty").nullable()).isTrue();
        assertThat(version()).isEqualTo(widened);
    }

    @ParameterizedTest(name = "column mapping {0}")
    @ValueSource(strings = {"none", "name"})
    void aColumnMadeNullableLikeLenientsDroppedColumnsIsRelaxedButNeverTheKey(String mapping) {
        DeltaLiteMetadataApplier applier = created(Map.of("delta.columnMapping.mode", mapping));

        applier.applySchemaChange(
                new AlterColumnTypeEvent(
                        ORDERS, Map.of("qty", DataTypes.INT(), "id", DataTypes.BIGINT())));

        assertThat(column("qty").type()).isEqualTo(ValueType.of(ValueType.Kind.INT));
        assertThat(column("qty").nullable()).isTrue();
        assertThat(column("id").nullable()).as("a primary-key column").isFalse();
    }

    @Test
    void aTypeTheColumnCannotHoldIsRefusedAndNothingIsCommitted() {
        DeltaLiteMetadataApplier applier = created(Map.of());
        long created = version();

        refusal(
                        () ->
                                applier.applySchemaChange(
                                        new AlterColumnTypeEvent(
                                                ORDERS, Map.of("amount", DataTypes.STRING()))),
                        SchemaEvolveException.class)
                .contains("shop.orders")
                .contains(location())
                .contains("amount");
        assertThat(version()).isEqualTo(created);
        assertThat(column("amount").type()).isEqualTo(new ValueType.Decimal(10, 2));
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "name"})
    void renamesAndDropsAreRefusedAsUnsupportedSayingLenientKeepsTheColumn(String mapping) {
        DeltaLiteMetadataApplier applier = created(Map.of("delta.columnMapping.mode", mapping));
        long created = version();

        refusal(
                        () ->
                                applier.applySchemaChange(
                                        new RenameColumnEvent(ORDERS, Map.of("amount", "total"))),
                        UnsupportedSchemaChangeEventException.class)
                .contains("shop.orders")
                .contains("rename.column")
                .contains("failover")
                .contains("schema.change.behavior: lenient");
        refusal(
                        () ->
                                applier.applySchemaChange(
                                        new DropColumnEvent(ORDERS, List.of("amount"))),
                        UnsupportedSchemaChangeEventException.class)
                .contains("drop.column")
                .contains("schema.change.behavior: lenient");
        assertThat(version()).isEqualTo(created);
        assertThat(schema().columns()).extracting(ValueType.Field::name).contains("amount");
        assertThat(applier.getSupportedSchemaEvolutionTypes())
                .doesNotContain(
                        org.apache.flink.cdc.common.event.SchemaChangeEventType.RENAME_COLUMN,
                        org.apache.flink.cdc.common.event.SchemaChangeEventType.DROP_COLUMN);
    }

    @Test
    void aTableWithoutPrimaryKeyIsRefusedNamingTheTransformThatGivesItOne() {
        Schema keyless =
                Schema.newBuilder()
                        .physicalColumn("id", DataTypes.BIGINT())
                        .physicalColumn("note", DataTypes.STRING())
                        .build();

        refusal(
                        () ->
                                applier(Map.of())
                                        .applySchemaChange(new CreateTableEvent(ORDERS, keyless)),
                        SchemaEvolveException.class)
                .contains("shop.orders has no primary key")
                .contains("primary-keys");
        assertThat(dir.resolve("shop").resolve("orders").resolve("_delta_log")).doesNotExist();
    }

    @Test
    void twoTablesThatMapToOneLocationAreRefused() {
        DeltaLiteMetadataApplier applier =
                new DeltaLiteMetadataApplier(
                        new PipelineSettings(
                                TableLocations.ofPattern(dir + "/{table}"),
                                new org.apache.flink.configuration.Configuration(),
                                Map.of(),
                                Map.of(),
                                Map.of(),
                                null,
                                4));
        applier.applySchemaChange(new CreateTableEvent(ORDERS, ORDERS_SCHEMA));
        // The same event again is the same table: nothing to refuse.
        applier.applySchemaChange(new CreateTableEvent(ORDERS, ORDERS_SCHEMA));

        refusal(
                        () ->
                                applier.applySchemaChange(
                                        new CreateTableEvent(
                                                TableId.tableId("archive", "orders"),
                                                ORDERS_SCHEMA)),
                        SchemaEvolveException.class)
                .contains("created for the pipeline table shop.orders")
                .contains("archive.orders")
                .contains("{schema}");
    }

    @Test
    void aChangeOfATableThatIsNotThereIsRefusedSayingWhatToDo() {
        SchemaChangeEvent add =
                addColumn(AddColumnEvent.last(Column.physicalColumn("note", DataTypes.STRING())));

        refusal(() -> applier(Map.of()).applySchemaChange(add), SchemaEvolveException.class)
                .contains("There is no Delta table of shop.orders")
                .contains("CreateTableEvent");
    }

    @Test
    void truncatingAndDroppingTablesAreRefusedAsUnsupported() {
        DeltaLiteMetadataApplier applier = created(Map.of());

        for (SchemaChangeEvent event :
                List.of(new TruncateTableEvent(ORDERS), new DropTableEvent(ORDERS))) {
            refusal(
                            () -> applier.applySchemaChange(event),
                            UnsupportedSchemaChangeEventException.class)
                    .contains(event.getType().getTag())
                    .contains("exclude.schema.changes");
        }
        assertThat(KernelTableReader.readAll(location())).isEmpty();
        assertThat(applier.getSupportedSchemaEvolutionTypes())
                .doesNotContain(
                        org.apache.flink.cdc.common.event.SchemaChangeEventType.TRUNCATE_TABLE,
                        org.apache.flink.cdc.common.event.SchemaChangeEventType.DROP_TABLE);
    }

    @Test
    void tablesLandWhereThePatternSays() {
        assertThat(TableLocations.under("s3a://lake/cdc/").of(TableId.tableId("shop", "orders")))
                .isEqualTo("s3a://lake/cdc/shop/orders");
        assertThat(TableLocations.under("/lake").of(TableId.tableId("orders")))
                .isEqualTo("/lake/orders");
        assertThat(
                        TableLocations.ofPattern("/lake/{namespace}/{schema}_{table}")
                                .of(TableId.tableId("db", "public", "orders")))
                .isEqualTo("/lake/db/public_orders");
        assertThatThrownBy(() -> TableLocations.ofPattern("/lake/{schema}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{table}");
    }
}
