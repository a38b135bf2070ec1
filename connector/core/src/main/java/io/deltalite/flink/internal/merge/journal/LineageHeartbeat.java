package io.deltalite.flink.internal.merge.journal;

import io.deltalite.flink.internal.merge.table.AttemptJournal;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
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
 *
 * <p>A beat that fails (the storage refuses or times out) is tried again after {@link
 * #retryDelay(Duration)}, a small part of the interval, not a whole interval later: a maintenance
 * pass allows for a heartbeat about twice the interval old, and a write that failed must not use up
 * that margin.
 */
public final class LineageHeartbeat {
    private static final Logger LOG = LoggerFactory.getLogger(LineageHeartbeat.class);

    private final AttemptJournal journal;
    private final String tableLocation;
    private final String appId;
    private final String owner;
    private final Duration interval;
    private final Duration retryDelay;
    private ScheduledExecutorService beats;

    /** When the beats started failing, in {@link System#nanoTime()}; 0 while they succeed. */
    private long failingSinceNanos;

    /** When a failure was last logged as a warning, in {@link System#nanoTime()}. */
    private long warnedNanos;

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
        this.retryDelay = retryDelay(interval);
    }

    /**
     * How soon a failed beat is tried again: a sixtieth of the interval, at least a second and at
     * most a minute, never longer than the interval.
     */
    static Duration retryDelay(Duration interval) {
        Duration part = interval.dividedBy(60);
        Duration bounded =
                part.compareTo(Duration.ofSeconds(1)) < 0
                        ? Duration.ofSeconds(1)
                        : part.compareTo(Duration.ofMinutes(1)) > 0 ? Duration.ofMinutes(1) : part;
        return bounded.compareTo(interval) > 0 ? interval : bounded;
    }

    /** Beats now and then every interval, until {@link #stop()}; nothing if already beating. */
    public synchronized void start() {
        if (beats != null) {
            return;
        }
        ScheduledThreadPoolExecutor executor =
                new ScheduledThreadPoolExecutor(
                        1,
                        runnable -> {
                            Thread thread = new Thread(runnable, "deltalite-heartbeat-" + owner);
                            thread.setDaemon(true);
                            return thread;
                        });
        // A stop drops the next beat rather than waiting for it.
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        beats = executor;
        schedule(executor, Duration.ZERO);
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

    private void schedule(ScheduledExecutorService executor, Duration delay) {
        try {
            executor.schedule(
                    () -> beatAndReschedule(executor), delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopped) {
            // stopped meanwhile: no more beats
        }
    }

    private void beatAndReschedule(ScheduledExecutorService executor) {
        schedule(executor, beat() ? interval : retryDelay);
    }

    /** Whether the heartbeat was written. */
    private boolean beat() {
        try {
            journal.beat(appId, owner, interval);
            if (failingSinceNanos != 0) {
                LOG.info(
                        "The heartbeat of {} for app {} in {} is written again after {} s of"
                                + " failures.",
                        owner,
                        appId,
                        tableLocation,
                        (System.nanoTime() - failingSinceNanos) / 1_000_000_000L);
                failingSinceNanos = 0;
            }
            return true;
        } catch (RuntimeException e) {
            long now = System.nanoTime();
            if (failingSinceNanos == 0) {
                failingSinceNanos = now;
            } else if (now - warnedNanos < interval.toNanos()) {
                LOG.debug(
                        "The heartbeat of {} for app {} still fails: {}",
                        owner,
                        appId,
                        e.toString());
                return false;
            }
            warnedNanos = now;
            LOG.warn(
                    "Could not refresh the heartbeat of {} for app {} in {} ({}); retrying every {}."
                            + " Should this last longer than the retention of a maintenance pass"
                            + " (DeltaLiteMaintenance), the pass takes the job for stopped: check"
                            + " that the table location is writable.",
                    owner,
                    appId,
                    tableLocation,
                    e.toString(),
                    retryDelay);
            return false;
        }
    }
}
