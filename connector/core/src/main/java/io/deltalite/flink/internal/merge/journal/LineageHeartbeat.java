package io.deltalite.flink.internal.merge.journal;

import io.deltalite.flink.internal.merge.table.AttemptJournal;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proof that a job of a lineage is running: while started, refreshes one owner's heartbeat in
 * the lineage's journal ({@link AttemptJournal#beat}) at once and then every interval, on a thread
 * of its own — not on checkpoints, which a job without input, a batch run or a finished writer do
 * not take, nor on commits, which a job without input does not make. A maintenance pass ({@link
 * DeadLineageCleanup}) takes a lineage with a heartbeat younger than its retention for alive.
 *
 * <p>Each writer subtask beats until its input ends, the committer from its start until the end of
 * the lineage: in a streaming job the committer runs from the start, in a batch run the writers run
 * until the committer starts. A job that stops beating (cancelled, killed, its process gone) leaves
 * a heartbeat that ages like its notes.
 */
public final class LineageHeartbeat {
    private static final Logger LOG = LoggerFactory.getLogger(LineageHeartbeat.class);

    private final AttemptJournal journal;
    private final String tableLocation;
    private final String appId;
    private final String owner;
    private final Duration interval;
    private ScheduledExecutorService beats;

    /**
     * @param owner who beats: {@code w<subtask>} for a writer, {@code c} for the committer
     * @param interval how often the heartbeat is refreshed
     */
    public LineageHeartbeat(
            AttemptJournal journal,
            String tableLocation,
            String appId,
            String owner,
            Duration interval) {
        this.journal = Objects.requireNonNull(journal, "journal");
        this.tableLocation = Objects.requireNonNull(tableLocation, "tableLocation");
        this.appId = Objects.requireNonNull(appId, "appId");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.interval = Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException(
                    "The heartbeat interval must be positive, but is " + interval);
        }
    }

    /** Beats now and then every interval, until {@link #stop()}; nothing if already beating. */
    public synchronized void start() {
        if (beats != null) {
            return;
        }
        beats =
                Executors.newSingleThreadScheduledExecutor(
                        runnable -> {
                            Thread thread = new Thread(runnable, "deltalite-heartbeat-" + owner);
                            thread.setDaemon(true);
                            return thread;
                        });
        beats.scheduleWithFixedDelay(this::beat, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Beats no more; returns once a beat in progress has ended, so that nothing of this owner
     * writes a heartbeat after it returns.
     */
    public void stop() {
        ScheduledExecutorService stopping;
        synchronized (this) {
            stopping = beats;
            beats = null;
        }
        if (stopping == null) {
            return;
        }
        stopping.shutdown();
        try {
            if (!stopping.awaitTermination(1, TimeUnit.MINUTES)) {
                stopping.shutdownNow();
            }
        } catch (InterruptedException e) {
            stopping.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private void beat() {
        try {
            journal.beat(appId, owner, interval);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not refresh the heartbeat of {} for app {} in {} ({}); retrying in {}."
                            + " Should this last longer than the retention of a maintenance pass"
                            + " (DeltaLiteMaintenance), the pass takes the job for stopped: check"
                            + " that the table location is writable.",
                    owner,
                    appId,
                    tableLocation,
                    e.toString(),
                    interval);
        }
    }
}
