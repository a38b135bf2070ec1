package io.deltalite.flink.internal.merge.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Runs per-file work on the shared file executor, which bounds how many files are open at once
 * across all merges of a writer. Without an executor the work runs on the caller's thread.
 */
public final class ParallelFileWork {
    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int ABANDONED = 2;

    private final ExecutorService executor;

    public ParallelFileWork(ExecutorService executor) {
        this.executor = executor;
    }

    /**
     * Runs every task and returns their results in order. If one fails (or the caller is
     * interrupted), the others are cancelled, and every result produced — also by a task that
     * completes after its cancellation — goes to {@code cleanup} before the first failure is
     * rethrown: nothing a task wrote is left behind unseen.
     */
    public <T> List<T> runAll(List<Callable<T>> tasks, Consumer<T> cleanup) {
        if (executor == null || tasks.size() <= 1) {
            return runInline(tasks, cleanup);
        }
        Queue<T> produced = new ConcurrentLinkedQueue<>();
        CountDownLatch finished = new CountDownLatch(tasks.size());
        List<AtomicInteger> states = new ArrayList<>(tasks.size());
        List<Future<T>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> task : tasks) {
            AtomicInteger state = new AtomicInteger(QUEUED);
            states.add(state);
            futures.add(
                    executor.submit(
                            () -> {
                                if (!state.compareAndSet(QUEUED, RUNNING)) {
                                    return null; // abandoned before it started
                                }
                                try {
                                    T result = task.call();
                                    produced.add(result);
                                    return result;
                                } finally {
                                    finished.countDown();
                                }
                            }));
        }
        List<T> results = new ArrayList<>(tasks.size());
        Throwable failure = null;
        boolean interrupted = false;
        for (Future<T> future : futures) {
            try {
                results.add(future.get());
            } catch (InterruptedException e) {
                interrupted = true;
                failure = new IllegalStateException("interrupted while files were merged", e);
                break;
            } catch (ExecutionException e) {
                // An Error too: the other tasks are stopped before it goes on, so that none of
                // them still writes into what the caller drops or retries.
                failure = e.getCause();
                break;
            }
        }
        if (failure == null) {
            return results;
        }
        interrupted |= Thread.interrupted();
        for (AtomicInteger state : states) {
            if (state.compareAndSet(QUEUED, ABANDONED)) {
                finished.countDown(); // it will never run
            }
        }
        futures.forEach(future -> future.cancel(true));
        // Cancelled tasks that were running still finish (most at their next interruptible
        // call); what they produced is cleaned up once they did.
        awaitUninterruptibly(finished);
        produced.forEach(cleanup);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        throw asRuntime(failure);
    }

    /** Waits for the tasks that were started to finish, for at most a minute. */
    private static void awaitUninterruptibly(CountDownLatch finished) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        boolean interrupted = false;
        while (true) {
            try {
                finished.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static <T> List<T> runInline(List<Callable<T>> tasks, Consumer<T> cleanup) {
        List<T> results = new ArrayList<>(tasks.size());
        for (Callable<T> task : tasks) {
            try {
                results.add(task.call());
            } catch (Exception e) {
                results.forEach(cleanup);
                throw asRuntime(e);
            }
        }
        return results;
    }

    private static RuntimeException asRuntime(Throwable error) {
        if (error instanceof RuntimeException runtime) {
            return runtime;
        }
        if (error instanceof Error fatal) {
            throw fatal;
        }
        return new IllegalStateException(error.getMessage(), error);
    }
}
