package io.deltalite.flink.internal.merge.writer;

import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a partition's key index — or doubles the table of one that is nearly full — while the
 * writer is still buffering, instead of while a checkpoint barrier waits: as soon as the writer
 * takes its first change for a partition whose next merge would build the index anyway ({@link
 * PartitionMerger#buildsKeyIndexAtNextMerge}), one background thread reads the key columns of the
 * partition's committed files. The merge then finds the index built and only brings it to the files
 * it sees (its own uncommitted results, what was committed since). Without this, the first
 * checkpoint after a start (and, with {@code auto}, a partition's second merge) reads every key
 * column of the partition inside the checkpoint. Likewise an index whose table of locations its
 * next merge would double ({@link PartitionMerger#growsKeyIndexAhead}) is doubled here: every key
 * moved once, a second per 15–20 million keys that a checkpoint of a growing table would otherwise
 * wait for.
 *
 * <p><b>One partition, one thread at a time.</b> Requests come from the writer thread, which calls
 * {@link #awaitAll()} before every merge; no request comes while a merge runs (the same thread
 * makes both). So an index is never built ahead while a merge of its partition uses it.
 *
 * <p><b>Best effort.</b> A build that fails (storage answering badly) is logged and forgotten: the
 * index forgets a half-built partition, and its merge builds it as it would have without this (an
 * {@link Error} is rethrown to the writer). A build ahead never drops another partition's index to
 * make room, and one that does not fit is not tried again until a merge indexed the partition.
 * Nothing here decides what a merge writes.
 */
final class KeyIndexAhead implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KeyIndexAhead.class);
    private static final long CLOSE_WAIT_SECONDS = 30;

    private final MergeTable table;
    private final PartitionMerger merger;
    private final String threadName;

    /** Partitions requested since the last merge; writer thread only. */
    private final Set<PartitionValues> requested = new HashSet<>();

    /** Partitions to build, in request order; drained by the background thread. */
    private final Queue<PartitionValues> queue = new ConcurrentLinkedQueue<>();

    /** Builds submitted since the last {@link #awaitAll()}; writer thread only. */
    private final List<Future<?>> submitted = new ArrayList<>();

    private ExecutorService thread;

    KeyIndexAhead(MergeTable table, PartitionMerger merger, String threadName) {
        this.table = table;
        this.merger = merger;
        this.threadName = threadName;
    }

    /** The writer took its first change for {@code partition} since the partition's last merge. */
    void firstChange(PartitionValues partition) {
        if (!requested.add(partition)) {
            return;
        }
        if (merger.buildsKeyIndexAhead(partition)) {
            queue.add(partition);
            // Each task drains the whole queue with one snapshot; the ones after find it empty.
            submitted.add(thread().submit(this::buildQueued));
        } else if (merger.growsKeyIndexAhead(partition)) {
            submitted.add(thread().submit(() -> grow(partition)));
        }
    }

    private ExecutorService thread() {
        if (thread == null) {
            thread = Executors.newSingleThreadExecutor(WriterThreads.daemon(threadName));
        }
        return thread;
    }

    private void grow(PartitionValues partition) {
        try {
            merger.growKeyIndexAhead(partition);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not grow the key index of partition {} of {} ahead of the checkpoint;"
                            + " its merge grows it instead: {}",
                    partition,
                    table.location(),
                    e.toString());
        }
    }

    /**
     * Waits until every build requested so far has ended; the writer calls it before a merge.
     * Interrupted (the task is cancelled), it stops the builds and throws. A build that died of an
     * {@link Error} rethrows it here: the writer fails as it would have, building in its merge.
     */
    void awaitAll() {
        requested.clear();
        try {
            for (Future<?> build : submitted) {
                try {
                    build.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    // A RuntimeException was logged by the build, and the index forgot the
                    // partition: its merge builds it.
                } catch (CancellationException e) {
                    // Stopped by close(), which the writer does not merge after.
                }
            }
        } catch (InterruptedException e) {
            submitted.forEach(build -> build.cancel(true));
            queue.clear();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(
                    "Interrupted while the key index of "
                            + table.location()
                            + " was built ahead of the checkpoint",
                    e);
        } finally {
            submitted.clear();
        }
    }

    private void buildQueued() {
        if (queue.isEmpty()) {
            return;
        }
        TableSnapshot snapshot;
        try {
            snapshot = table.latestSnapshot();
        } catch (RuntimeException e) {
            queue.clear();
            LOG.warn(
                    "Could not read the latest snapshot of {} to build key indexes ahead of the"
                            + " checkpoint; its merges build them instead: {}",
                    table.location(),
                    e.toString());
            return;
        }
        List<PartitionValues> partitions = new ArrayList<>();
        for (PartitionValues next; (next = queue.poll()) != null; ) {
            partitions.add(next);
        }
        Map<PartitionValues, List<DataFile>> live;
        try {
            live = snapshot.liveFiles(partitions);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not list the files of {} partition(s) of {} to build their key indexes"
                            + " ahead of the checkpoint; their merges build them instead: {}",
                    partitions.size(),
                    table.location(),
                    e.toString());
            return;
        }
        for (PartitionValues partition : partitions) {
            if (Thread.currentThread().isInterrupted()) {
                return; // closing
            }
            try {
                merger.buildKeyIndexAhead(partition, live.getOrDefault(partition, List.of()));
            } catch (RuntimeException e) {
                LOG.warn(
                        "Could not build the key index of partition {} of {} ahead of the"
                                + " checkpoint; its merge builds it instead: {}",
                        partition,
                        table.location(),
                        e.toString());
            }
        }
    }

    /**
     * Stops a build in progress and waits for its thread to end (the writer closes, and then its
     * key index), for at most {@value #CLOSE_WAIT_SECONDS} seconds; a no-op when none ever ran.
     */
    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        thread.shutdownNow();
        boolean ended;
        try {
            ended = thread.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ended = false;
        }
        if (!ended) {
            LOG.warn(
                    "The key index build ahead of the checkpoint of {} did not stop within {} s"
                            + " of the writer closing; it ends with its current file read.",
                    table.location(),
                    CLOSE_WAIT_SECONDS);
        }
    }
}
