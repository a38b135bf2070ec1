package io.deltalite.flink.testing;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

/**
 * Holds back the last quarter of a script's records until an injected failure happened and the
 * restarted job completed two checkpoints, so that the failure never comes close to the end of the
 * input, however slow the machine. (A restart right as the input ends meets Flink's own committer
 * refusing a "duplicate committable summary" for the end-of-input checkpoint, FLINK-25920's area —
 * not what the failure tests are about.) The source waits without blocking its task: checkpoints go
 * on. If no failure comes within {@link #MAX_HOLD_MILLIS}, the tail is let go, and the test's own
 * check that the failure was injected fails it.
 */
final class TailAfterRecovery {
    static final long MAX_HOLD_MILLIS = TimeUnit.SECONDS.toMillis(60);

    private static final Map<String, TailAfterRecovery> GATES = new ConcurrentHashMap<>();

    private static final ScheduledExecutorService POLLER =
            Executors.newSingleThreadScheduledExecutor(
                    runnable -> {
                        Thread thread = new Thread(runnable, "tail-after-recovery");
                        thread.setDaemon(true);
                        return thread;
                    });

    private final long tailStart;
    private final AtomicInteger failures;
    private final AtomicLong nextIndex = new AtomicLong();
    private volatile long holdingSince = -1;
    private volatile boolean released;

    private TailAfterRecovery(long records, AtomicInteger failures) {
        this.tailStart = records - records / 4;
        this.failures = failures;
    }

    static void register(String id, long records, AtomicInteger failures) {
        GATES.put(id, new TailAfterRecovery(records, failures));
    }

    /** Called by the source's generator with the index of each record it produces. */
    static void produced(String id, long index) {
        TailAfterRecovery gate = GATES.get(id);
        if (gate != null) {
            gate.nextIndex.set(index + 1);
        }
    }

    /**
     * {@code rate} records per second, holding the tail of gate {@code id}'s script back. Raw
     * types: Flink 1.20's rate limiters take no type parameter, Flink 2's one.
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static RateLimiterStrategy strategy(String id, double rate) {
        return parallelism ->
                new Limiter(id, RateLimiterStrategy.perSecond(rate).createRateLimiter(parallelism));
    }

    /**
     * @param completed the checkpoints completed since the source (re)started, as its rate limiter
     *     counts them: after the failure, those of the restarted job
     */
    private boolean mayGoOn(int completed) {
        if (released || nextIndex.get() < tailStart) {
            return true;
        }
        long now = System.currentTimeMillis();
        if (holdingSince < 0) {
            holdingSince = now;
        }
        released = (failures.get() > 0 && completed >= 2) || now - holdingSince > MAX_HOLD_MILLIS;
        return released;
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final class Limiter implements RateLimiter {
        private final String id;
        private final RateLimiter rate;
        private final AtomicInteger completed = new AtomicInteger();

        Limiter(String id, RateLimiter rate) {
            this.id = id;
            this.rate = rate;
        }

        @Override
        public CompletionStage<Void> acquire() {
            TailAfterRecovery gate = GATES.get(id);
            if (gate == null || gate.mayGoOn(completed.get())) {
                return rate.acquire();
            }
            CompletableFuture<Void> open = new CompletableFuture<>();
            poll(gate, open, completed);
            return open.thenCompose(unused -> (CompletionStage<Void>) rate.acquire());
        }

        // Flink 2's interface also asks for permits in bulk; Flink 1.20's has no such method.
        public CompletionStage<Void> acquire(int permits) {
            return acquire();
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            completed.incrementAndGet();
            rate.notifyCheckpointComplete(checkpointId);
        }

        private static void poll(
                TailAfterRecovery gate, CompletableFuture<Void> open, AtomicInteger completed) {
            POLLER.schedule(
                    () -> {
                        if (gate.mayGoOn(completed.get())) {
                            open.complete(null);
                        } else {
                            poll(gate, open, completed);
                        }
                    },
                    50,
                    TimeUnit.MILLISECONDS);
        }
    }
}
