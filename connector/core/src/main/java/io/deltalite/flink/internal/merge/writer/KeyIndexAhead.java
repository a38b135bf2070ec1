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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a partition's key index while the writer is still buffering, instead of while a checkpoint
 * barrier waits: as soon as the writer takes its first change for a partition whose next merge
 * would build the index anyway ({@link PartitionMerger#buildsKeyIndexAtNextMerge}), one background
 * thread reads the key columns of the partition's committed files. The merge then finds the index
 * built and only brings it to the files it sees (its own uncommitted results, what was committed
 * since). Without this, the first checkpoint after a start (and, with {@code auto}, a partition's
 * second merge) reads every key column of the partition inside the checkpoint.
 *
 * <p><b>One partition, one thread at a time.</b> Requests come from the writer thread, which calls
 * {@link #awaitAll()} before every merge; no request comes while a merge runs (the same thread
 * makes both). So an index is never built ahead while a merge of its partition uses it.
 *
 * <p><b>Best effort.</b> A build that fails (storage answering badly) is logged and forgotten: the
 * index forgets a half-built partition, and its merge builds it as it would have without this.
 * Nothing here decides what a merge writes.
 */
final class KeyIndexAhead implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KeyIndexAhead.class);

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
        if (!requested.add(partition) || !merger.buildsKeyIndexAtNextMerge(partition)) {
            return;
        }
        if (thread == null) {
            thread = Executors.newSingleThreadExecutor(MergeWriter.daemonThreads(threadName));
        }
        queue.add(partition);
        // Each task drains the whole queue with one snapshot; the ones after find it empty.
        submitted.add(thread.submit(this::buildQueued));
    }

    /** Waits until every build requested so far has ended; the writer calls it before a merge. */
    void awaitAll() {
        requested.clear();
        if (submitted.isEmpty()) {
            return;
        }
        boolean interrupted = false;
        for (Future<?> build : submitted) {
            while (true) {
                try {
                    build.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    break; // logged by the build
                }
            }
        }
        submitted.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
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
        Map<PartitionValues, List<DataFile>> live = snapshot.liveFiles(partitions);
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

    /** Stops a build in progress (the writer closes); a no-op when none ever ran. */
    @Override
    public void close() {
        if (thread != null) {
            thread.shutdownNow();
        }
    }
}
