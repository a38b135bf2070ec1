package io.deltalite.flink.internal.warmup;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import io.deltalite.flink.sink.WriteMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the merge once per JVM on a throwaway table while the sink's writers buffer their first
 * checkpoint, so that the checkpoint does not pay for a cold JVM.
 *
 * <p><b>Why.</b> A fresh JVM runs the merge and commit code interpreted until the JIT compiles it,
 * and loads Kernel's, Parquet's and Hadoop's classes on first use. On two cores the first
 * checkpoint of a job took twice to three times as long as the later ones for the same changes
 * (BENCHMARKS.md §11k, §11n), and the checkpoints after it were slower too while the compilers
 * caught up. Every start of a TaskManager pays it: a deployment, a failover to a new TaskManager, a
 * rescale.
 *
 * <p><b>What it does.</b> The first writer opened in a JVM (more precisely: in the class loader
 * that loaded the connector) starts one daemon thread, which creates a Delta table in a new
 * directory under {@code java.io.tmpdir} with the sink table's columns, primary key and partition
 * columns — with deletion vectors when the sink writes them — and drives the engine's writer and
 * committer over it as the sink does: {@value #ROUNDS} checkpoints of {@value #CHANGES_PER_ROUND}
 * made-up changes each ({@link SyntheticRows}; after the first, half updates of earlier keys, a
 * tenth deletes, the rest new keys), each merged and committed with a transaction id. Then it
 * deletes the directory.
 *
 * <p><b>What it never does.</b> It never writes to, or reads the data of, the sink's table (it asks
 * the table's latest snapshot only whether it allows deletion vectors, when the write mode is
 * {@code auto}); it never holds up a checkpoint — the sink's first checkpoint in the JVM ({@link
 * #stopSoon()}) stops it after its current step, so that it does not take CPU from the real merge;
 * and its failure fails nothing: it is logged, and the first checkpoint compiles the code as it
 * would have without it. Its buffer has a fixed size, outside the JVM's share that the writers'
 * automatic budgets split.
 *
 * <p>Turned off with the sink option {@code warm-up = false} (for example where the TaskManagers'
 * temporary directory is not writable).
 */
