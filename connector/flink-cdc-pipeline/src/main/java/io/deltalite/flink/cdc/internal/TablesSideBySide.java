package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.internal.merge.writer.WriterThreads;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the work of many tables a few at a time — a pipeline writer's merges at a checkpoint, its
 * committer's commits — so that a checkpoint of many tables does not take the sum of their storage
 * waits. Each table's work is one task, so a table's writer or committer is used by one thread at a
 * time; the caller's thread sees everything the tasks did once {@link #run} returns.
 *
 * <p>{@link #run} returns only when every task has ended: when one fails the others still run to
 * their end (a table's commit is not cut short by another's failure); when the caller is
 * interrupted every task is interrupted and waited for (a minute at most; a task still running
 * after that keeps the pool, and the next {@link #run} refuses to start). It rethrows the failure
 * that matters most: an {@link Error} as it is (Flink treats an OutOfMemoryError as fatal), else
 * the first, the others suppressed in it. One thread calls {@link #run} and {@link #close} (the
 * Flink task's).
 */
final class TablesSideBySide implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TablesSideBySide.class);

    private final int atOnce;
    private final String threads;

    /** Started when there are two tables' work to run. */
    private ExecutorService pool;

    /**
     * @param atOnce how many tables' work runs at once
     * @param threads the name of the threads
     */
    TablesSideBySide(int atOnce, String threads) {
        this.atOnce = atOnce;
        this.threads = threads;
    }

    /** Runs {@code work}, one task per table, and returns what they gave in their order. */
    <T> List<T> run(List<Callable<List<T>>> work) throws IOException, InterruptedException {
        List<T> all = new ArrayList<>();
        if (work.size() <= 1) {
            for (Callable<List<T>> table : work) {
                try {
                    all.addAll(table.call());
                } catch (Exception e) {
                    throw rethrown(e);
                }
            }
            return all;
        }
        if (pool != null && pool.isShutdown()) {
            stop(); // a task of an interrupted run that would not stop
            if (pool != null) {
                throw new IllegalStateException(
                        threads + ": a table's earlier work still runs; not starting more.");
            }
        }
        if (pool == null) {
            pool = Executors.newFixedThreadPool(atOnce, WriterThreads.daemon(threads));
        }
        List<Future<List<T>>> running = new ArrayList<>();
        for (Callable<List<T>> table : work) {
            running.add(pool.submit(table));
        }
        Throwable failure = null;
        for (Future<List<T>> result : running) {
            try {
                all.addAll(result.get());
            } catch (ExecutionException e) {
                failure = worse(failure, e.getCause());
            } catch (InterruptedException e) {
                // Every table's work stops, and has stopped, before the caller goes on.
                stop();
                Thread.currentThread().interrupt();
                for (Future<List<T>> other : running) {
                    failure = worse(failure, failureOf(other));
                }
                if (failure instanceof Error error) {
                    throw error;
                }
                if (failure != null) {
                    e.addSuppressed(failure);
                }
                throw e;
            }
        }
        if (failure != null) {
            throw rethrown(failure);
        }
        return all;
    }

    /** The failure of a task that ended, or null (it succeeded, was cancelled, or still runs). */
    private static Throwable failureOf(Future<?> task) {
        if (!task.isDone() || task.isCancelled()) {
            return null;
        }
        try {
            task.get(0, TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return null;
        }
    }

    /** The failure to report of {@code first} and {@code next}: an Error first. */
    private static Throwable worse(Throwable first, Throwable next) {
        if (next == null) {
            return first;
        }
        if (first == null) {
            return next;
        }
        if (next == first) {
            return first;
        }
        if (next instanceof Error && !(first instanceof Error)) {
            next.addSuppressed(first);
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    private static RuntimeException rethrown(Throwable failure)
            throws IOException, InterruptedException {
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof InterruptedException interrupted) {
            throw interrupted;
        }
        if (failure instanceof RuntimeException runtime) {
            return runtime;
        }
        return new IllegalStateException(failure);
    }

    /** Stops the threads, waiting a minute at most for a task that ignores its interrupt. */
    @Override
    public void close() {
        stop();
    }

    /** Interrupts the tasks and waits for their threads to end (a minute at most). */
    private void stop() {
        if (pool == null) {
            return;
        }
        pool.shutdownNow();
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (!pool.isTerminated() && System.nanoTime() < deadline) {
            try {
                pool.awaitTermination(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (pool.isTerminated()) {
            pool = null;
        } else {
            LOG.error(
                    "{}: a table's work did not stop within a minute of its interrupt; its thread"
                            + " keeps the pool, and no more work starts on it.",
                    threads);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
