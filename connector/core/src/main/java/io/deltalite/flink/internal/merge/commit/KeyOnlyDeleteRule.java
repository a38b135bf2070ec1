package io.deltalite.flink.internal.merge.commit;

import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.WidenedValues;
import io.deltalite.flink.internal.merge.rewrite.KeyOnlyDeleteFailure;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.KeyStream;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.merge.value.StagedKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The committer's rule for deletes that carried nothing but their key (PostgreSQL's {@code REPLICA
 * IDENTITY DEFAULT}) on a table partitioned outside its key: <em>after the version that commits
 * them, no partition other than the one such a delete named holds its key</em>.
 *
 * <p>Each result lists the key-only deletes its merge found no row for ({@link
 * PartitionWriteResult#unmatchedKeyOnlyDeletes()}); its writer has already failed the ones another
 * partition held as far as it could see (the table at its base version, its own pending and
 * buffered changes). A holder after the commit was therefore added by a writer it could not see:
 * another writer in this checkpoint, or in an earlier one not committed when it merged. The delete
 * would leave that row, so the commit fails instead. The partition the delete named needs no check:
 * a result planned against other files of it is merged again with its deleted keys, the key-only
 * ones among them (rule 5).
 *
 * <p>A sink distributed by key gives every change of a key to one writer, which deletes the key's
 * row wherever it sees it ({@code MergeWriter}) and may write the key again after the delete, in
 * another partition: the rows this checkpoint's writers distributed by key wrote as new rows are
 * therefore not counted as holders (see {@link #newRowsOfKeyOwners}). Every other row is: one the
 * writer could not see (another attempt's checkpoint not committed when it merged, after a rescale)
 * fails the commit as under distribution by partition.
 *
 * <p>The files of each partition after the version are its live files with this commit's results
 * applied: what they remove or mark goes, what they add (upserts, survivors, files with a new
 * deletion vector, compaction outputs) comes; the keys are looked up as a merge finds them —
 * statistics, then the key columns — with every deletion vector, new ones too, honoured. The cost
 * is paid only by a commit that has such deletes: a listing of the table's live files and that
 * lookup in every other partition that agrees with the named one on the partition columns of the
 * key (only those can hold the same key).
 */
final class KeyOnlyDeleteRule {
    /** At most this many staged keys are looked up at once. */
    private static final int KEYS_PER_LOOKUP = 65_536;

    /** At most this many keys are named in the error. */
    private static final int NAMED_KEYS = 5;

    private final TableSchema schema;
    private final String location;
    private final DataFileStore store;
    private final PartitionMerger merger;

    KeyOnlyDeleteRule(
            TableSchema schema, String location, DataFileStore store, PartitionMerger merger) {
        this.schema = schema;
        this.location = location;
        this.store = store;
        this.merger = merger;
    }

    /**
     * Fails when, after {@code current} is committed on top of {@code snapshot}, a partition other
     * than the one a key-only delete of {@code current} named holds the delete's key.
     *
     * @param current the result of each partition as this attempt commits it
     * @param checkpoint names the checkpoint in the error
     */
    void require(
            TableSnapshot snapshot,
            Map<PartitionValues, PartitionWriteResult> current,
            String checkpoint) {
        Map<PartitionValues, DeletedKeys> unmatched = new LinkedHashMap<>();
        current.forEach(
                (partition, result) -> {
                    if (!result.unmatchedKeyOnlyDeletes().isEmpty()) {
                        unmatched.put(partition, result.unmatchedKeyOnlyDeletes());
                    }
                });
        if (unmatched.isEmpty()) {
            return;
        }
        Map<PartitionValues, List<DataFile>> after = filesAfter(snapshot, current);
        Set<String> ownersNewRows = newRowsOfKeyOwners(current);
        for (Map.Entry<PartitionValues, DeletedKeys> named : unmatched.entrySet()) {
            forEachLookup(
                    named.getValue(),
                    keys ->
                            requireNotHeldOutside(
                                    named.getKey(), keys, after, ownersNewRows, checkpoint));
        }
    }

    /**
     * The paths of the files of new rows ({@link PartitionWriteResult#upsertFiles()}) that writers
     * distributed by key wrote in this checkpoint — their paths name the writer's key range. Each
     * key of them was written by the one writer that gets every change of the key, after its
     * key-only delete (an upsert before it was turned into a delete, see {@code ChangeBuffer}): the
     * row the delete left. Writers distributed by partition write no key range into their paths.
     */
    private static Set<String> newRowsOfKeyOwners(
            Map<PartitionValues, PartitionWriteResult> current) {
        Set<String> paths = new java.util.HashSet<>();
        for (PartitionWriteResult result : current.values()) {
            for (DataFile file : result.upsertFiles()) {
                if (KeyGroups.ofPath(file.path()) != null) {
                    paths.add(file.path());
                }
            }
        }
        return paths;
    }

    private void requireNotHeldOutside(
            PartitionValues named,
            Set<RowKey> keys,
            Map<PartitionValues, List<DataFile>> after,
            Set<String> ownersNewRows,
            String checkpoint) {
        for (Map.Entry<PartitionValues, List<DataFile>> other : after.entrySet()) {
            if (other.getKey().equals(named) || !merger.mayHoldKeysOf(named, other.getKey())) {
                continue;
            }
            List<DataFile> older = new ArrayList<>(other.getValue());
            older.removeIf(file -> ownersNewRows.contains(file.path()));
            List<DataFile> holding = merger.filesHoldingAny(older, keys);
            if (holding.isEmpty()) {
                continue;
            }
            throw KeyOnlyDeleteFailure.rowElsewhere(
                    schema,
                    location,
                    named,
                    new PartitionMerger.KeyHolder(other.getKey(), keysHeld(holding, keys)),
                    checkpoint
                            + " was not committed: nothing of it is in the table. The row was"
                            + " added by another writer of the sink, in this checkpoint or in an"
                            + " earlier one not yet committed when the delete was merged. The"
                            + " checkpoint is in the job's state, and a restore from it fails the"
                            + " same way: restore a checkpoint or savepoint taken before it, with"
                            + " the source replaying from there.");
        }
    }

    /** Every partition's files once {@code current} is committed on top of {@code snapshot}. */
    private static Map<PartitionValues, List<DataFile>> filesAfter(
            TableSnapshot snapshot, Map<PartitionValues, PartitionWriteResult> current) {
        Map<PartitionValues, Map<String, DataFile>> byPath = new LinkedHashMap<>();
        snapshot.allLiveFiles()
                .forEach(
                        (partition, files) -> {
                            Map<String, DataFile> paths = new LinkedHashMap<>();
                            files.forEach(file -> paths.put(file.path(), file));
                            byPath.put(partition, paths);
                        });
        current.forEach(
                (partition, result) ->
                        result.applyTo(
                                byPath.computeIfAbsent(partition, p -> new LinkedHashMap<>())));
        Map<PartitionValues, List<DataFile>> after = new LinkedHashMap<>();
        byPath.forEach((partition, paths) -> after.put(partition, new ArrayList<>(paths.values())));
        return after;
    }

    /**
     * Hands the keys to {@code lookup} in sets of at most {@link #KEYS_PER_LOOKUP}: the inline
     * ones, then those of each staged file, in the key columns' current types.
     */
    private void forEachLookup(DeletedKeys keys, Consumer<Set<RowKey>> lookup) {
        Set<RowKey> inline = new LinkedHashSet<>();
        keys.inline().forEach(key -> inline.add(conform(key)));
        if (!inline.isEmpty()) {
            lookup.accept(inline);
        }
        for (StagedKeys file : keys.staged()) {
            try (KeyStream staged = store.readStagedKeys(file)) {
                Set<RowKey> chunk = new LinkedHashSet<>();
                while (staged.hasNext()) {
                    chunk.add(conform(staged.next()));
                    if (chunk.size() == KEYS_PER_LOOKUP) {
                        lookup.accept(chunk);
                        chunk = new LinkedHashSet<>();
                    }
                }
                if (!chunk.isEmpty()) {
                    lookup.accept(chunk);
                }
            }
        }
    }

    private RowKey conform(RowKey key) {
        return WidenedValues.conform(key, schema.matchKeyTypes());
    }

    /**
     * Up to {@link #NAMED_KEYS} of {@code keys} that {@code holding} (files of one partition) hold.
     */
    private List<RowKey> keysHeld(List<DataFile> holding, Set<RowKey> keys) {
        List<RowKey> held = new ArrayList<>();
        for (RowKey key : keys) {
            if (!merger.filesHoldingAny(holding, Set.of(key)).isEmpty()) {
                held.add(key);
                if (held.size() == NAMED_KEYS) {
                    break;
                }
            }
        }
        return held;
    }
}