public final class MergeWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(MergeWarmUp.class);

    static final int ROUNDS = 8;
    static final int CHANGES_PER_ROUND = 8_000;
    static final String APP_ID = "deltalite-warm-up";

    /** The warm-up writer's change buffer: far more than a round of made-up rows takes. */
    private static final long BUFFER_BYTES = 64L << 20;

    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static volatile boolean stopRequested;

    private MergeWarmUp() {}

    /** What a warm-up did: checkpoints committed, changes written, and how long it took. */
    record Result(int checkpoints, long changes, long millis) {}

    /**
     * Starts the warm-up on a daemon thread unless it was started before in this JVM: the writer of
     * {@code table} opened with {@code options}. Returns at once.
     */
    public static void startOnce(MergeTable table, MergeOptions options) {
        if (!STARTED.compareAndSet(false, true)) {
            return;
        }
        TableSchema schema = table.schema();
        String location = table.location();
        Thread thread =
                new Thread(() -> runLogged(table, schema, location, options), "deltalite-warm-up");
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY);
        thread.start();
    }

    /**
     * A sink writer in this JVM began a checkpoint, or closed: a warm-up still running stops after
     * its current step, leaving the CPU to the merge (and the job's class loader to be released).
     */
    public static void stopSoon() {
        stopRequested = true;
    }

    private static void runLogged(
            MergeTable table, TableSchema schema, String location, MergeOptions options) {
        try {
            boolean deletionVectors =
                    options.writeMode() == WriteMode.DELETION_VECTORS
                            || (options.writeMode() == WriteMode.AUTO
                                    && table.latestSnapshot().allowsDeletionVectors());
            Path parent = Path.of(System.getProperty("java.io.tmpdir"));
            Result result =
                    run(
                            parent,
                            schema,
                            deletionVectors,
                            options,
                            () -> stopRequested,
                            ROUNDS,
                            CHANGES_PER_ROUND);
            LOG.info(
                    "deltalite warmed up the merge in this JVM for the sink of {}: {} checkpoint(s)"
                            + " of made-up changes ({} in all) merged and committed to a"
                            + " throwaway table under {} in {} ms{}.",
                    location,
                    result.checkpoints(),
                    result.changes(),
                    parent,
                    result.millis(),
                    result.checkpoints() < ROUNDS ? ", stopped early by the first checkpoint" : "");
        } catch (RuntimeException | IOException | LinkageError e) {
            LOG.info(
                    "deltalite could not warm up the merge in this JVM (for the sink of {}); the"
                            + " first checkpoint compiles it instead. Nothing of the sink's table"
                            + " was touched. Cause: {}",
                    location,
                    e.toString());
        }
    }

    /**
     * Runs {@code rounds} checkpoints of {@code changesPerRound} changes in a new directory under
     * {@code parent}, which it deletes at the end, whatever happened; stops before the next step
     * once {@code stop} says so.
     */
    static Result run(
            Path parent,
            TableSchema schema,
            boolean deletionVectors,
            MergeOptions options,
            BooleanSupplier stop,
            int rounds,
            int changesPerRound)
            throws IOException {
        Path directory = Files.createTempDirectory(parent, "deltalite-warm-up-");
        try {
            return runIn(
                    directory.resolve("table"),
                    schema,
                    deletionVectors,
                    options,
                    stop,
                    rounds,
                    changesPerRound);
        } finally {
            deleteRecursively(directory);
        }
    }

    /**
     * Runs {@code rounds} checkpoints of {@code changesPerRound} changes on a new table at {@code
     * location}, and leaves the table there.
     */
    static Result runIn(
            Path location,
            TableSchema schema,
            boolean deletionVectors,
            MergeOptions sinkOptions,
            BooleanSupplier stop,
            int rounds,
            int changesPerRound) {
        long started = System.nanoTime();
        MergeOptions options = sinkOptions.withMaxBufferedBytes(BUFFER_BYTES);
        TableDefinition definition =
                new TableDefinition(
                        schema.columns(),
                        schema.primaryKey(),
                        schema.partitionColumns(),
                        deletionVectors ? Map.of("delta.enableDeletionVectors", "true") : Map.of());
        DeltaTable table =
                DeltaTable.open(location.toString(), Map.of(), options, definition, true);
        ExecutorService files =
                Executors.newFixedThreadPool(
                        options.maxParallelFiles(),
                        runnable -> {
                            Thread thread = new Thread(runnable, "deltalite-warm-up-files");
                            thread.setDaemon(true);
                            return thread;
                        });
        MergeWriter writer = new MergeWriter(table, options, APP_ID, 1, files);
        try {
            CheckpointCommitter committer =
                    new CheckpointCommitter(
                            table, new PartitionMerger(table, options, files), options);
            SyntheticRows rows = new SyntheticRows(schema);
            boolean keyed = !schema.isAppendOnly();
            SplittableRandom random = new SplittableRandom(31);
            long nextKey = 0;
            long changes = 0;
            int checkpoints = 0;
            for (int round = 1; round <= rounds && !stop.getAsBoolean(); round++) {
                for (int i = 0; i < changesPerRound; i++) {
                    int draw = round == 1 || !keyed ? 9 : random.nextInt(10);
                    if (draw < 5) {
                        writer.upsert(rows.row(random.nextLong(nextKey), round));
                    } else if (draw == 5) {
                        writer.delete(rows.row(random.nextLong(nextKey), round));
                    } else {
                        writer.upsert(rows.row(nextKey++, round));
                    }
                }
                changes += changesPerRound;
                if (stop.getAsBoolean()) {
                    break;
                }
                List<PartitionWriteResult> results = writer.prepare();
                writer.prepared(round);
                committer.commit(new CheckpointResults(APP_ID, round, results));
                checkpoints++;
            }
            return new Result(checkpoints, changes, (System.nanoTime() - started) / 1_000_000);
        } finally {
            writer.close();
            files.shutdownNow();
        }
    }

    private static void deleteRecursively(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(
                            path -> {
                                try {
                                    Files.deleteIfExists(path);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn(
                    "Could not delete the warm-up's throwaway table in {}; it holds only made-up"
                            + " rows and may be deleted by hand: {}",
                    directory,
                    e.toString());
        }
    }
}
