package io.deltalite.flink.internal.sink;

import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import java.math.BigDecimal;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Keys each record by the values of some of its columns: the partition columns, so that all records
 * of a partition (and so all rewrites of its files) go to one writer; or the primary key, so that
 * all changes of a key go to one writer, in order. Values that Delta stores as the same partition
 * (an empty string and null, decimals of another scale) get the same key; for a primary key that
 * only routes a few more keys together.
 */
@org.apache.flink.annotation.Internal
public final class ColumnValuesKeySelector implements KeySelector<RowData, String> {
    private static final long serialVersionUID = 1L;

    private final RowDataConverter.ValueReader[] readers;

    /**
     * @param role what the columns are, for messages ("Partition", "Primary-key")
     */
    ColumnValuesKeySelector(RowType inputType, List<String> columns, String role) {
        this.readers = new RowDataConverter.ValueReader[columns.size()];
        for (int i = 0; i < readers.length; i++) {
            int index = indexOf(inputType, columns.get(i), role);
            RowData.FieldGetter getter =
                    RowData.createFieldGetter(inputType.getTypeAt(index), index);
            RowDataConverter.ValueReader value =
                    RowDataConverter.valueReader(inputType.getTypeAt(index));
            readers[i] =
                    row -> {
                        Object field = getter.getFieldOrNull((RowData) row);
                        return field == null ? null : value.read(field);
                    };
        }
    }

    private static int indexOf(RowType type, String column, String role) {
        List<String> names = type.getFieldNames();
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).toLowerCase(Locale.ROOT).equals(column.toLowerCase(Locale.ROOT))) {
                return i;
            }
        }
        throw new DeltaLiteSchemaMismatchException(
                role
                        + " column '"
                        + column
                        + "' of the table is not a field of the input "
                        + names
                        + ". Add it to the input.");
    }

    @Override
    public String getKey(RowData row) {
        if (readers.length == 0) {
            return "";
        }
        StringBuilder key = new StringBuilder();
        for (RowDataConverter.ValueReader reader : readers) {
            appendValue(key, reader.read(row));
        }
        return key.toString();
    }

    /**
     * Appends one column's value to a key's text, then a separator. Equal values give equal text:
     * an empty string and null alike (Delta stores them as the same partition), decimals whatever
     * their scale, binary by content (an array's own string is its identity).
     */
    public static void appendValue(StringBuilder key, Object value) {
        if (value == null || "".equals(value)) {
            key.append('\u0000');
        } else if (value instanceof BigDecimal decimal) {
            key.append(decimal.stripTrailingZeros().toPlainString());
        } else if (value instanceof byte[] bytes) {
            key.append(HexFormat.of().formatHex(bytes));
        } else {
            key.append(value);
        }
        key.append('\u0001');
    }
}
