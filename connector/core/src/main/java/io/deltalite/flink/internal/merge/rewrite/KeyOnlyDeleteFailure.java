package io.deltalite.flink.internal.merge.rewrite;

import io.deltalite.flink.exceptions.DeltaLiteInvalidInputException;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.ArrayList;
import java.util.List;

/**
 * The error of a delete that carried nothing but its key (PostgreSQL's {@code REPLICA IDENTITY
 * DEFAULT}) on a table partitioned outside its key, when the partition it names lacks the row and
 * another holds the key: the row would stay. Raised by a writer's merge for what it sees, and by
 * the committer for what other writers added.
 */
public final class KeyOnlyDeleteFailure {
    private KeyOnlyDeleteFailure() {}

    /**
     * Key-only deletes named {@code named}, a partition without their row, while {@code holder}
     * holds their keys; {@code outcome} ends the message, saying what became of the checkpoint.
     */
    public static DeltaLiteInvalidInputException rowElsewhere(
            TableSchema schema,
            String location,
            PartitionValues named,
            PartitionMerger.KeyHolder holder,
            String outcome) {
        List<String> outside = new ArrayList<>(schema.partitionColumns());
        outside.removeAll(schema.primaryKey());
        List<RowKey> keys = holder.keys();
        List<String> described = new ArrayList<>();
        for (RowKey key : keys.subList(0, Math.min(5, keys.size()))) {
            described.add(key.describe(schema.matchKey()));
        }
        return new DeltaLiteInvalidInputException(
                "A delete of key "
                        + String.join(" and of ", described)
                        + (keys.size() > 5 ? " (and of " + (keys.size() - 5) + " more)" : "")
                        + " carries nothing but its key: every other column is empty (null, or the"
                        + " zero value a CDC source puts into a NOT NULL column it has no value"
                        + " for), partition column(s) "
                        + outside
                        + " among them, so it names partition "
                        + named.describe(schema.partitionColumns())
                        + " of the Delta table at "
                        + location
                        + ", which has no such row, while partition "
                        + holder.partition().describe(schema.partitionColumns())
                        + " holds that key: its row would stay. A CDC source sends such deletes"
                        + " when it does not know the deleted row (PostgreSQL's REPLICA IDENTITY"
                        + " DEFAULT, a binlog without full row images). Make the source send whole"
                        + " rows (ALTER TABLE ... REPLICA IDENTITY FULL), or partition the table by"
                        + " key columns only. "
                        + outcome);
    }
}
