package io.deltalite.e2e.cdc;

import io.deltalite.e2e.cdc.KafkaBroker.Record;
import io.deltalite.e2e.cdc.OrdersDatabase.Delete;
import io.deltalite.e2e.cdc.OrdersDatabase.Event;
import io.deltalite.e2e.cdc.OrdersDatabase.Insert;
import io.deltalite.e2e.cdc.OrdersDatabase.KeyChange;
import io.deltalite.e2e.cdc.OrdersDatabase.Order;
import io.deltalite.e2e.cdc.OrdersDatabase.Read;
import io.deltalite.e2e.cdc.OrdersDatabase.Update;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Kafka records that Debezium (PostgreSQL connector, JSON converter without schemas, replica
 * identity FULL) and Canal (MySQL, canal-json) write for the events of {@link OrdersDatabase}.
 */
final class ChangeTopics {
    private ChangeTopics() {}

    /**
     * Debezium's records: {@code op} r, c, u, d with {@code before}/{@code after}; a tombstone
     * (null value) after every delete; a key change as a delete of the old key and a create of the
     * new, linked by the {@code __debezium.newkey} / {@code __debezium.oldkey} headers.
     */
    static List<Record> debezium(List<Event> events) {
        List<Record> records = new ArrayList<>();
        long ts = 1_717_200_000_000L;
        for (Event event : events) {
            ts += 7;
            if (event instanceof Read read) {
                records.add(debeziumRecord(null, read.row(), "r", ts, Map.of()));
            } else if (event instanceof Insert insert) {
                records.add(debeziumRecord(null, insert.row(), "c", ts, Map.of()));
            } else if (event instanceof Update update) {
                records.add(debeziumRecord(update.before(), update.after(), "u", ts, Map.of()));
            } else if (event instanceof Delete delete) {
                records.add(debeziumRecord(delete.before(), null, "d", ts, Map.of()));
                records.add(Record.of(key(delete.before()), null));
            } else if (event instanceof KeyChange change) {
                Map<String, String> toNew = Map.of("__debezium.newkey", key(change.after()));
                records.add(debeziumRecord(change.before(), null, "d", ts, toNew));
                records.add(new Record(key(change.before()), null, toNew));
                records.add(
                        debeziumRecord(
                                null,
                                change.after(),
                                "c",
                                ts,
                                Map.of("__debezium.oldkey", key(change.before()))));
            }
        }
        return records;
    }

    /** A Debezium update that lacks its before image: what replica identity DEFAULT produces. */
    static Record debeziumUpdateWithoutBefore(Order after) {
        return debeziumRecord(null, after, "u", 1_717_300_000_000L, Map.of());
    }

    /**
     * Canal's records: {@code type} INSERT, UPDATE, DELETE with the rows in {@code data}, values as
     * strings, and for an update the old values of the changed columns only in {@code old}. The
     * snapshot is a batch of inserts, and a key change is an update of the key column.
     */
    static List<Record> canal(List<Event> events) {
        List<Record> records = new ArrayList<>();
        long ts = 1_717_200_000_000L;
        int id = 0;
        for (Event event : events) {
            ts += 7;
            id++;
            Order row;
            String type;
            String old = "null";
            if (event instanceof Read read) {
                row = read.row();
                type = "INSERT";
            } else if (event instanceof Insert insert) {
                row = insert.row();
                type = "INSERT";
            } else if (event instanceof Update update) {
                row = update.after();
                type = "UPDATE";
                old = "[" + changedColumns(update.before(), update.after()) + "]";
            } else if (event instanceof Delete delete) {
                row = delete.before();
                type = "DELETE";
            } else {
                KeyChange change = (KeyChange) event;
                row = change.after();
                type = "UPDATE";
                old = "[" + changedColumns(change.before(), change.after()) + "]";
            }
            String value =
                    "{\"data\":["
                            + canalRow(row)
                            + "],\"database\":\"shop\",\"es\":"
                            + ts
                            + ",\"id\":"
                            + id
                            + ",\"isDdl\":false,\"mysqlType\":{\"id\":\"bigint\","
                            + "\"day\":\"varchar(10)\",\"amount\":\"int\",\"note\":\"varchar(64)\"},"
                            + "\"old\":"
                            + old
                            + ",\"pkNames\":[\"id\"],\"sql\":\"\",\"sqlType\":"
                            + "{\"id\":-5,\"day\":12,\"amount\":4,\"note\":12},\"table\":\"orders\","
                            + "\"ts\":"
                            + (ts + 3)
                            + ",\"type\":\""
                            + type
                            + "\"}";
            records.add(Record.of(null, value));
        }
        return records;
    }

    private static Record debeziumRecord(
            Order before, Order after, String op, long ts, Map<String, String> headers) {
        Order keyed = after != null ? after : before;
        String value =
                "{\"before\":"
                        + debeziumRow(before)
                        + ",\"after\":"
                        + debeziumRow(after)
                        + ",\"source\":{\"version\":\"2.7.3.Final\",\"connector\":\"postgresql\","
                        + "\"name\":\"shop\",\"ts_ms\":"
                        + (ts - 5)
                        + ",\"snapshot\":\""
                        + (op.equals("r") ? "true" : "false")
                        + "\",\"db\":\"shop\","
                        + "\"schema\":\"public\",\"table\":\"orders\",\"txId\":"
                        + ts / 10
                        + ",\"lsn\":"
                        + ts * 8
                        + ",\"xmin\":null},\"op\":\""
                        + op
                        + "\","
                        + "\"ts_ms\":"
                        + ts
                        + ",\"transaction\":null}";
        return new Record(key(keyed), value, headers);
    }

    private static String key(Order row) {
        return "{\"id\":" + row.id() + "}";
    }

    private static String debeziumRow(Order row) {
        if (row == null) {
            return "null";
        }
        return "{\"id\":"
                + row.id()
                + ",\"day\":\""
                + row.day()
                + "\",\"amount\":"
                + row.amount()
                + ",\"note\":\""
                + row.note()
                + "\"}";
    }

    private static String canalRow(Order row) {
        return "{\"id\":\""
                + row.id()
                + "\",\"day\":\""
                + row.day()
                + "\",\"amount\":\""
                + row.amount()
                + "\",\"note\":\""
                + row.note()
                + "\"}";
    }

    private static String changedColumns(Order before, Order after) {
        List<String> old = new ArrayList<>();
        if (before.id() != after.id()) {
            old.add("\"id\":\"" + before.id() + "\"");
        }
        if (!before.day().equals(after.day())) {
            old.add("\"day\":\"" + before.day() + "\"");
        }
        if (before.amount() != after.amount()) {
            old.add("\"amount\":\"" + before.amount() + "\"");
        }
        if (!before.note().equals(after.note())) {
            old.add("\"note\":\"" + before.note() + "\"");
        }
        return "{" + String.join(",", old) + "}";
    }
}
