package io.deltalite.flink.internal.merge;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Runs per-file work on the shared file executor, which bounds how many files are open at once
 * across all merges of a writer. Without an executor the work runs on the caller's thread.
 */
final class ParallelFileWork {
    private final ExecutorService executor;

    ParallelFileWork(ExecutorService executor) {
        this.executor = executor;
    }

    /**
     * Runs every task and returns their results in order. If one fails, the others are cancelled,
     * {@code cleanup} receives the results of those that succeeded, and the first failure is
     * rethrown.
     */
    <T> List<T> runAll(List<Callable<T>> tasks, Consumer<T> cleanup) {
        if (executor == null || tasks.size() <= 1) {
            return runInline(tasks, cleanup);
        }
        List<Future<T>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> task : tasks) {
            futures.add(executor.submit(task));
        }
        List<T> results = new ArrayList<>(tasks.size());
        RuntimeException failure = null;
        for (Future<T> future : futures) {
            if (failure != null) {
                future.cancel(true);
            }
            try {
                T result = future.get();
                if (failure == null) {
                    results.add(result);
                } else {
                    cleanup.accept(result);
                }
            } catch (CancellationException e) {
                // Cancelled after an earlier failure.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                futures.forEach(f -> f.cancel(true));
                failure = failure == null ? new IllegalStateException("interrupted", e) : failure;
            } catch (ExecutionException e) {
                if (failure == null) {
                    failure = asRuntime(e.getCause());
                    results.forEach(cleanup);
                    results.clear();
                } else {
                    failure.addSuppressed(e.getCause());
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return results;
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
