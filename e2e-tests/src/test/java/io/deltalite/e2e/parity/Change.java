package io.deltalite.e2e.parity;

import java.util.Arrays;
import java.util.Objects;

/**
 * One change of a batch: an upsert of a whole row, or the delete of the row's key in the row's
 * partition. Values are in table-column order and in the engine's representation.
 */
record Change(Kind kind, Object[] row) {
    enum Kind {
        UPSERT,
        DELETE
    }

    Change {
        Objects.requireNonNull(kind, "kind");
        row = row.clone();
    }

    static Change upsert(Object... row) {
        return new Change(Kind.UPSERT, row);
    }

    static Change delete(Object... row) {
        return new Change(Kind.DELETE, row);
    }

    boolean isDelete() {
        return kind == Kind.DELETE;
    }

    @Override
    public Object[] row() {
        return row.clone();
    }

    @Override
    public String toString() {
        return kind + Arrays.deepToString(row);
    }
}
