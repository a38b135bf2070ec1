package io.deltalite.flink.testing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Comparable forms of engine rows, for assertions on whole tables. */
public final class Rows {
    private Rows() {}

    /** The row as nested lists: structs and binary values compared by content. */
    public static List<Object> canonical(Object[] row) {
        List<Object> values = new ArrayList<>(row.length);
        for (Object value : row) {
            values.add(canonicalValue(value));
        }
        return values;
    }

    private static Object canonicalValue(Object value) {
        if (value instanceof Object[] struct) {
            return canonical(struct);
        }
        if (value instanceof byte[] bytes) {
            return "0x" + HexFormat.of().formatHex(bytes);
        }
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>();
            list.forEach(element -> copy.add(canonicalValue(element)));
            return copy;
        }
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> copy = new LinkedHashMap<>();
            map.forEach((k, v) -> copy.put(canonicalValue(k), canonicalValue(v)));
            return copy;
        }
        return value;
    }

    /** The rows in a canonical order, for order-insensitive comparison. */
    public static List<String> sorted(Collection<Object[]> rows) {
        List<String> result = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            result.add(describe(canonical(row)));
        }
        result.sort(null);
        return result;
    }

    private static String describe(Object value) {
        if (value instanceof Float f) {
            return "f:" + Float.floatToIntBits(f) + ":" + f;
        }
        if (value instanceof Double d) {
            return "d:" + Double.doubleToLongBits(d) + ":" + d;
        }
        if (value instanceof List<?> list) {
            StringBuilder text = new StringBuilder("[");
            for (Object element : list) {
                text.append(describe(element)).append(", ");
            }
            return text.append(']').toString();
        }
        if (value instanceof Map<?, ?> map) {
            StringBuilder text = new StringBuilder("{");
            map.forEach(
                    (k, v) ->
                            text.append(describe(k)).append('=').append(describe(v)).append(", "));
            return text.append('}').toString();
        }
        return value == null ? "null" : value.getClass().getSimpleName() + ":" + value;
    }
}
