package io.deltalite.flink.internal.merge.changes;

import io.deltalite.flink.exceptions.DeltaLiteInvalidInputException;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.sink.NullKeyPolicy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The changes of one partition in one checkpoint: for each key its last change (the row that
 * replaces it, or its deletion), plus the rows whose key has a null, which never match.
 *
 * <p>Not thread-safe; one writer fills it, then a merge reads it.
 */
public final class PartitionChanges {
    private static final Object[] DELETED = new Object[0];

    private final TableSchema schema;
    private final PartitionValues partition;
    private final int[] keyIndexes;
    private final NullKeyPolicy nullKeyPolicy;
    private final Map<RowKey, Object[]> lastChange = new LinkedHashMap<>();
    private final List<Object[]> nullKeyRows = new ArrayList<>();

    /**
     * The columns outside the primary key when a partition column is among them (a row can then
     * change partition without changing its key), else {@code null}.
     */
    private final int[] nonKeyIndexes;

    /** Deleted keys whose delete carried nothing but the key: see {@link #keyOnlyDeletes()}. */
    private final Set<RowKey> keyOnlyDeletes = new java.util.LinkedHashSet<>();

    private long sourceRows;
    private long nullKeyCount;
    private long estimatedBytes;

    public PartitionChanges(TableSchema schema, PartitionValues partition, NullKeyPolicy policy) {
        this.schema = schema;
        this.partition = partition;
        this.keyIndexes = schema.matchKeyIndexes();
        this.nullKeyPolicy = policy;
        this.nonKeyIndexes = nonKeyIndexesIfPartitionedOutsideKey(schema);
    }

