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
import io.deltalite.flink.internal.merge.writer.WriterThreads;
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
 * Runs the merge once on a throwaway table while the sink's writers buffer their first checkpoint,
 * so that the checkpoint does not pay for a cold JVM. Off by default (sink option {@code warm-up}):
 * it pays only when the job leaves it time before the first checkpoint.
 *
 * <p><b>Why.</b> A fresh JVM runs the merge and commit code interpreted until the JIT compiles it,
 * and loads Kernel's, Parquet's and Hadoop's classes on first use: a job's first checkpoint took
 * twice to three times as long as later ones for the same changes (BENCHMARKS.md §11k, §11n). Every
 * start of a TaskManager pays it: a deployment, a failover to a new TaskManager, a rescale. But
 * Flink triggers the first checkpoint anywhere between {@code execution.checkpointing.min-pause} (0
 * by default) and the interval, often a second or two after the start, before the warm-up has done
 * anything; with a pause of about five seconds the first checkpoint of the benchmark fell from
 * 1.4–1.9 s to 0.45–0.61 s, every checkpoint of three runs under a second (§11n).
 *
 * <p><b>What it does.</b> The first writer opened in the class loader that loaded the connector
 * (once per TaskManager with the connector in Flink's {@code lib/}, once per job and TaskManager
 * when it is bundled in the job's jar) starts one daemon thread, which creates a Delta table in a
 * new directory under {@code java.io.tmpdir} with the sink table's columns, primary key and
 * partition columns — with deletion vectors when the sink writes them — and drives the engine's
 * writer and committer over it as the sink does: {@value #ROUNDS} checkpoints of {@value
 * #CHANGES_PER_ROUND} made-up changes each ({@link SyntheticRows}; after the first, half updates of
 * earlier keys, a tenth deletes, the rest new keys), each merged and committed with a transaction
 * id, with the sink's options but a small fixed buffer and small row groups. Then it deletes the
 * directory (and any that a JVM which died during a warm-up left, after an hour).
 *
 * <p><b>What it never does.</b> It never writes to, or reads the data of, the sink's table (it asks
 * the table's latest snapshot only whether it allows deletion vectors, when the write mode is
 * {@code auto}); it never holds up a checkpoint — a writer's checkpoint or close ({@link
 * #stopSoon()}) stops it after its current step (one merge and commit of made-up rows, about a
 * second cold), after which it takes no CPU; and its failure fails nothing: it is logged, and the
 * first checkpoint compiles the code as it would have without it. While it runs it takes what a
 * writer's merge takes: a thread and the sink's {@code max-parallel-files} file threads.
 */
public final class MergeWarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(MergeWarmUp.class);

    static final int ROUNDS = 8;
    static final int CHANGES_PER_ROUND = 8_000;
    static final String APP_ID = "deltalite-warm-up";

    /**
     * The warm-up writer's change buffer, outside the writers' automatic budgets: a round of
     * made-up rows of a narrow table takes 1–3 MiB; a wider one merges early, which is warm-up too.
     */
    private static final long BUFFER_BYTES = 16L << 20;

    /** Its Parquet row groups: its files are small, and so is what it holds per open file. */
    private static final long ROW_GROUP_BYTES = 4L << 20;

    static final String DIRECTORY_PREFIX = "deltalite-warm-up-";

    /** Warm-up directories older than this were left by a JVM that died during a warm-up. */
    private static final java.time.Duration LEFT_BEHIND = java.time.Duration.ofHours(1);

    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static volatile boolean stopRequested;

    private MergeWarmUp() {}

    /** What a warm-up did: checkpoints committed, changes written, and how long it took. */
    record Result(int checkpoints, long changes, long millis) {}

    /**
     * Starts the warm-up on a daemon thread unless it was started before in this class loader: the
     * writer of {@code table} opened with {@code options}. Returns at once and never throws.
     */
    public static void startOnce(MergeTable table, MergeOptions options) {
        if (!STARTED.compareAndSet(false, true)) {
            return;
        }
        try {
            TableSchema schema = table.schema();
            String location = table.location();
            Thread thread =
                    new Thread(
                            () -> runLogged(table, schema, location, options), "deltalite-warm-up");
            thread.setDaemon(true);
            thread.start();
        } catch (Throwable e) {
            LOG.info("deltalite could not start the warm-up of the merge: {}", e.toString());
        }
    }

    /** Whether a warm-up was started in this class loader (for tests). */
    public static boolean started() {
        return STARTED.get();
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
            if (stopRequested) {
                return;
            }
            boolean deletionVectors =
                    options.writeMode() == WriteMode.DELETION_VECTORS
                            || (options.writeMode() == WriteMode.AUTO
                                    && table.latestSnapshot().allowsDeletionVectors());
            Path parent = Path.of(System.getProperty("java.io.tmpdir"));
            deleteLeftBehind(parent);
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
                    "deltalite warmed up the merge for the sink of {}: {} checkpoint(s) of"
                            + " made-up changes ({} in all) merged and committed to a throwaway"
                            + " table under {} in {} ms{}.",
                    location,
                    result.checkpoints(),
                    result.changes(),
                    parent,
                    result.millis(),
                    result.checkpoints() < ROUNDS
                            ? ", stopped early (a checkpoint began or a writer closed)"
                            : "");
        } catch (Throwable e) {
            // Whatever it was (an Error too), it ends here: nothing of a job depends on this.
            LOG.info(
                    "deltalite could not warm up the merge (for the sink of {}); the first"
                            + " checkpoint compiles it instead. Nothing of the sink's table was"
                            + " touched.",
                    location,
                    e);
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
        Path directory = Files.createTempDirectory(parent, DIRECTORY_PREFIX);
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
        MergeOptions options =
                sinkOptions
                        .withMaxBufferedBytes(BUFFER_BYTES)
                        .withRowGroupSizeBytes(
                                Math.min(sinkOptions.rowGroupSizeBytes(), ROW_GROUP_BYTES));
        TableDefinition definition =
                new TableDefinition(
                        schema.columns(),
                        schema.primaryKey(),
                        schema.partitionColumns(),
                        deletionVectors ? Map.of("delta.enableDeletionVectors", "true") : Map.of());
        DeltaTable table =
                // file: explicitly, or Hadoop would resolve the path against fs.defaultFS (HDFS)
                DeltaTable.open(location.toUri().toString(), Map.of(), options, definition, true);
        ExecutorService files =
                Executors.newFixedThreadPool(
                        options.maxParallelFiles(),
                        WriterThreads.daemon(WriterThreads.prefix("files", table.location(), 0)));
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
            try {
                // its files are deleted next: let a write in progress end first
                files.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Deletes the warm-up directories under {@code parent} that JVMs which died left behind. */
    static void deleteLeftBehind(Path parent) {
        long before = System.currentTimeMillis() - LEFT_BEHIND.toMillis();
        try (Stream<Path> entries = Files.list(parent)) {
            entries.filter(path -> path.getFileName().toString().startsWith(DIRECTORY_PREFIX))
                    .filter(path -> olderThan(path, before))
                    .forEach(MergeWarmUp::deleteRecursively);
        } catch (IOException | UncheckedIOException e) {
            LOG.debug("Could not look for warm-up directories left in {}", parent, e);
        }
    }

    private static boolean olderThan(Path path, long millis) {
        try {
            return Files.isDirectory(path) && Files.getLastModifiedTime(path).toMillis() < millis;
        } catch (IOException e) {
            return false;
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
