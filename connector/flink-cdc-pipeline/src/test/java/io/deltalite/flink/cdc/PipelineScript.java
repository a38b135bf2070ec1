package io.deltalite.flink.cdc;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.cdc.common.data.DecimalData;
import org.apache.flink.cdc.common.data.RecordData;
import org.apache.flink.cdc.common.data.binary.BinaryStringData;
import org.apache.flink.cdc.common.event.AddColumnEvent;
import org.apache.flink.cdc.common.event.AlterColumnTypeEvent;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.schema.Column;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.types.DataType;
import org.apache.flink.cdc.common.types.DataTypes;
import org.apache.flink.cdc.common.types.RowType;
import org.apache.flink.cdc.runtime.typeutils.BinaryRecordDataGenerator;

/**
 * The events a pipeline source would send for three tables of a database, and the rows each table
 * must end with: inserts, updates (a quarter with only the old row's key), deletes and key changes
 * (a delete and an insert, as Debezium-based sources send them) on {@code shop.orders} and {@code
 * shop.customers}, orders partitioned by customer outside its key so that updates move rows; a
 * column added to orders and a column of customers widened mid-stream; {@code shop.events} created
 * mid-stream. Rows of the model are in the Java types a Delta reader returns.
 */
final class PipelineScript {
    static final TableId ORDERS = TableId.tableId("shop", "orders");
    static final TableId CUSTOMERS = TableId.tableId("shop", "customers");
    static final TableId EVENTS = TableId.tableId("shop", "events");

    final List<Event> events = new ArrayList<>();

    /** Each table's rows by key, as the events leave them. */
    final Map<TableId, Map<Object, Object[]>> model = new LinkedHashMap<>();

    private final Map<TableId, Schema> schemas = new LinkedHashMap<>();
    private final Random random;

    PipelineScript(long seed, int changesPerPhase) {
        random = new Random(seed);
        create(
                ORDERS,
                Schema.newBuilder()
                        .physicalColumn("id", DataTypes.BIGINT().notNull())
                        .physicalColumn("customer", DataTypes.STRING())
                        .physicalColumn("amount", DataTypes.DECIMAL(10, 2))
                        .physicalColumn("qty", DataTypes.INT())
                        .primaryKey("id")
                        .build());
        create(
                CUSTOMERS,
                Schema.newBuilder()
                        .physicalColumn("id", DataTypes.INT().notNull())
                        .physicalColumn("name", DataTypes.STRING())
                        .physicalColumn("score", DataTypes.INT())
                        .primaryKey("id")
                        .build());
        changes(changesPerPhase, ORDERS, CUSTOMERS);
        AddColumnEvent addNote =
                new AddColumnEvent(
                        ORDERS,
                        List.of(
                                new AddColumnEvent.ColumnWithPosition(
                                        Column.physicalColumn("note", DataTypes.STRING()))));
        schemaChange(addNote, ORDERS, schemas.get(ORDERS).copy(withColumn(ORDERS, "note")));
        AlterColumnTypeEvent widenScore =
                new AlterColumnTypeEvent(CUSTOMERS, Map.of("score", DataTypes.BIGINT()));
        schemaChange(widenScore, CUSTOMERS, widened(CUSTOMERS, "score", DataTypes.BIGINT()));
        changes(changesPerPhase / 4, ORDERS, CUSTOMERS);
        create(
                EVENTS,
                Schema.newBuilder()
                        .physicalColumn("k", DataTypes.STRING().notNull())
                        .physicalColumn("v", DataTypes.DOUBLE())
                        .primaryKey("k")
                        .build());
        changes(changesPerPhase, ORDERS, CUSTOMERS, EVENTS);
    }

    private void create(TableId table, Schema schema) {
        schemas.put(table, schema);
        model.put(table, new LinkedHashMap<>());
        events.add(new CreateTableEvent(table, schema));
    }

    private List<Column> withColumn(TableId table, String name) {
        List<Column> columns = new ArrayList<>(schemas.get(table).getColumns());
        columns.add(Column.physicalColumn(name, DataTypes.STRING()));
        return columns;
    }

    private Schema widened(TableId table, String column, DataType type) {
        Schema schema = schemas.get(table);
        List<Column> columns = new ArrayList<>();
        for (Column c : schema.getColumns()) {
            columns.add(c.getName().equals(column) ? c.copy(type) : c);
        }
        return schema.copy(columns);
    }

