package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.DeletionVectorRef;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.value.KeyIdentity;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.internal.merge.value.StagedKeys;
import java.util.List;

/** How the engine reads and writes the data files of one table. */
public interface DataFileStore {

    /** Streams {@code file} with only its match-key columns decoded, one batch at a time. */
    BatchStream readKeys(DataFile file);

    /**
     * The live rows of {@code file} whose key is one of {@code keys}: the exact probe, and the
     * search for the positions a deletion vector marks. Rows its deletion vector deletes and rows
     * with a null key column never match. This implementation decodes the key columns row by row
     * through {@link #readKeys}; a store may read them faster, with the same answer.
     *
     * @param firstOnly stop at the first hit (a probe that only asks whether the file holds any)
     */
    default KeyHits locateKeys(DataFile file, ChangedKeys keys, boolean firstOnly) {
        KeyMatcher matcher = keys.matcher();
        long[] positions = new long[16];
        int count = 0;
        java.util.Set<RowKey> found = new java.util.HashSet<>();
        long rows = 0;
        try (BatchStream batches = readKeys(file)) {
            while (batches.hasNext()) {
                RowBatch batch = batches.next();
                for (int row = 0; row < batch.size(); row++) {
                    if (!batch.isLive(row)) {
                        continue;
                    }
                    RowKey key = matcher.match(batch, row);
                    if (key != null) {
                        if (count == positions.length) {
                            positions = java.util.Arrays.copyOf(positions, count * 2);
                        }
                        positions[count++] = batch.positionAt(row);
                        found.add(key);
                        if (firstOnly) {
                            return new KeyHits(
                                    java.util.Arrays.copyOf(positions, count), found, -1);
                        }
                    }
                }
                rows += batch.size();
            }
        }
        return new KeyHits(java.util.Arrays.copyOf(positions, count), found, rows);
    }

    /**
     * Hands the key identity ({@link KeyIdentity}, for keys of {@code keyTypes}) and physical
     * position of every row of {@code file} whose key columns are all non-null — rows its deletion
     * vector deletes too — to {@code sink}, a block of rows at a time, in file order; answers the
     * file's physical row count. This implementation decodes the keys row by row through {@link
     * #readKeys}; a store may read them faster, with the same identities.
     */
    default long readKeyIdentities(DataFile file, List<ValueType> keyTypes, KeyIdentitySink sink) {
        boolean integral = KeyIdentity.isIntegral(keyTypes);
        long[] high = new long[1024];
        long[] low = new long[1024];
        long[] positions = new long[1024];
        long rows = 0;
        try (BatchStream batches = readKeys(file)) {
            while (batches.hasNext()) {
                RowBatch batch = batches.next();
                boolean longKeys = integral && batch.hasLongKey();
                int count = 0;
                for (int row = 0; row < batch.size(); row++) {
                    if (count == positions.length) {
                        high = java.util.Arrays.copyOf(high, count * 2);
                        low = java.util.Arrays.copyOf(low, count * 2);
                        positions = java.util.Arrays.copyOf(positions, count * 2);
                    }
                    if (longKeys) {
                        if (!batch.isKeyNullAt(row)) {
                            high[count] = batch.longKeyAt(row);
                            low[count] = 0;
                            positions[count++] = batch.positionAt(row);
                        }
                        continue;
                    }
                    RowKey key = batch.keyAt(row);
                    if (key == null) {
                        continue; // a null key never matches
                    }
                    KeyIdentity identity = KeyIdentity.of(key, integral);
                    high[count] = identity.high();
                    low[count] = identity.low();
                    positions[count++] = batch.positionAt(row);
                }
                sink.accept(high, low, positions, count);
                rows += batch.size();
            }
        }
        return rows;
    }

    /** Streams the complete rows of {@code file}; rows its deletion vector deletes are not live. */
    BatchStream readRows(DataFile file);

    /**
     * Where the row groups of {@code file} start: {@code bounds[g]} is the position of the first
     * row of row group {@code g}, the last entry the file's physical row count. Null when this
     * store reads files only whole (then {@link #readRows(DataFile, int, int)} is not supported).
     */
    default long[] rowGroupBounds(DataFile file) {
        return null;
    }

    /**
     * Streams the complete rows of row groups {@code fromGroup} (inclusive) to {@code toGroup} of
     * {@code file} ({@link #rowGroupBounds}), each at its position in the whole file; rows its
     * deletion vector deletes are not live.
     */
    default BatchStream readRows(DataFile file, int fromGroup, int toGroup) {
        throw new UnsupportedOperationException("this store reads files only whole");
    }

    /** Wraps new rows, in table-column order, as a batch that can be written. */
    RowBatch newRows(List<Object[]> rows);

    /**
     * Whether the table tracks rows (Delta's row tracking): a row the store copies keeps its row id
     * and commit version, and a new row that replaces a row of the table must keep that row's id
     * ({@link #rowIdsOf}, {@link #newRows(List, long[], int)}).
     */
    default boolean tracksRowIds() {
        return false;
    }

    /**
     * As {@link #newRows(List)}; in a table that tracks rows, {@code rows.get(i)} keeps the row id
     * {@code rowIds[rowIdsFrom + i]}, or gets a fresh one where that is negative.
     */
    default RowBatch newRows(List<Object[]> rows, long[] rowIds, int rowIdsFrom) {
        return newRows(rows);
    }

