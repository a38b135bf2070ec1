package io.deltalite.flink.internal.merge.changes;

import io.deltalite.flink.exceptions.DeltaLiteInvalidInputException;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.sink.NullKeyPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The changes a writer received since its last merge, per partition, with an estimate of the heap
 * they occupy. Rows must already be in table-column order and representation; they are validated on
 * the way in.
 */
public final class ChangeBuffer {
    private final TableSchema schema;
    private final NullKeyPolicy nullKeyPolicy;
    private final RowValidator validator;
    private final BufferBudget budget;
    private final int[] partitionIndexes;
    private final Map<PartitionValues, PartitionChanges> partitions = new LinkedHashMap<>();
    private final java.util.function.Consumer<PartitionValues> onFirstChange;
    private final boolean getsEveryChangeOfItsKeys;
    private long estimatedBytes;

    /**
     * @param budget its largest row is the largest this buffer takes
     */
    public ChangeBuffer(MergeTable table, NullKeyPolicy nullKeyPolicy, BufferBudget budget) {
        this(table, nullKeyPolicy, budget, partition -> {});
    }

    /**
     * @param onFirstChange told of a partition when the buffer takes its first change since the
     *     partition was last drained
     */
    public ChangeBuffer(
            MergeTable table,
            NullKeyPolicy nullKeyPolicy,
            BufferBudget budget,
            java.util.function.Consumer<PartitionValues> onFirstChange) {
        this(table, nullKeyPolicy, budget, onFirstChange, false);
    }

    /**
     * @param onFirstChange told of a partition when the buffer takes its first change since the
     *     partition was last drained
     * @param getsEveryChangeOfItsKeys whether the writer receives every change of its keys, in
     *     every partition (a sink distributed by key), so that a key-only delete comes after every
     *     buffered upsert of its key and deletes it wherever it is buffered
     */
    public ChangeBuffer(
            MergeTable table,
            NullKeyPolicy nullKeyPolicy,
            BufferBudget budget,
            java.util.function.Consumer<PartitionValues> onFirstChange,
            boolean getsEveryChangeOfItsKeys) {
        this.getsEveryChangeOfItsKeys = getsEveryChangeOfItsKeys;
        this.onFirstChange = onFirstChange;
        this.schema = table.schema();
        this.nullKeyPolicy = nullKeyPolicy;
        this.validator = new RowValidator(schema, table.location());
        this.budget = budget;
        this.partitionIndexes = schema.partitionIndexes();
    }

    public void upsert(Object[] row) {
        validator.validate(row);
        PartitionChanges changes = changesOf(row);
        long before = changes.estimatedBytes();
        changes.upsert(row);
        estimatedBytes += changes.estimatedBytes() - before;
    }

    /**
     * Buffers a delete. A delete that carries nothing but its key ({@link
     * PartitionChanges#keyOnlyDeletes()}) names the empty partition; when this writer gets every
     * change of its keys, it also turns a buffered upsert of the key in any other partition into a
     * delete there: that upsert came before it. What the table holds of the key is found at the
     * merge ({@code MergeWriter}).
     */
    public void delete(Object[] row) {
        validator.validateDeleted(row);
        PartitionChanges changes = changesOf(row);
        long before = changes.estimatedBytes();
        RowKey keyOnly = changes.delete(row);
        estimatedBytes += changes.estimatedBytes() - before;
        if (keyOnly != null && getsEveryChangeOfItsKeys) {
            for (PartitionChanges other : partitions.values()) {
                if (other != changes
                        && other.isUpserted(keyOnly)
                        && other.partition().mayHoldKeysOf(changes.partition(), schema)) {
                    long otherBefore = other.estimatedBytes();
                    other.deleteUpserted(keyOnly);
                    estimatedBytes += other.estimatedBytes() - otherBefore;
                }
            }
        }
    }

    private PartitionChanges changesOf(Object[] row) {
        long bytes = RowSizeEstimator.estimate(row);
        long maxRowBytes = budget.largestRowBytes();
        if (bytes > maxRowBytes) {
            throw new DeltaLiteInvalidInputException(
                    "A row of about "
                            + bytes
                            + " bytes is larger than "
                            + (budget.automatic()
                                    ? "the largest row an automatic change buffer takes ("
                                            + maxRowBytes
                                            + " bytes). Set 'max-buffered-bytes' above the row's"
                                            + " size"
                                    : "the change buffer of "
                                            + maxRowBytes
                                            + " bytes ('max-buffered-bytes'). Raise the budget")
                            + " or shrink the row; nothing of this checkpoint was committed.");
        }
        PartitionValues partition = PartitionValues.of(row, partitionIndexes);
        PartitionChanges changes = partitions.get(partition);
        if (changes == null) {
            changes = new PartitionChanges(schema, partition, nullKeyPolicy);
            partitions.put(partition, changes);
            onFirstChange.accept(partition);
        }
        return changes;
    }

    /** The changes buffered for {@code partition}, or null. */
    public PartitionChanges changesOf(PartitionValues partition) {
        return partitions.get(partition);
    }

    /** The partitions with buffered changes. */
    public java.util.Set<PartitionValues> partitions() {
        return java.util.Collections.unmodifiableSet(partitions.keySet());
    }

    public long estimatedBytes() {
        return estimatedBytes;
    }

    public boolean isEmpty() {
        return partitions.isEmpty();
    }

    /** Takes every buffered partition out of the buffer. */
    public Map<PartitionValues, PartitionChanges> drainAll() {
        Map<PartitionValues, PartitionChanges> drained = new LinkedHashMap<>(partitions);
        partitions.clear();
        estimatedBytes = 0;
        return drained;
    }

    /**
     * Takes the largest partitions out until at most {@code targetBytes} remain buffered. When this
     * writer gets every change of its keys, the partitions holding key-only deletes go too: a
     * change merged in a round before the delete's then always came before the delete, which the
     * merge relies on to find the rows the delete removes ({@code MergeWriter}).
     */
    public Map<PartitionValues, PartitionChanges> drainLargestUntil(long targetBytes) {
        List<PartitionValues> bySize = new ArrayList<>(partitions.keySet());
        bySize.sort(
                (a, b) ->
                        Long.compare(
                                partitions.get(b).estimatedBytes(),
                                partitions.get(a).estimatedBytes()));
        Map<PartitionValues, PartitionChanges> drained = new LinkedHashMap<>();
        for (PartitionValues partition : bySize) {
            if (estimatedBytes <= targetBytes && !drained.isEmpty()) {
                break;
            }
            PartitionChanges changes = partitions.remove(partition);
            drained.put(partition, changes);
            estimatedBytes -= changes.estimatedBytes();
        }
        if (getsEveryChangeOfItsKeys) {
            for (PartitionValues partition : List.copyOf(partitions.keySet())) {
                if (partitions.get(partition).hasKeyOnlyDeletes()) {
                    PartitionChanges changes = partitions.remove(partition);
                    drained.put(partition, changes);
                    estimatedBytes -= changes.estimatedBytes();
                }
            }
        }
        return drained;
    }
}
