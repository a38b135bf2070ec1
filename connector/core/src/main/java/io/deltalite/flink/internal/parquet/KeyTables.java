package io.deltalite.flink.internal.parquet;

import io.deltalite.flink.internal.merge.table.ChangedKeys;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.List;

/**
 * The changed keys of one merge prepared for files of one layout: per key column a hash table of
 * the distinct values the keys have there, in the form the files store them ({@link
 * KeyColumnForm}), each value numbered; for a composite key also a table from the tuple of those
 * numbers to the key. For a single-column key a value's number is its key's index. Built once per
 * merge and layout ({@link ChangedKeys#prepared}) and only read afterwards, by any number of
 * threads.
 */
final class KeyTables {
    /** Per column a {@link LongIdTable} or a {@link BytesIdTable}. */
    private final Object[] columns;

    /** For a composite key: component numbers to key index; null for a single column. */
    private final TupleIdTable tuples;

    /** Keys that can match at all. */
    private final int matchable;

    /** Whether some key cannot be compared in this form: then the file is read row-wise. */
    private final boolean usable;

    private KeyTables(Object[] columns, TupleIdTable tuples, int matchable, boolean usable) {
        this.columns = columns;
        this.tuples = tuples;
        this.matchable = matchable;
        this.usable = usable;
    }

    /** The layout a set of tables is prepared for: the form of each key column. */
    record Layout(List<KeyColumnForm> forms) {}

    static KeyTables build(ChangedKeys keys, List<KeyColumnForm> forms) {
        int width = forms.size();
        Object[] columns = new Object[width];
        for (int c = 0; c < width; c++) {
            columns[c] =
                    forms.get(c).comparesBytes()
                            ? new BytesIdTable(keys.size())
                            : new LongIdTable(keys.size());
        }
        TupleIdTable tuples = width == 1 ? null : new TupleIdTable(width, keys.size());
        int[] tuple = new int[width];
        int[] nextId = new int[width];
        int matchable = 0;
        KeyColumnForm.Normalized[] normalized = new KeyColumnForm.Normalized[width];
        keys:
        for (int index = 0; index < keys.size(); index++) {
            RowKey key = keys.get(index);
            if (key.size() != width) {
                return new KeyTables(columns, tuples, 0, false);
            }
            for (int c = 0; c < width; c++) {
                normalized[c] = forms.get(c).normalize(key.get(c));
                if (normalized[c] instanceof KeyColumnForm.Unsupported) {
                    return new KeyTables(columns, tuples, 0, false);
                }
                if (normalized[c] instanceof KeyColumnForm.NeverStored) {
                    continue keys;
                }
            }
            for (int c = 0; c < width; c++) {
                int id = width == 1 ? index : nextId[c];
                int assigned;
                if (normalized[c] instanceof KeyColumnForm.AsLong value) {
                    assigned = ((LongIdTable) columns[c]).putIfAbsent(value.value(), id);
                } else {
                    assigned =
                            ((BytesIdTable) columns[c])
                                    .putIfAbsent(
                                            ((KeyColumnForm.AsBytes) normalized[c]).value(), id);
                }
                if (assigned == id) {
                    nextId[c]++;
                }
                tuple[c] = assigned;
            }
            if (tuples != null) {
                tuples.putIfAbsent(tuple, index);
            }
            matchable++;
        }
        return new KeyTables(columns, tuples, matchable, true);
    }

    boolean usable() {
        return usable;
    }

    /** Whether no key can match: no file needs reading beyond its footer. */
    boolean matchesNothing() {
        return matchable == 0;
    }

    int width() {
        return columns.length;
    }

    Object column(int c) {
        return columns[c];
    }

    /** The key index of a tuple of component numbers, or -1. */
    int keyOf(int[] tuple) {
        return tuples.find(tuple);
    }
}
