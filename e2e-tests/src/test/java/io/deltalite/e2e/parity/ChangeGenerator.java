package io.deltalite.e2e.parity;

import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.testing.Rows;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;

/**
 * Seeded random batches of changes for one table. Each change starts from a random row drawn by the
 * scenario (which decides the key domain, the partitions and the values); the generator then
 * decides, by the rates of its {@link Mix}, whether it updates the stored row of that key, deletes
 * it, moves it to another partition, deletes a key that is not there, or has a null key.
 *
 * <p>The generator remembers which keys it stored where (in a plain model where a change replaces
 * or removes its identity) only to choose meaningful changes; the expected outcome of a batch is
 * always the MERGE's, never this model's.
 */
final class ChangeGenerator {
    /**
     * The probabilities of the kinds of changes; the rest are upserts of the drawn row (an update
     * when its key is stored, then in the key's partition).
     *
     * @param nullKey the drawn row gets a null in one key column (a fifth of these are deletes)
     * @param deleteStored a stored key is deleted in its partition
     * @param moveStored a stored key is deleted in its partition and upserted in the drawn one
     * @param deleteMissing a key is deleted where it is not stored (never stored, or stored in
     *     another partition)
     */
    record Mix(double nullKey, double deleteStored, double moveStored, double deleteMissing) {
        static final Mix DEFAULT = new Mix(0, 0.15, 0.1, 0.05);

        Mix {
            if (nullKey + deleteStored + moveStored + deleteMissing > 1) {
                throw new IllegalArgumentException("the rates add up to more than 1");
            }
        }
    }

    private final TableSchema schema;
    private final Random random;
    private final Mix mix;
    private Function<Random, Object[]> rows;

    /** Stored rows by match key, then by partition. */
    private final Map<List<Object>, Map<List<Object>, Object[]>> stored = new LinkedHashMap<>();

    ChangeGenerator(TableSchema schema, long seed, Mix mix, Function<Random, Object[]> rows) {
        this.schema = schema;
        this.random = new Random(seed);
        this.mix = mix;
        this.rows = Objects.requireNonNull(rows, "rows");
    }

    /** Draws the rows of later batches from {@code rows}. */
    void drawRowsFrom(Function<Random, Object[]> rows) {
        this.rows = Objects.requireNonNull(rows, "rows");
    }

    /** {@code count} batches of {@code size} changes each (a move counts as one change). */
    List<List<Change>> batches(int count, int size) {
        List<List<Change>> batches = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batches.add(batch(size));
        }
        return batches;
    }

    List<Change> batch(int size) {
        List<Change> batch = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            next(batch);
        }
        return batch;
    }

    /** A batch that upserts every stored row with new values, in its partition. */
    List<Change> replaceEveryStoredRow() {
        List<Change> batch = new ArrayList<>();
        for (Map<List<Object>, Object[]> partitions : new ArrayList<>(stored.values())) {
            for (Object[] row : new ArrayList<>(partitions.values())) {
                Object[] replacement = rows.apply(random);
                copyKeyAndPartition(row, replacement);
                upsert(batch, replacement);
            }
        }
        return batch;
    }

    private void next(List<Change> batch) {
        Object[] row = rows.apply(random);
        double dice = random.nextDouble();
        if (dice < mix.nullKey()) {
            int[] keyIndexes = schema.matchKeyIndexes();
            row[keyIndexes[random.nextInt(keyIndexes.length)]] = null;
            if (random.nextInt(5) == 0) {
                batch.add(Change.delete(row));
            } else {
                batch.add(Change.upsert(row));
            }
            return;
        }
        dice -= mix.nullKey();
        Map<List<Object>, Object[]> partitions = stored.get(key(row));
        if (partitions == null || partitions.isEmpty()) {
            if (dice < mix.deleteMissing()) {
                batch.add(Change.delete(row));
            } else {
                upsert(batch, row);
            }
            return;
        }
        List<Object[]> candidates = new ArrayList<>(partitions.values());
        Object[] current = candidates.get(random.nextInt(candidates.size()));
        if (dice < mix.deleteStored()) {
            delete(batch, current);
        } else if (dice < mix.deleteStored() + mix.moveStored()) {
            delete(batch, current);
            upsert(batch, row);
        } else if (dice < mix.deleteStored() + mix.moveStored() + mix.deleteMissing()) {
            // The key is stored, but the delete carries a partition where it is not.
            if (!partitions.containsKey(partition(row))) {
                batch.add(Change.delete(row));
            }
        } else {
            copyKeyAndPartition(current, row);
            upsert(batch, row);
        }
    }

    private void upsert(List<Change> batch, Object[] row) {
        batch.add(Change.upsert(row));
        stored.computeIfAbsent(key(row), unused -> new LinkedHashMap<>()).put(partition(row), row);
    }

    private void delete(List<Change> batch, Object[] row) {
        batch.add(Change.delete(row));
        Map<List<Object>, Object[]> partitions = stored.get(key(row));
        if (partitions != null) {
            partitions.remove(partition(row));
        }
    }

    private void copyKeyAndPartition(Object[] from, Object[] to) {
        for (int index : schema.matchKeyIndexes()) {
            to[index] = from[index];
        }
        for (int index : schema.partitionIndexes()) {
            to[index] = from[index];
        }
    }

    private List<Object> key(Object[] row) {
        List<Object> values = new ArrayList<>();
        for (int index : schema.matchKeyIndexes()) {
            values.add(row[index]);
        }
        return Rows.canonical(values.toArray());
    }

    private List<Object> partition(Object[] row) {
        List<Object> values = new ArrayList<>();
        for (int index : schema.partitionIndexes()) {
            values.add("".equals(row[index]) ? null : row[index]);
        }
        return Rows.canonical(values.toArray());
    }
}
