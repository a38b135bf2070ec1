package io.deltalite.e2e.bench;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.table.TableCommit;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * The benchmark tables: one unpartitioned table of {@code (id, amount, note)} rows — the classic
 * copy-on-write workload — generated file by file without holding the rows in memory, and change
 * sets of corrections and new rows against it.
 */
final class BenchTable {
    /** Whether ids are increasing numbers (files hold disjoint ranges) or random UUID strings. */
    enum Keys {
        SEQUENTIAL,
        UUID
    }

    private static final int BATCH = 8192;

    private BenchTable() {}

    static TableDefinition definition(Keys keys) {
        return definition(keys, Map.of());
    }

    /**
     * The table with deletion vectors enabled ({@code delta.enableDeletionVectors}): the same
     * files, and either write mode can merge into it.
     */
    static TableDefinition definitionWithDeletionVectors(Keys keys) {
        return definition(keys, Map.of("delta.enableDeletionVectors", "true"));
    }

    private static TableDefinition definition(Keys keys, Map<String, String> properties) {
        return new TableDefinition(
                List.of(
                        new ValueType.Field(
                                "id",
                                ValueType.of(keys == Keys.UUID ? Kind.STRING : Kind.BIGINT),
                                false),
                        new ValueType.Field("amount", ValueType.of(Kind.BIGINT), true),
                        new ValueType.Field("note", ValueType.of(Kind.STRING), true)),
                List.of("id"),
                List.of(),
                properties);
    }

    /** Writes {@code files} files of {@code rowsPerFile} rows each, committed as one version. */
    static void generate(String location, Keys keys, int files, long rowsPerFile, long seed) {
        generate(location, definition(keys), keys, files, rowsPerFile, seed);
    }

    /** As {@link #generate(String, Keys, int, long, long)}, creating the table as {@code table}. */
    static void generate(
            String location,
            TableDefinition definition,
            Keys keys,
            int files,
            long rowsPerFile,
            long seed) {
        MergeOptions options = MergeOptions.DEFAULTS.withTargetFileSizeBytes(8L << 30);
        DeltaTable table = DeltaTable.open(location, Map.of(), options, definition, true);
        DataFileStore store = table.files();
        List<DataFile> written = new ArrayList<>();
        for (int file = 0; file < files; file++) {
            written.addAll(
                    store.write(
                            PartitionValues.UNPARTITIONED,
                            new GeneratedRows(store, keys, file * rowsPerFile, rowsPerFile, seed)));
        }
        TableSnapshot snapshot = table.latestSnapshot();
        snapshot.liveFiles(List.of(PartitionValues.UNPARTITIONED));
        try {
            snapshot.commit(
                    new TableCommit(
                            "bench-generator",
                            1,
                            Map.of(),
                            Map.of(PartitionValues.UNPARTITIONED, written)));
        } catch (Exception e) {
            throw new IllegalStateException("committing the generated table failed", e);
        }
    }

    /** The id of row {@code index}: sequential, or a UUID derived from it. */
    static Object id(Keys keys, long index) {
        return keys == Keys.SEQUENTIAL
                ? index
                : new UUID(index * 0x9E3779B97F4A7C15L, index).toString();
    }

    static Object[] row(Keys keys, long index, Random random) {
        return new Object[] {id(keys, index), random.nextLong() & 0xFFFFFFFFL, note(random)};
    }

    private static String note(Random random) {
        char[] text = new char[24];
        for (int i = 0; i < text.length; i++) {
            text[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(text);
    }

    /**
     * A change set against a table of {@code tableRows} rows: {@code corrections} updates of the
     * amount of existing rows — spread over the table, or all within {@code localRange} rows
     * starting at {@code localStart} — and {@code inserts} new rows.
     */
    static List<Object[]> changes(
            Keys keys,
            long tableRows,
            int corrections,
            int inserts,
            long seed,
            long localStart,
            long localRange) {
        Random random = new Random(seed);
        Set<Long> chosen = new HashSet<>();
        List<Object[]> changes = new ArrayList<>(corrections + inserts);
        while (chosen.size() < corrections) {
            long index =
                    localRange > 0
                            ? localStart + (long) (random.nextDouble() * localRange)
                            : (long) (random.nextDouble() * tableRows);
            if (chosen.add(index)) {
                changes.add(
                        new Object[] {
                            id(keys, index), random.nextLong() & 0xFFFFFFFFL, note(random)
                        });
            }
        }
        for (long i = 0; i < inserts; i++) {
            changes.add(row(keys, tableRows + i, random));
        }
        return changes;
    }

    /** Rows {@code first .. first+count-1}, produced batch by batch. */
    private static final class GeneratedRows implements BatchStream {
        private final DataFileStore store;
        private final Keys keys;
        private final long end;
        private final Random random;
        private long next;

        GeneratedRows(DataFileStore store, Keys keys, long first, long count, long seed) {
            this.store = store;
            this.keys = keys;
            this.next = first;
            this.end = first + count;
            this.random = new Random(seed ^ first);
        }

        @Override
        public boolean hasNext() {
            return next < end;
        }

        @Override
        public RowBatch next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            int size = (int) Math.min(BATCH, end - next);
            List<Object[]> rows = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                rows.add(row(keys, next++, random));
            }
            return store.newRows(rows);
        }

        @Override
        public void close() {}
    }
}