    private static int[] nonKeyIndexesIfPartitionedOutsideKey(TableSchema schema) {
        if (schema.primaryKey().containsAll(schema.partitionColumns())) {
            return null;
        }
        List<Integer> indexes = new ArrayList<>();
        for (int i = 0; i < schema.columns().size(); i++) {
            if (!schema.primaryKey().contains(schema.columns().get(i).name())) {
                indexes.add(i);
            }
        }
        return indexes.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Records that {@code row} (in table-column order) replaces its key. */
    public void upsert(Object[] row) {
        sourceRows++;
        if (schema.isAppendOnly()) {
            nullKeyRows.add(row);
            estimatedBytes += RowSizeEstimator.estimate(row);
            return;
        }
        RowKey key = RowKey.of(row, keyIndexes);
        if (key == null) {
            if (acceptNullKey(row)) {
                nullKeyRows.add(row);
                estimatedBytes += RowSizeEstimator.estimate(row);
            }
            return;
        }
        put(key, row);
    }

    /**
     * Records that the key of {@code row} (only its key columns are read) is deleted.
     *
     * @return the deleted key when the delete carried nothing but it and found no upsert of it in
     *     this partition ({@link #keyOnlyDeletes()}), else null
     */
    public RowKey delete(Object[] row) {
        if (schema.isAppendOnly()) {
            throw new DeltaLiteInvalidInputException(
                    "A delete reached the append-only table (it has no primary key) in partition "
                            + partition.describe(schema.partitionColumns())
                            + ". Declare a primary key to apply updates and deletes.");
        }
        sourceRows++;
        RowKey key = RowKey.of(row, keyIndexes);
        if (key == null) {
            // A null key matches nothing, so there is nothing to delete.
            acceptNullKey(row);
            return null;
        }
        Object[] previous = lastChange.get(key);
        // After an upsert of the key in this partition the delete has found its row.
        boolean foundHere = previous != null && previous != DELETED;
        put(key, DELETED);
        if (!foundHere && isKeyOnly(row)) {
            keyOnlyDeletes.add(key);
            return key;
        }
        return null;
    }

    /**
     * Turns the buffered upsert of {@code key} into its delete: a key-only delete that came after
     * it named another partition ({@link ChangeBuffer}). The delete also removes the key's row from
     * this partition of the table, as any delete does.
     */
    void deleteUpserted(RowKey key) {
        if (!isUpserted(key)) {
            throw new IllegalStateException("no buffered upsert of " + key);
        }
        put(key, DELETED);
    }

    /**
     * Deletes {@code key} from this partition, where the writer found the row of a key-only delete
     * that named another partition ({@code MergeWriter}); the source row is counted there.
     */
    public void deleteRowOf(RowKey key) {
        put(key, DELETED);
    }

    /** Whether {@code key} has a change (upsert or delete) in this partition. */
    public boolean isChanged(RowKey key) {
        return lastChange.containsKey(key);
    }

    /**
     * Whether every column outside the key is empty — null, or the zero value Debezium puts into a
     * NOT NULL column it has no value for ({@code ""}, 0, false, the epoch, an empty array or map,
     * a struct of such values) — in a table partitioned outside its key.
     */
    private boolean isKeyOnly(Object[] row) {
        if (nonKeyIndexes == null) {
            return false;
        }
        for (int index : nonKeyIndexes) {
            if (!isEmpty(row[index])) {
                return false;
            }
        }
        return true;
    }

    private static boolean isEmpty(Object value) {
        if (value == null) {
            return true;
        }
        if (value instanceof String text) {
            return text.isEmpty();
        }
        if (value instanceof java.math.BigDecimal decimal) {
            return decimal.signum() == 0;
        }
        if (value instanceof Float || value instanceof Double) {
            return ((Number) value).doubleValue() == 0;
        }
        if (value instanceof Number number) {
            return number.longValue() == 0;
        }
        if (value instanceof Boolean flag) {
            return !flag;
        }
        if (value instanceof byte[] bytes) {
            return bytes.length == 0;
        }
        if (value instanceof java.util.Collection<?> elements) {
            return elements.isEmpty();
        }
        if (value instanceof Map<?, ?> entries) {
            return entries.isEmpty();
        }
        if (value instanceof Object[] fields) {
            for (Object field : fields) {
                if (!isEmpty(field)) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    private void put(RowKey key, Object[] change) {
        Object[] previous = lastChange.put(key, change);
        if (previous == null) {
            estimatedBytes += RowSizeEstimator.keyOverhead(keyIndexes.length);
            estimatedBytes += RowSizeEstimator.estimate(keyValues(key));
        } else if (previous != DELETED) {
            estimatedBytes -= RowSizeEstimator.estimate(previous);
        }
        if (change != DELETED) {
            estimatedBytes += RowSizeEstimator.estimate(change);
        }
    }

    private static Object[] keyValues(RowKey key) {
        return key.values().toArray();
    }

    private boolean acceptNullKey(Object[] row) {
        nullKeyCount++;
        switch (nullKeyPolicy) {
            case INSERT:
                return true;
            case DROP:
                return false;
            case FAIL:
            default:
                throw new DeltaLiteInvalidInputException(
                        "A change for partition "
                                + partition.describe(schema.partitionColumns())
                                + " has a null in primary-key column '"
                                + firstNullKeyColumn(row)
                                + "', and the null-key policy is 'fail'. Fix the source, or set"
                                + " 'null-key-policy' to 'insert' (insert such rows, as MERGE"
                                + " does) or 'drop'. Nothing of this checkpoint was committed.");
        }
    }

    private String firstNullKeyColumn(Object[] row) {
        for (int index : keyIndexes) {
            if (row[index] == null) {
                return schema.columns().get(index).name();
            }
        }
        return "?";
    }

    public PartitionValues partition() {
        return partition;
    }

    /** Every key with a change (upsert or delete). */
    public Set<RowKey> changedKeys() {
        return Collections.unmodifiableSet(lastChange.keySet());
    }

    /**
     * The rows to write: the last upsert of each key, then the rows with a null key (or all rows of
     * an append-only table).
     */
    public List<Object[]> upsertedRows() {
        List<Object[]> rows = new ArrayList<>(lastChange.size() + nullKeyRows.size());
        for (Object[] change : lastChange.values()) {
            if (change != DELETED) {
                rows.add(change);
            }
        }
        rows.addAll(nullKeyRows);
        return rows;
    }

    /** The keys whose last change is a delete. */
    public List<RowKey> deletedKeys() {
        List<RowKey> keys = new ArrayList<>();
        lastChange.forEach(
                (key, change) -> {
                    if (change == DELETED) {
                        keys.add(key);
                    }
                });
        return keys;
    }

    /**
     * The keys a delete that named nothing but the key deleted — every other column empty (null, or
     * a zero value), the partition columns outside the key among them — in a table partitioned
     * outside its key, whether or not the key was written into this partition again after it (an
     * update that moved the row here). Such a delete is what a CDC source sends when it does not
     * know the deleted row (PostgreSQL's {@code REPLICA IDENTITY DEFAULT}); it lands in the null
     * partition, while the row may be in any other. The merge checks that no other partition holds
     * these keys, or deletes them there.
     */
    public List<RowKey> keyOnlyDeletes() {
        return List.copyOf(keyOnlyDeletes);
    }

    /** Whether a delete that named nothing but its key reached this partition. */
    public boolean hasKeyOnlyDeletes() {
        return !keyOnlyDeletes.isEmpty();
    }

    /** Whether the last change of {@code key} is an upsert. */
    public boolean isUpserted(RowKey key) {
        Object[] change = lastChange.get(key);
        return change != null && change != DELETED;
    }

    public boolean isEmpty() {
        return lastChange.isEmpty() && nullKeyRows.isEmpty() && nullKeyCount == 0;
    }

    public long sourceRows() {
        return sourceRows;
    }

    public long nullKeyRows() {
        return nullKeyCount;
    }

    public long estimatedBytes() {
        return estimatedBytes;
    }
}