    /**
     * In a table that tracks rows, the row id of each live row of {@code file} whose key is one of
     * {@code keys} (null: every row with a key), by key; -1 for a row of a file not committed yet
     * that has no id yet (it gets a fresh one when the file is committed). Empty in other tables.
     */
    default java.util.Map<RowKey, Long> rowIdsOf(DataFile file, KeyMatcher keys) {
        return java.util.Map.of();
    }

    /**
     * In a table that tracks rows, the row ids of the rows of {@code file} at {@code positions}
     * ({@code ids[i]} of {@code positions[i]}; -1 for a row of a file not committed yet that has no
     * id yet), reading no more than the file's row-id column; null when this store cannot read them
     * that way (then {@link #rowIdsOf} reads them with the keys).
     */
    default long[] rowIdsAt(DataFile file, long[] positions) {
        return null;
    }

    /**
     * In a table that tracks rows, writes the rows of {@code file}, a file not committed yet, into
     * new files of {@code partition} (in the folder of {@code keys}, null: the partition's), each
     * row whose key {@code rowIds} names with that row id instead of its own (-1: a fresh one).
     */
    default List<DataFile> rewriteRowIds(
            PartitionValues partition,
            DataFile file,
            java.util.Map<RowKey, Long> rowIds,
            KeyGroups keys) {
        throw new UnsupportedOperationException("only a table that tracks rows has row ids");
    }

    /**
     * Row {@code rows[i]} of {@code sources.get(from[i])} for {@code i < count}, in that order, as
     * one batch of live rows that can be written: the output of a merge by key. The sources are
     * batches of complete rows this store read ({@link #readRows}) or made ({@link #newRows}). This
     * implementation copies each row; a store may point into the sources instead, column by column,
     * without decoding a value.
     */
    default RowBatch gather(List<? extends RowBatch> sources, int[] from, int[] rows, int count) {
        List<Object[]> values = new java.util.ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(sources.get(from[i]).rowAt(rows[i]));
        }
        return newRows(values);
    }

    /**
     * Writes the live rows of {@code batches} into new data files of {@code partition}, starting a
     * new file at the target file size, with statistics. The files are not part of the table until
     * a commit adds them. If writing fails, the files written so far are deleted.
     */
    default List<DataFile> write(PartitionValues partition, BatchStream batches) {
        return write(partition, batches, null);
    }

    /**
     * As {@link #write(PartitionValues, BatchStream)}, into the folder of {@code keys} in the
     * partition: for rows whose keys are all in that range (see {@link KeyGroups}); null writes
     * into the partition's own folder.
     */
    List<DataFile> write(PartitionValues partition, BatchStream batches, KeyGroups keys);

    /**
     * Writes new rows held in memory, in table-column order and in the order given, as {@link
     * #write(PartitionValues, BatchStream, KeyGroups)} writes batches of them; in a table that
     * tracks rows, {@code rows.get(i)} keeps the row id {@code rowIds[i]} (a fresh one where that
     * is negative; null: all fresh). A store may write them without making batches first.
     */
    default List<DataFile> writeNew(
            PartitionValues partition,
            List<Object[]> rows,
            long[] rowIds,
            int batchSize,
            KeyGroups keys) {
        return write(partition, new NewRowStream(this, rows, rowIds, batchSize), keys);
    }

    /**
     * Writes one new data file of {@code partition} (in the folder of {@code keys}, as {@link
     * #write(PartitionValues, BatchStream, KeyGroups)}) that holds every row of {@code files} —
     * deleted ones too — in their order, file after file, by copying their Parquet row groups as
     * they are: nothing is decoded or compressed again. The rows of file {@code i} start at the sum
     * of the row counts of the files before it, which are their {@link DataFile#numRecords}. The
     * result has fresh statistics and no deletion vector; the caller gives it the files' deletion
     * vectors, moved to their new positions.
     *
     * @return the new file, or null when these files cannot be spliced (their layout is not the one
     *     this store writes now, a file's row count differs from its statistics', the table keeps
     *     row ids, or the result would hold too many row groups): then nothing was written
     */
    default DataFile splice(PartitionValues partition, List<DataFile> files, KeyGroups keys) {
        return null;
    }

    /** Deletes a data file that was written but will never be committed. Best effort. */
    void deleteUncommitted(DataFile file);

    /**
     * Writes {@code keys} into a new staged key file outside the table's data, for a checkpoint's
     * re-merge; only {@link #readStagedKeys} reads it.
     */
    StagedKeys stageKeys(java.util.Collection<RowKey> keys);

    /** The rows of {@code file} that its deletion vector deletes (empty when it has none). */
    DeletionVector readDeletionVector(DataFile file);

    /**
     * A new deletion vector file: the merges of one round add their vectors to it, and closing it
     * writes it (nothing is written when no vector was added).
     */
    DeletionVectorSink newDeletionVectorSink();

    /** The file a deletion vector is stored in, or {@code null} for one inline in the log. */
    String deletionVectorPath(DeletionVectorRef vector);

    /** Whether the file at {@code path} exists. */
    boolean exists(String path);

    /** The size in bytes of the file at {@code path}; empty when it does not exist. */
    java.util.OptionalLong fileSize(String path);

    /** Whether {@code path} is a staged key file (which no Delta version ever references). */
    boolean isStagedKeyFile(String path);

    /** Streams the keys of a staged key file. */
    KeyStream readStagedKeys(StagedKeys file);
}
