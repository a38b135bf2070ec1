package io.deltalite.flink.internal.merge.value;

import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

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

    private RowOrder(
            int[] clusteringIndexes, ValueType[] clusteringTypes, Comparator<RowKey> keys) {
        this.clusteringIndexes = clusteringIndexes;
        this.clusteringTypes = clusteringTypes;
        this.keys = keys;
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
        return new RowOrder(
                indexes.stream().mapToInt(Integer::intValue).toArray(),
                types,
                schema.isAppendOnly() ? null : KeyOrder.keys(schema.matchKeyTypes()));
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

    /** Compares two values of the {@code i}-th clustering column, nulls last. */
    private int compareValues(int i, Object a, Object b) {
        if (a == null || b == null) {
            return a == b ? 0 : (a == null ? 1 : -1);
        }
        return KeyOrder.compare(clusteringTypes[i], a, b);
    }
}
