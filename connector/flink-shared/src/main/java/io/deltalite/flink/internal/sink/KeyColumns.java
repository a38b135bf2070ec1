package io.deltalite.flink.internal.sink;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Checks the columns that identify a row — primary key and partition columns — against the input
 * row type when the sink is built. Names match the way Delta matches column names: ignoring case.
 */
@Internal
public final class KeyColumns {
    /** Delta stores timestamps in microseconds. */
    private static final int DELTA_TIMESTAMP_PRECISION = 6;

    private KeyColumns() {}

    /**
     * The columns named by {@code names}, spelled as in {@code rowType}.
     *
     * @param role what the columns are, for messages ("primary-key", "partition")
     * @throws IllegalArgumentException naming the column when one is missing or cannot identify a
     *     row exactly
     */
    public static List<String> resolve(
            RowType rowType, List<String> names, String role, String location) {
        List<String> resolved = new ArrayList<>(names.size());
        for (String name : names) {
            RowType.RowField field = find(rowType, name);
            if (field == null) {
                throw new IllegalArgumentException(
                        "The "
                                + role
                                + " column '"
                                + name
                                + "' is not a field of the row type "
                                + rowType.getFieldNames()
                                + " (names are matched ignoring case, as Delta does). Fix the "
                                + role
                                + " columns of the sink of "
                                + location
                                + ".");
            }
            requireMicrosecondsAtMost(field, role, location);
            resolved.add(field.getName());
        }
        return resolved;
    }

    private static RowType.RowField find(RowType rowType, String name) {
        for (RowType.RowField field : rowType.getFields()) {
            if (field.getName().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return field;
            }
        }
        return null;
    }

    /**
     * A timestamp finer than microseconds would be cut when stored: two keys that differ only in
     * their nanoseconds would become one row.
     */
    private static void requireMicrosecondsAtMost(
            RowType.RowField field, String role, String location) {
        LogicalType type = field.getType();
        int precision =
                type instanceof TimestampType timestamp
                        ? timestamp.getPrecision()
                        : type instanceof LocalZonedTimestampType local ? local.getPrecision() : -1;
        if (precision > DELTA_TIMESTAMP_PRECISION) {
            String cast = type instanceof TimestampType ? "TIMESTAMP(6)" : "TIMESTAMP_LTZ(6)";
            throw new IllegalArgumentException(
                    "The "
                            + role
                            + " column '"
                            + field.getName()
                            + "' of the sink of "
                            + location
                            + " is "
                            + type.asSummaryString()
                            + ", but Delta stores timestamps in microseconds: rows whose '"
                            + field.getName()
                            + "' differ only in the digits past the microsecond would become one."
                            + " Cast it in the job: CAST("
                            + field.getName()
                            + " AS "
                            + cast
                            + ").");
        }
    }
}
