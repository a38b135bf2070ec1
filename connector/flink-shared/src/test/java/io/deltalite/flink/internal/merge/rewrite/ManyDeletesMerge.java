package io.deltalite.flink.internal.merge.rewrite;

import io.deltalite.flink.internal.delta.table.ForeignWriter;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.table.CommitOutcomeUnknownException;
import io.deltalite.flink.internal.merge.table.ConcurrentCommitException;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.TableCommit;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.sink.Serializers;
import io.deltalite.flink.internal.sink.WriterState;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Run in a JVM with a small heap by {@link MergeMemoryBoundTest}: one checkpoint deletes all but
 * every thousandth key of a table of {@code rows} rows, with the default knobs. Another writer
 * appends to the table before the commit, so the whole checkpoint is merged again from its staged
 * deleted keys. Checks that the checkpoint's state and committable stay small (paths and counts,
 * not keys), that the table ends right, and that the staged keys are cleaned up. Exits with 0 when
 * all is well; anything else (an {@link OutOfMemoryError} included) ends the JVM with another
 * status.
 */
public final class ManyDeletesMerge {
    private static final TableDefinition TABLE =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("v", ValueType.of(Kind.INT), true)),
                    List.of("id"),
                    List.of(),
                    Map.of());
    private static final long KEEP_EVERY = 1_000;

    private ManyDeletesMerge() {}

    /**
     * @param args table location, number of rows
     */
    public static void main(String[] args) throws IOException {
        String location = args[0];
        long rows = Long.parseLong(args[1]);
        long started = System.nanoTime();
        try (UpsertHarness harness = UpsertHarness.open(location, TABLE, MergeOptions.DEFAULTS)) {
            DataFileStore store = harness.table().files();
            List<DataFile> files =
                    store.write(
                            PartitionValues.UNPARTITIONED,
                            new GeneratedRows(store, rows, 4096, id -> new Object[] {id, 1}));
            try {
                harness.table()
                        .latestSnapshot()
                        .commit(
                                new TableCommit(
                                        "setup",
                                        1,
                                        Map.of(),
                                        Map.of(PartitionValues.UNPARTITIONED, files)));
            } catch (ConcurrentCommitException | CommitOutcomeUnknownException e) {
                throw new IllegalStateException(e);
            }
            report("wrote %d rows in %d files (%.1f s)", rows, files.size(), seconds(started));

            long deleted = 0;
            for (long id = 0; id < rows; id++) {
                if (id % KEEP_EVERY != 0) {
                    harness.delete(id, null);
                    deleted++;
                }
            }
            List<PartitionWriteResult> results = harness.prepare();
            long checkpoint = harness.lastCheckpoint();
            int committableBytes =
                    new Serializers.CommittableSerializer()
                            .serialize(
                                    new CheckpointResults(
                                            UpsertHarness.APP_ID, checkpoint, results))
                            .length;
            int stateBytes =
                    new Serializers.WriterStateSerializer()
                            .serialize(new WriterState(harness.writer().pending()))
                            .length;
            report(
                    "prepared %d deletes: committable %d bytes, writer state %d bytes (%.1f s)",
                    deleted, committableBytes, stateBytes, seconds(started));
            check(committableBytes < 256 * 1024, "committable of " + committableBytes + " bytes");
            check(stateBytes < 256 * 1024, "writer state of " + stateBytes + " bytes");

            // Another writer appends a row with a deleted key: the commit merges again.
            ForeignWriter.append(
                    location,
                    TABLE.toSchema(),
                    PartitionValues.UNPARTITIONED,
                    List.<Object[]>of(new Object[] {1L, -1}),
                    ForeignWriter.Statistics.EXACT);
            CommitOutcome outcome = harness.commitPrepared(checkpoint, results);
            report(
                    "committed: %s after %d re-merged partition(s) (%.1f s)",
                    outcome.stats(), outcome.remergedPartitions(), seconds(started));
            check(outcome.remergedPartitions() == 1, "the checkpoint was merged again");
            harness.prepare();
        }
        long[] count = {0};
        KernelTableReader.forEachRow(
                location,
                row -> {
                    check((Long) row[0] % KEEP_EVERY == 0, "row " + row[0] + " survived");
                    count[0]++;
                });
        long expected = (rows + KEEP_EVERY - 1) / KEEP_EVERY;
        check(count[0] == expected, "table has " + count[0] + " rows, expected " + expected);
        check(stagedKeyFiles(location) == 0, "staged key files left behind");
        report(
                "verified %d rows; heap max %d MiB (%.1f s)",
                count[0], Runtime.getRuntime().maxMemory() >> 20, seconds(started));
    }

    private static long stagedKeyFiles(String location) throws IOException {
        Path staged = Path.of(location, "_deltalite", "staged");
        if (!Files.isDirectory(staged)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(staged)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".keys")).count();
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
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
