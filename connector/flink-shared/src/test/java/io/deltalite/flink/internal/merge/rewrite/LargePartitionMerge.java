package io.deltalite.flink.internal.merge.rewrite;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.CommitOutcomeUnknownException;
import io.deltalite.flink.internal.merge.table.ConcurrentCommitException;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableCommit;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.testing.UpsertHarness;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Run in a JVM with a small heap by {@link MergeMemoryBoundTest}: builds a table whose one
 * partition is several times larger than the heap, then upserts keys spread over every file of it,
 * so that every file is rewritten, and checks the result row by row. Exits with 0 when all is well;
 * any failure (an {@link OutOfMemoryError} included) ends the JVM with another status.
 *
 * <p>Rows are generated and checked on the fly from their id; nothing holds more than a batch.
 */
public final class LargePartitionMerge {
    static final int PAYLOAD_BYTES = 1024;

    private static final TableDefinition TABLE =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("version", ValueType.of(Kind.INT), false),
                            new ValueType.Field("payload", ValueType.of(Kind.BINARY), false)),
                    List.of("id"),
                    List.of(),
                    Map.of());

    private LargePartitionMerge() {}

    /**
     * @param args table location, number of rows, number of keys to upsert
     */
    public static void main(String[] args) {
        String location = args[0];
        long rows = Long.parseLong(args[1]);
        int upserts = Integer.parseInt(args[2]);
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withMaxParallelFiles(2)
                        .withRowGroupSizeBytes(8L << 20)
                        .withReadBatchSize(4096)
                        .withTargetFileSizeBytes(64L << 20)
                        // -Dmerge.compression=LZ4_RAW etc. to compare codecs
                        .withCompression(
                                io.deltalite.flink.sink.ParquetCompression.valueOf(
                                        System.getProperty(
                                                "merge.compression",
                                                MergeOptions.DEFAULTS.compression().name())));
        try (UpsertHarness harness = UpsertHarness.open(location, TABLE, options)) {
            List<DataFile> files = writeInitialRows(harness.table(), rows);
            long bytes = files.stream().mapToLong(DataFile::sizeBytes).sum();
            report("wrote %d rows in %d files, %d MiB", rows, files.size(), bytes >> 20);

            long stride = rows / upserts;
            for (long id = stride / 2; id < rows; id += stride) {
                harness.upsert(id, 2, payload(id, 2));
            }
            CommitOutcome outcome = harness.commit();
            UpsertStats stats = outcome.stats();
            report("merged: %s", stats);
            long updated = (rows - stride / 2 + stride - 1) / stride;
            check(stats.filesRemoved() == files.size(), "every file rewritten: " + stats);
            check(stats.rowsUpdated() == updated, "rows updated: " + stats);
            check(stats.rowsCopied() == rows - updated, "rows copied: " + stats);

            verify(location, rows, stride);
            report(
                    "verified %d rows; heap max %d MiB, used now %d MiB",
                    rows,
                    Runtime.getRuntime().maxMemory() >> 20,
                    (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20);
        }
    }

    /** Writes version 1 with {@code rows} rows, generated batch by batch as Kernel writes them. */
    private static List<DataFile> writeInitialRows(MergeTable table, long rows) {
        DataFileStore store = table.files();
        List<DataFile> files =
                store.write(
                        PartitionValues.UNPARTITIONED,
                        new GeneratedRows(
                                store, rows, 1024, id -> new Object[] {id, 1, payload(id, 1)}));
        TableSnapshot snapshot = table.latestSnapshot();
        try {
            snapshot.commit(
                    new TableCommit(
                            "setup", 1, Map.of(), Map.of(PartitionValues.UNPARTITIONED, files)));
        } catch (ConcurrentCommitException | CommitOutcomeUnknownException e) {
            throw new IllegalStateException(e);
        }
        return files;
    }

    /** Reads the table back row by row: every id once, with the payload of its version. */
    private static void verify(String location, long rows, long stride) {
        BitSet seen = new BitSet();
        long[] count = {0};
        KernelTableReader.forEachRow(
                location,
                row -> {
                    long id = (Long) row[0];
                    int version = (Integer) row[1];
                    int expected = id % stride == stride / 2 ? 2 : 1;
                    check(!seen.get((int) id), "id " + id + " appears twice");
                    seen.set((int) id);
                    check(version == expected, "id " + id + " has version " + version);
                    check(
                            Arrays.equals((byte[]) row[2], payload(id, version)),
                            "id " + id + " has a wrong payload");
                    count[0]++;
                });
        check(count[0] == rows, "table has " + count[0] + " rows, expected " + rows);
    }

    /** Incompressible bytes determined by the id and the version. */
    static byte[] payload(long id, int version) {
        byte[] bytes = new byte[PAYLOAD_BYTES];
        new SplittableRandom(id * 31 + version).nextBytes(bytes);
        return bytes;
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    private static void report(String format, Object... args) {
        System.out.println(String.format(format, args));
    }
}
