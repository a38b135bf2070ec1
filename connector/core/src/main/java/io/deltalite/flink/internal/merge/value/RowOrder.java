package io.deltalite.flink.internal.merge.value;

import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The order in which the sink writes the rows of a file: by the table's clustering columns (liquid
 * clustering, {@code CLUSTER BY}), then by key; rows without a key after the others. A table
 * without clustering columns is ordered by key alone, a table without a key by its clustering
 * columns alone (or not at all).
 *
 * <p>Files written in this order have narrow ranges of the clustering columns, so that readers
 * filtering on them skip files by statistics, and the files that inline compaction merges ({@code
 * SortedRunMerge}) stay in that order. Only top-level clustering columns order rows; a nested one
 * (a field of a struct) is left to the clustering of the engine that created the table. Values
 * compare as Delta's statistics do ({@link KeyOrder}), nulls last.
 */
public final class RowOrder {
    private final int[] clusteringIndexes;
    private final ValueType[] clusteringTypes;
    private final Comparator<RowKey> keys;

    /** Whether the key is one column whose values are integral numbers ({@link #sort}). */
    private final boolean integralKey;

    private RowOrder(
            int[] clusteringIndexes,
            ValueType[] clusteringTypes,
            Comparator<RowKey> keys,
            boolean integralKey) {
        this.clusteringIndexes = clusteringIndexes;
        this.clusteringTypes = clusteringTypes;
        this.keys = keys;
        this.integralKey = integralKey;
    }

    /**
     * The order of {@code schema}'s rows, clustered by {@code clusteringColumns} (top-level names,
     * matched without regard to case; names the schema lacks are skipped).
     */
    public static RowOrder of(TableSchema schema, List<String> clusteringColumns) {
        List<Integer> indexes = new ArrayList<>();
        for (String name : clusteringColumns) {
            for (int i = 0; i < schema.columns().size(); i++) {
                ValueType.Field column = schema.columns().get(i);
                if (column.name().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))
                        && column.type().isKeyable()
                        && !schema.partitionColumns().contains(column.name())
                        && !indexes.contains(i)) {
                    indexes.add(i);
                }
            }
        }
        ValueType[] types = new ValueType[indexes.size()];
        for (int i = 0; i < types.length; i++) {
            types[i] = schema.columns().get(indexes.get(i)).type();
        }
        List<ValueType> keyTypes = schema.isAppendOnly() ? List.of() : schema.matchKeyTypes();
        return new RowOrder(
                indexes.stream().mapToInt(Integer::intValue).toArray(),
                types,
                schema.isAppendOnly() ? null : KeyOrder.keys(keyTypes),
                keyTypes.size() == 1 && isIntegral(keyTypes.get(0)));
    }

    /** Whether rows are ordered by clustering columns before their key. */
    public boolean clusters() {
        return clusteringIndexes.length > 0;
    }

    /** The table-column indexes of the clustering columns that order rows, in order. */
    public int[] clusteringIndexes() {
        return clusteringIndexes.clone();
    }

    /** The order of keys, or null for a table without a key. */
    public Comparator<RowKey> keys() {
        return keys;
    }

    /** Whether rows are ordered at all (by clustering columns or a key). */
    public boolean orders() {
        return clusters() || keys != null;
    }

    /**
     * Compares clustering values (of {@link #clusteringIndexes()}, in that order) of two rows,
     * nulls last.
     */
    public int compareClustering(Object[] left, Object[] right) {
        for (int i = 0; i < clusteringTypes.length; i++) {
            int order = compareValues(i, left[i], right[i]);
            if (order != 0) {
                return order;
            }
        }
        return 0;
    }

    /**
     * Compares the clustering values of two rows (values in table-column order) where they are, as
     * {@link #compareClustering} compares them once taken out: for sorting many rows.
     */
    public int compareClusteringOfRows(Object[] leftRow, Object[] rightRow) {
        for (int i = 0; i < clusteringTypes.length; i++) {
            int column = clusteringIndexes[i];
            int order = compareValues(i, leftRow[column], rightRow[column]);
            if (order != 0) {
                return order;
            }
        }
        return 0;
    }

    /**
     * {@code rows} in this order, as a new list: by clustering values, then by key ({@code
     * keyIndexes}: the key's columns in the rows); rows with a null key value, and every row of a
     * table without a key, after the others of their clustering values, in their order among
     * themselves (the sort is stable).
     *
     * <p>A table ordered by one integral key column alone (the common CDC table: a {@code BIGINT}
     * id) is sorted as primitive {@code long}s ({@link LongKeySort}): the same order, without a
     * boxed comparison per step — a checkpoint sorts every row it writes.
     */
    public List<Object[]> sort(List<Object[]> rows, int[] keyIndexes) {
        if (!orders()) {
            return new ArrayList<>(rows);
        }
        if (!clusters() && integralKey) {
            return sortByIntegralKey(rows, keyIndexes[0]);
        }
        List<Map.Entry<RowKey, Object[]>> entries = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            entries.add(
                    new AbstractMap.SimpleImmutableEntry<>(
                            keys == null ? null : RowKey.of(row, keyIndexes), row));
        }
        entries.sort(
                (left, right) -> {
                    if (clusters()) {
                        int clustered = compareClusteringOfRows(left.getValue(), right.getValue());
                        if (clustered != 0) {
                            return clustered;
                        }
                    }
                    if (keys == null) {
                        return 0;
                    }
                    RowKey a = left.getKey();
                    RowKey b = right.getKey();
                    if (a == null || b == null) {
                        return a == null ? (b == null ? 0 : 1) : -1;
                    }
                    return keys.compare(a, b);
                });
        List<Object[]> sorted = new ArrayList<>(rows.size());
        entries.forEach(entry -> sorted.add(entry.getValue()));
        return sorted;
    }

    private static List<Object[]> sortByIntegralKey(List<Object[]> rows, int keyIndex) {
        long[] values = new long[rows.size()];
        int[] rowOfValue = new int[rows.size()];
        List<Object[]> withoutKey = new ArrayList<>();
        int keyed = 0;
        for (int i = 0; i < rows.size(); i++) {
            Object value = rows.get(i)[keyIndex];
            if (value == null) {
                withoutKey.add(rows.get(i));
            } else {
                values[keyed] = ((Number) value).longValue();
                rowOfValue[keyed++] = i;
            }
        }
        int[] order = LongKeySort.stableOrder(values, keyed);
        List<Object[]> sorted = new ArrayList<>(rows.size());
        for (int position : order) {
            sorted.add(rows.get(rowOfValue[position]));
        }
        sorted.addAll(withoutKey);
        return sorted;
    }

    /** Types whose values are {@code Byte}, {@code Short}, {@code Integer} or {@code Long}. */
    private static boolean isIntegral(ValueType type) {
        if (!(type instanceof ValueType.Primitive primitive)) {
            return false;
        }
        return switch (primitive.kind()) {
            case TINYINT, SMALLINT, INT, DATE, BIGINT, TIMESTAMP, TIMESTAMP_NTZ -> true;
            default -> false;
        };
    }

    /** Compares two values of the {@code i}-th clustering column, nulls last. */
    private int compareValues(int i, Object a, Object b) {
        if (a == null || b == null) {
            return a == b ? 0 : (a == null ? 1 : -1);
        }
        return KeyOrder.compare(clusteringTypes[i], a, b);
    }
}
