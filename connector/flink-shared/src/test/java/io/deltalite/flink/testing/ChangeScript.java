package io.deltalite.flink.testing;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

/**
 * A deterministic changelog — inserts, updates as -U/+U pairs, deletes, keys moving between
 * partitions — and the table it must produce. Rows have the columns {@code id BIGINT NOT NULL, [sub
 * INT NOT NULL,] day STRING, amount INT, note STRING}; {@code sub} is the second key column of a
 * composite key.
 */
public final class ChangeScript implements Serializable {
    private static final long serialVersionUID = 1L;

    /** One change: its kind and its values in row-type order (Java values). */
    public record Change(RowKind kind, Object[] values) implements Serializable {}

    private final boolean compositeKey;
    private final List<Change> changes;

    /** The changes the expected table is computed from: those with whole before images. */
    private final List<Change> modelChanges;

    private ChangeScript(boolean compositeKey, List<Change> changes) {
        this(compositeKey, changes, changes);
    }

    private ChangeScript(boolean compositeKey, List<Change> changes, List<Change> modelChanges) {
        this.compositeKey = compositeKey;
        this.changes = changes;
        this.modelChanges = modelChanges;
    }

    /**
     * The same script as a source without before images sends it (PostgreSQL's {@code REPLICA
     * IDENTITY DEFAULT}): every delete and -U carries its key and nulls; the table it must produce
     * is the same.
     */
    public ChangeScript withKeyOnlyDeletes() {
        int keyColumns = compositeKey ? 2 : 1;
        List<Change> keyOnly = new ArrayList<>(changes.size());
        for (Change change : changes) {
            if (change.kind() == RowKind.DELETE || change.kind() == RowKind.UPDATE_BEFORE) {
                Object[] values = new Object[change.values().length];
                System.arraycopy(change.values(), 0, values, 0, keyColumns);
                keyOnly.add(new Change(change.kind(), values));
            } else {
                keyOnly.add(change);
            }
        }
        return new ChangeScript(compositeKey, keyOnly, modelChanges);
    }

    /**
     * @param partitions number of day partitions ({@code 0} puts every row in one partition)
     */
    public static ChangeScript generate(
            long seed, int count, int keys, int partitions, boolean compositeKey) {
        Random random = new Random(seed);
        Map<List<Object>, Object[]> live = new HashMap<>();
        List<Change> changes = new ArrayList<>(count);
        while (changes.size() < count) {
            List<Object> key =
                    compositeKey
                            ? List.of((long) random.nextInt(keys), random.nextInt(3))
                            : List.of((long) random.nextInt(keys));
            Object[] current = live.get(key);
            String day = day(random, partitions);
            Object[] next = row(key, day, random.nextInt(1_000_000), "n" + changes.size());
            if (current == null) {
                changes.add(new Change(RowKind.INSERT, next));
                live.put(key, next);
                continue;
            }
            int action = random.nextInt(100);
            if (action < 15) {
                changes.add(new Change(RowKind.DELETE, current));
                live.remove(key);
            } else if (action < 25 && partitions > 1) {
                // The key moves to another partition: -U in the old one, +U in the new one.
                changes.add(new Change(RowKind.UPDATE_BEFORE, current));
                changes.add(new Change(RowKind.UPDATE_AFTER, next));
                live.put(key, next);
            } else {
                Object[] updated =
                        row(key, dayOf(current), random.nextInt(1_000_000), "u" + changes.size());
                if (action < 60) {
                    changes.add(new Change(RowKind.UPDATE_BEFORE, current));
                }
                changes.add(new Change(RowKind.UPDATE_AFTER, updated));
                live.put(key, updated);
            }
        }
        return new ChangeScript(compositeKey, changes);
    }

    /** A hand-written script of rows {@code id BIGINT, day STRING, amount INT, note STRING}. */
    public static ChangeScript of(List<Change> changes) {
        return new ChangeScript(false, new ArrayList<>(changes));
    }

    private static String day(Random random, int partitions) {
        return partitions == 0
                ? "all"
                : "2024-01-" + String.format("%02d", 1 + random.nextInt(partitions));
    }

    private static Object[] row(List<Object> key, String day, int amount, String note) {
        List<Object> values = new ArrayList<>(key);
        values.add(day);
        values.add(amount);
        values.add(note);
        return values.toArray();
    }

    private static String dayOf(Object[] row) {
        return (String) row[row.length - 3];
    }

    public RowType rowType() {
        List<RowType.RowField> fields = new ArrayList<>();
        fields.add(new RowType.RowField("id", new BigIntType(false)));
        if (compositeKey) {
            fields.add(new RowType.RowField("sub", new IntType(false)));
        }
        fields.add(new RowType.RowField("day", new VarCharType(VarCharType.MAX_LENGTH)));
        fields.add(new RowType.RowField("amount", new IntType()));
        fields.add(new RowType.RowField("note", new VarCharType(VarCharType.MAX_LENGTH)));
        return new RowType(fields);
    }

    public String[] primaryKey() {
        return compositeKey ? new String[] {"id", "sub"} : new String[] {"id"};
    }

    public int size() {
        return changes.size();
    }

    public List<Change> changes() {
        return changes;
    }

    /** The change at {@code index} as Flink internal data. */
    public RowData rowData(long index) {
        Change change = changes.get((int) index);
        Object[] values = change.values().clone();
        for (int i = 0; i < values.length; i++) {
            if (values[i] instanceof String text) {
                values[i] = StringData.fromString(text);
            }
        }
        return GenericRowData.ofKind(change.kind(), values);
    }

    /**
     * The table the first {@code count} changes must produce, with the given number of changes
     * applied.
     */
    public List<Object[]> expectedAfter(int count) {
        Map<List<Object>, Object[]> table = new LinkedHashMap<>();
        for (Change change : modelChanges.subList(0, count)) {
            Object[] row = change.values();
            List<Object> identity = new ArrayList<>();
            identity.add(dayOf(row));
            identity.add(row[0]);
            if (compositeKey) {
                identity.add(row[1]);
            }
            switch (change.kind()) {
                case INSERT, UPDATE_AFTER -> table.put(identity, row);
                case DELETE, UPDATE_BEFORE -> table.remove(identity);
            }
        }
        return new ArrayList<>(table.values());
    }

    public List<Object[]> expected() {
        return expectedAfter(changes.size());
    }
}