    private void schemaChange(Event event, TableId table, Schema after) {
        events.add(event);
        schemas.put(table, after);
        int columns = after.getColumnCount();
        for (Map.Entry<Object, Object[]> row : model.get(table).entrySet()) {
            Object[] values = java.util.Arrays.copyOf(row.getValue(), columns);
            for (int i = 0; i < values.length; i++) {
                if (values[i] instanceof Integer number
                        && after.getColumnDataTypes().get(i).equals(DataTypes.BIGINT())) {
                    values[i] = number.longValue();
                }
            }
            row.setValue(values);
        }
    }

    private void changes(int count, TableId... tables) {
        for (int i = 0; i < count; i++) {
            TableId table = tables[random.nextInt(tables.length)];
            Map<Object, Object[]> rows = model.get(table);
            int op = random.nextInt(10);
            if (rows.isEmpty() || op < 4) {
                insert(table, newRow(table, newKey(table)));
            } else if (op < 8) {
                Object[] before = any(rows);
                Object[] after = newRow(table, before[0]);
                // Some sources know only the old row's key (PostgreSQL's default identity).
                Object[] old = before;
                if (random.nextInt(4) == 0) {
                    old = new Object[before.length];
                    old[0] = before[0];
                }
                events.add(
                        DataChangeEvent.updateEvent(
                                table, record(table, old), record(table, after)));
                rows.put(after[0], after);
            } else if (op < 9) {
                Object[] before = any(rows);
                events.add(DataChangeEvent.deleteEvent(table, record(table, before)));
                rows.remove(before[0]);
            } else {
                // A key change: the old key deleted, the row inserted under a new one.
                Object[] before = any(rows);
                events.add(DataChangeEvent.deleteEvent(table, record(table, before)));
                rows.remove(before[0]);
                Object[] after = newRow(table, newKey(table));
                System.arraycopy(before, 1, after, 1, before.length - 1);
                insert(table, after);
            }
        }
    }

    private void insert(TableId table, Object[] row) {
        events.add(DataChangeEvent.insertEvent(table, record(table, row)));
        model.get(table).put(row[0], row);
    }

    private Object[] any(Map<Object, Object[]> rows) {
        int index = random.nextInt(rows.size());
        return rows.values().stream().skip(index).findFirst().orElseThrow();
    }

    private long nextKey;

    private Object newKey(TableId table) {
        long key = nextKey++;
        if (table.equals(CUSTOMERS)) {
            return (int) key;
        }
        if (table.equals(EVENTS)) {
            return "event-" + key;
        }
        return key;
    }

    /** A row of the table's current schema, in the Java types a Delta reader returns. */
    private Object[] newRow(TableId table, Object key) {
        Schema schema = schemas.get(table);
        Object[] row = new Object[schema.getColumnCount()];
        row[0] = key;
        for (int i = 1; i < row.length; i++) {
            DataType type = schema.getColumnDataTypes().get(i);
            if (random.nextInt(8) == 0) {
                row[i] = null;
            } else if (schema.getColumnNames().get(i).equals("customer")) {
                // Few values: orders are partitioned by customer, and updates move rows.
                row[i] = "c" + random.nextInt(3);
            } else if (type.equals(DataTypes.STRING())) {
                row[i] = "s" + random.nextInt(1000);
            } else if (type.equals(DataTypes.INT())) {
                row[i] = random.nextInt(1000);
            } else if (type.equals(DataTypes.BIGINT())) {
                row[i] = random.nextLong() >> 20;
            } else if (type.equals(DataTypes.DOUBLE())) {
                row[i] = random.nextInt(100000) / 8.0;
            } else {
                row[i] = BigDecimal.valueOf(random.nextInt(1_000_000), 2);
            }
        }
        return row;
    }

    /** {@code row} as the pipeline's record of the table's current schema. */
    private RecordData record(TableId table, Object[] row) {
        Schema schema = schemas.get(table);
        Object[] values = new Object[row.length];
        for (int i = 0; i < row.length; i++) {
            Object value = row[i];
            if (value instanceof String text) {
                value = BinaryStringData.fromString(text);
            } else if (value instanceof BigDecimal decimal) {
                value = DecimalData.fromBigDecimal(decimal, 10, 2);
            }
            values[i] = value;
        }
        RowType type = (RowType) schema.toRowDataType();
        return new BinaryRecordDataGenerator(type).generate(values);
    }
}
