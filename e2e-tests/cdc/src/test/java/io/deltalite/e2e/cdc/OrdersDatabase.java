package io.deltalite.e2e.cdc;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * The database table the tests mirror, {@code orders(id BIGINT PRIMARY KEY, day, amount, note)}, as
 * a model: the events a change-data-capture tool reports for it, and the rows it holds after them.
 * Deterministic for a seed.
 */
final class OrdersDatabase {
    static final String[] DAYS = {"2024-06-01", "2024-06-02", "2024-06-03", "2024-06-04"};

    /** One row of the table. */
    record Order(long id, String day, int amount, String note) {
        Object[] values() {
            return new Object[] {id, day, amount, note};
        }
    }

    /** What a CDC tool reports: a snapshot read, an insert, an update, a delete, a key change. */
    sealed interface Event {}

    record Read(Order row) implements Event {}

    record Insert(Order row) implements Event {}

    record Update(Order before, Order after) implements Event {}

    record Delete(Order before) implements Event {}

    /** An update of the primary key: tools report it as a delete of the old and an insert. */
    record KeyChange(Order before, Order after) implements Event {}

    private final TreeMap<Long, Order> rows = new TreeMap<>();
    private final Random random;
    private long nextId = 1;
    private int nextNote;

    OrdersDatabase(long seed) {
        this.random = new Random(seed);
    }

    /** The snapshot phase: {@code count} new rows, read as they are. */
    List<Event> snapshot(int count) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Order row = newRow(nextId++);
            rows.put(row.id(), row);
            events.add(new Read(row));
        }
        return events;
    }

    /**
     * {@code count} changes: 20 % inserts, 50 % updates (a quarter of them move the row to another
     * day), 20 % deletes, 10 % primary-key changes.
     */
    List<Event> changes(int count) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int dice = random.nextInt(100);
            if (dice < 20 || rows.size() < 10) {
                Order row = newRow(nextId++);
                rows.put(row.id(), row);
                events.add(new Insert(row));
            } else if (dice < 70) {
                Order before = anyRow();
                String day =
                        random.nextInt(4) == 0 ? DAYS[random.nextInt(DAYS.length)] : before.day();
                Order after = new Order(before.id(), day, random.nextInt(1_000_000), note());
                rows.put(after.id(), after);
                events.add(new Update(before, after));
            } else if (dice < 90) {
                Order before = anyRow();
                rows.remove(before.id());
                events.add(new Delete(before));
            } else {
                Order before = anyRow();
                Order after = new Order(nextId++, before.day(), before.amount(), note());
                rows.remove(before.id());
                rows.put(after.id(), after);
                events.add(new KeyChange(before, after));
            }
        }
        return events;
    }

    /** The rows the table holds now, in key order. */
    List<Object[]> rows() {
        return rows.values().stream().map(Order::values).toList();
    }

    private Order newRow(long id) {
        return new Order(id, DAYS[random.nextInt(DAYS.length)], random.nextInt(1_000_000), note());
    }

    private Order anyRow() {
        Long key = rows.ceilingKey(1 + (long) (random.nextDouble() * (nextId - 1)));
        return rows.get(key == null ? rows.firstKey() : key);
    }

    private String note() {
        return "note-" + nextNote++;
    }
}
