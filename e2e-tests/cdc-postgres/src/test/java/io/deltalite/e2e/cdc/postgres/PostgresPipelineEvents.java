package io.deltalite.e2e.cdc.postgres;

import io.debezium.data.Envelope;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.event.SchemaChangeEvent;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.types.DataField;
import org.apache.flink.cdc.common.types.RowType;
import org.apache.flink.cdc.debezium.event.DebeziumEventDeserializationSchema;
import org.apache.flink.cdc.debezium.event.DebeziumSchemaDataTypeInference;
import org.apache.flink.cdc.debezium.table.DebeziumChangelogMode;
import org.apache.flink.util.Collector;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Flink CDC's PostgreSQL source read as a pipeline source: each Debezium record a pipeline event
 * (Flink CDC's own Debezium conversion, {@link DebeziumEventDeserializationSchema}), and before the
 * first record of each table — in every reader, also after a restore — the table's {@code
 * CreateTableEvent}, its columns from the record's schema and its primary key from the record's
 * key, as Flink CDC's pipeline sources announce their tables. (The PostgreSQL pipeline source
 * connector itself is not published where this project builds.) Schema changes are not read.
 */
final class PostgresPipelineEvents extends DebeziumEventDeserializationSchema {
    private static final long serialVersionUID = 1L;

    /** The tables this reader announced since it started. */
    private transient Set<TableId> announced;

    PostgresPipelineEvents() {
        super(new DebeziumSchemaDataTypeInference(), DebeziumChangelogMode.ALL);
    }

    @Override
    public void deserialize(SourceRecord record, Collector<Event> out) throws Exception {
        if (isDataChangeRecord(record)) {
            if (announced == null) {
                announced = new HashSet<>();
            }
            TableId table = getTableId(record);
            if (announced.add(table)) {
                out.collect(new CreateTableEvent(table, schemaOf(record)));
            }
        }
        super.deserialize(record, out);
    }

    /** The table's schema as the record carries it: its row's columns, its key's columns. */
    private Schema schemaOf(SourceRecord record) {
        org.apache.kafka.connect.data.Schema valueSchema = record.valueSchema();
        Struct value = (Struct) record.value();
        String image =
                value.get(Envelope.FieldName.AFTER) != null
                        ? Envelope.FieldName.AFTER
                        : Envelope.FieldName.BEFORE;
        RowType row =
                (RowType)
                        schemaDataTypeInference.infer(
                                value.getStruct(image), valueSchema.field(image).schema());
        Schema.Builder schema = Schema.newBuilder();
        for (DataField field : row.getFields()) {
            schema.physicalColumn(field.getName(), field.getType());
        }
        schema.primaryKey(
                record.keySchema().fields().stream().map(Field::name).toArray(String[]::new));
        return schema.build();
    }

    @Override
    protected boolean isDataChangeRecord(SourceRecord record) {
        return record.valueSchema() != null
                && record.valueSchema().field(Envelope.FieldName.OPERATION) != null
                && record.value() != null;
    }

    @Override
    protected boolean isSchemaChangeRecord(SourceRecord record) {
        return false;
    }

    @Override
    protected List<SchemaChangeEvent> deserializeSchemaChangeRecord(SourceRecord record) {
        return List.of();
    }

    @Override
    protected TableId getTableId(SourceRecord record) {
        Struct source = ((Struct) record.value()).getStruct(Envelope.FieldName.SOURCE);
        return TableId.tableId(source.getString("schema"), source.getString("table"));
    }

    @Override
    protected Map<String, String> getMetadata(SourceRecord record) {
        return Map.of();
    }
}
