package io.deltalite.flink.internal.merge;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine side of one sink writer: it buffers changes, merges them partition by partition, and
 * remembers what it merged until the table shows it committed.
 *
 * <p>Each merge plans against a <em>view</em> of the partition: the latest committed snapshot, plus
 * the results of earlier checkpoints that are not committed yet (a commit is late or being
 * retried), plus the results of earlier merges of the current checkpoint (when the buffer ran over
 * its budget and was merged early). So a key written in checkpoint N and updated in N+1 ends up as
 * exactly one row, whatever the timing of N's commit.
 *
 * <p>Not thread-safe: one writer thread calls it. Partition merges run on an internal pool of
 * {@code maxParallelPartitions} threads.
 */
public final class MergeWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MergeWriter.class);

    private final MergeTable table;
    private final MergeOptions options;
    private final String appId;
    private final PartitionMerger merger;
    private final ChangeBuffer buffer;
    private final ExecutorService partitionPool;
    private final int subtask;

    /** Results of prepared checkpoints not yet seen committed, by checkpoint id. */
    private final TreeMap<Long, CheckpointResults> pending = new TreeMap<>();

    /** Results of the current checkpoint so far (early merges). */
    private final Map<PartitionValues, PartitionWriteResult> current = new LinkedHashMap<>();

    private List<PartitionWriteResult> lastPrepared = List.of();

    public MergeWriter(
            MergeTable table,
            MergeOptions options,
            String appId,
            int maxParallelPartitions,
            ExecutorService fileExecutor) {
        this(table, options, appId, 0, maxParallelPartitions, fileExecutor);
    }

    /**
     * @param subtask the writer's index among the sink's writers, which names its journal entries
     */
    public MergeWriter(
            MergeTable table,
            MergeOptions options,
            String appId,
            int subtask,
            int maxParallelPartitions,
            ExecutorService fileExecutor) {
        this.subtask = subtask;
        this.table = table;
        this.options = options;
        this.appId = appId;
        this.merger = new PartitionMerger(table, options, fileExecutor);
        this.buffer = new ChangeBuffer(table, options.nullKeyPolicy(), options.maxBufferedBytes());
        this.partitionPool =
                maxParallelPartitions > 1
                        ? Executors.newFixedThreadPool(
                                maxParallelPartitions, daemonThreads("deltalite-partition-merge"))
                        : null;
    }

    public void upsert(Object[] row) {
        buffer.upsert(row);
        mergeEarlyIfOverBudget();
    }

    public void delete(Object[] row) {
        buffer.delete(row);
        mergeEarlyIfOverBudget();
    }

    public long bufferedBytes() {
        return buffer.estimatedBytes();
    }

    private void mergeEarlyIfOverBudget() {
        if (buffer.estimatedBytes() <= options.maxBufferedBytes()) {
            return;
        }
        Map<PartitionValues, PartitionChanges> largest =
                buffer.drainLargestUntil(options.maxBufferedBytes() / 2);
        LOG.info(
                "Change buffer of table {} is over its budget of {} bytes; merging {} partition(s)"
                        + " early. Their results stay pending until the checkpoint.",
                table.location(),
                options.maxBufferedBytes(),
                largest.size());
        merge(largest);
    }

    /**
     * Merges everything buffered and returns the results of the checkpoint being prepared: one per
     * partition changed since the previous checkpoint.
     */
    public List<PartitionWriteResult> prepare() {
        merge(buffer.drainAll());
        List<PartitionWriteResult> results = new ArrayList<>(current.values());
        current.clear();
        lastPrepared = results;
        return results;
    }

    /** Records that the results of the last {@link #prepare()} belong to {@code checkpointId}. */
    public void prepared(long checkpointId) {
        if (!lastPrepared.isEmpty()) {
            List<String> files = new ArrayList<>();
            lastPrepared.forEach(
                    result -> result.addedFiles().forEach(file -> files.add(file.path())));
            // Noted before the checkpoint can complete: if it never does, the files can be found.
            table.journal().record(new AttemptJournal.Entry(appId, checkpointId, subtask, files));
            pending.put(checkpointId, new CheckpointResults(appId, checkpointId, lastPrepared));
        }
        lastPrepared = List.of();
    }

    /**
     * After a restore from checkpoint {@code restoredCheckpointId}: deletes the files of
     * checkpoints that writers of an earlier attempt prepared after it and that never completed —
     * no one can commit them any more — and forgets journal entries of committed checkpoints. Only
     * one writer of a job does this, while the job starts and before it takes a checkpoint.
     *
     * @param appIds the application ids whose entries to look at (this job's and those of the
     *     restored state)
     * @return the number of files deleted
     */
    public int cleanUpAfterRestore(long restoredCheckpointId, Collection<String> appIds) {
        TableSnapshot snapshot = table.latestSnapshot();
        int deleted = 0;
        for (String id : new LinkedHashSet<>(appIds)) {
            OptionalLong committed = snapshot.committedCheckpoint(id);
            for (AttemptJournal.Entry entry : table.journal().entries(id)) {
                boolean isCommitted =
                        committed.isPresent() && committed.getAsLong() >= entry.checkpointId();
                if (!isCommitted && entry.checkpointId() > restoredCheckpointId) {
                    Set<String> live = snapshot.livePaths(entry.files());
                    for (String path : entry.files()) {
                        if (!live.contains(path)) {
                            table.files().deleteUncommitted(DataFile.atPath(path));
                            deleted++;
                        }
                    }
                    table.journal().remove(entry);
                } else if (isCommitted) {
                    table.journal().remove(entry);
                }
            }
        }
        if (deleted > 0) {
            LOG.info(
                    "Deleted {} data file(s) of checkpoints after {} that never completed, in {}.",
                    deleted,
                    restoredCheckpointId,
                    table.location());
        }
        return deleted;
    }

    /** Results of prepared checkpoints that the table did not show committed yet. */
    public List<CheckpointResults> pending() {
        return new ArrayList<>(pending.values());
    }

    /** After a restore: results of checkpoints that may still be committed. */
    public void restorePending(List<CheckpointResults> restored) {
        restored.forEach(results -> pending.put(results.checkpointId(), results));
    }

    public String appId() {
        return appId;
    }

    private void merge(Map<PartitionValues, PartitionChanges> changes) {
        if (changes.isEmpty()) {
            return;
        }
        TableSnapshot snapshot = table.latestSnapshot();
        dropCommitted(snapshot);
        Map<PartitionValues, List<DataFile>> live = snapshot.liveFiles(changes.keySet());
        List<Callable<PartitionWriteResult>> merges = new ArrayList<>();
        for (PartitionChanges partitionChanges : changes.values()) {
            PartitionValues partition = partitionChanges.partition();
            View view = view(partition, live.getOrDefault(partition, List.of()));
            merges.add(() -> merger.merge(partitionChanges, view.files, view.freshPaths));
        }
        for (PartitionWriteResult result : runAll(merges)) {
            PartitionWriteResult earlier = current.get(result.partition());
            if (earlier == null) {
                current.put(result.partition(), result);
            } else {
                earlier.filesReplacedBy(result).forEach(table.files()::deleteUncommitted);
                current.put(result.partition(), earlier.then(result));
            }
        }
    }

    /** Forgets results the table shows committed (each under the app id it was prepared for). */
    private void dropCommitted(TableSnapshot snapshot) {
        Map<String, OptionalLong> committed = new HashMap<>();
        pending.values()
                .removeIf(
                        results -> {
                            OptionalLong version =
                                    committed.computeIfAbsent(
                                            results.appId(), snapshot::committedCheckpoint);
                            boolean done =
                                    version.isPresent()
                                            && version.getAsLong() >= results.checkpointId();
                            if (done) {
                                table.journal()
                                        .remove(
                                                new AttemptJournal.Entry(
                                                        results.appId(),
                                                        results.checkpointId(),
                                                        subtask,
                                                        List.of()));
                            }
                            return done;
                        });
    }

    /** The partition as this writer sees it: committed files, then its own uncommitted results. */
    private View view(PartitionValues partition, List<DataFile> committed) {
        Map<String, DataFile> files = new LinkedHashMap<>();
        committed.forEach(file -> files.put(file.path(), file));
        for (CheckpointResults checkpoint : pending.values()) {
            for (PartitionWriteResult result : checkpoint.results()) {
                if (result.partition().equals(partition)) {
                    apply(result, files);
                }
            }
        }
        Set<String> fresh = new HashSet<>();
        PartitionWriteResult earlier = current.get(partition);
        if (earlier != null) {
            apply(earlier, files);
            earlier.upsertFiles().forEach(file -> fresh.add(file.path()));
        }
        return new View(new ArrayList<>(files.values()), fresh);
    }

    private static void apply(PartitionWriteResult result, Map<String, DataFile> files) {
        result.removedFiles().forEach(file -> files.remove(file.path()));
        result.addedFiles().forEach(file -> files.put(file.path(), file));
    }

    private List<PartitionWriteResult> runAll(List<Callable<PartitionWriteResult>> merges) {
        List<PartitionWriteResult> results = new ArrayList<>(merges.size());
        if (partitionPool == null || merges.size() == 1) {
            try {
                for (Callable<PartitionWriteResult> merge : merges) {
                    results.add(merge.call());
                }
            } catch (Exception e) {
                discard(results);
                throw rethrow(e);
            }
            return results;
        }
        List<Future<PartitionWriteResult>> futures = new ArrayList<>();
        merges.forEach(merge -> futures.add(partitionPool.submit(merge)));
        RuntimeException failure = null;
        for (Future<PartitionWriteResult> future : futures) {
            try {
                results.add(future.get());
            } catch (Exception e) {
                Throwable cause =
                        e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
                if (failure == null) {
                    failure = rethrow(cause);
                } else {
                    failure.addSuppressed(cause);
                }
            }
        }
        if (failure != null) {
            discard(results);
            throw failure;
        }
        return results;
    }

    /** Deletes the files of results that will never be committed. */
    private void discard(List<PartitionWriteResult> results) {
        for (PartitionWriteResult result : results) {
            result.addedFiles().forEach(table.files()::deleteUncommitted);
        }
    }

    private static RuntimeException rethrow(Throwable error) {
        if (error instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        if (error instanceof RuntimeException runtime) {
            return runtime;
        }
        if (error instanceof Error fatal) {
            throw fatal;
        }
        return new IllegalStateException(error.getMessage(), error);
    }

    static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Deletes the files of results that no checkpoint can hold any more: merges of the checkpoint
     * in progress, and the last prepared results if no checkpoint took them ({@link
     * #prepared(long)} was not called). For a writer that stops before the end of its input: after
     * a failure, its restored state holds everything that may still be committed.
     */
    public void discardUncommittable() {
        discard(new ArrayList<>(current.values()));
        current.clear();
        discard(lastPrepared);
        lastPrepared = List.of();
    }

    @Override
    public void close() {
        if (partitionPool != null) {
            partitionPool.shutdownNow();
        }
    }

    private record View(List<DataFile> files, Set<String> freshPaths) {}
}
