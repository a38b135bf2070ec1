package io.deltalite.flink.internal.merge.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Parallel work that is interrupted (a task being cancelled) or fails cleans up everything its
 * tasks produced — also what a task finishes after its cancellation — and does not wait for tasks
 * that never started.
 */
class ParallelFileWorkTest {
    private final ExecutorService executor = Executors.newFixedThreadPool(1);

    @AfterEach
    void shutDown() {
        executor.shutdownNow();
    }

    @Test
    void anInterruptedCallerCleansUpWhatTasksProducedAfterTheCancellation() throws Exception {
        ConcurrentLinkedQueue<String> cleaned = new ConcurrentLinkedQueue<>();
        CountDownLatch taskStarted = new CountDownLatch(1);
        // Runs until its cancellation interrupts it, swallows that interrupt like a writer that
        // ignores it, and finishes anyway. Waiting for the events rather than for fixed delays
        // keeps the order of start, interrupt, cancellation and finish on a loaded machine.
        Callable<String> finishesAnyway =
                () -> {
                    taskStarted.countDown();
                    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (!Thread.interrupted() && System.nanoTime() < giveUp) {
                        Thread.onSpinWait();
                    }
                    return "written after the cancellation";
                };
        Callable<String> neverStarts = () -> "never written";
        Thread caller = Thread.currentThread();
        Thread interrupter =
                new Thread(
                        () -> {
                            try {
                                // Only a task that has started produces something to clean up.
                                taskStarted.await();
                            } catch (InterruptedException e) {
                                return;
                            }
                            caller.interrupt();
                        });
        interrupter.start();
        long started = System.nanoTime();

        assertThatThrownBy(
                        () ->
                                new ParallelFileWork(executor)
                                        .runAll(List.of(finishesAnyway, neverStarts), cleaned::add))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("interrupted");

        assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(10_000);
        assertThat(cleaned).containsExactly("written after the cancellation");
        interrupter.join();
    }

    @Test
    void aFailedTaskCleansUpTheResultsOfTheOthers() {
        ConcurrentLinkedQueue<String> cleaned = new ConcurrentLinkedQueue<>();
        Callable<String> succeeds = () -> "kept until the failure";
        Callable<String> fails =
                () -> {
                    throw new IllegalArgumentException("broken file");
                };

        assertThatThrownBy(
                        () ->
                                new ParallelFileWork(executor)
                                        .runAll(List.of(succeeds, fails), cleaned::add))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("broken file");
        assertThat(cleaned).containsExactly("kept until the failure");
    }

    /**
     * An Error (a heap running out while a key index grows) stops the other tasks and waits for
     * them before it goes on, as any failure does: none of them still writes into what the caller
     * drops (a half-built index it forgets) or builds again.
     */
    @Test
    void anErrorInOneTaskStopsAndAwaitsTheOthersBeforeItIsRethrown() {
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            ConcurrentLinkedQueue<String> cleaned = new ConcurrentLinkedQueue<>();
            CountDownLatch otherStarted = new CountDownLatch(1);
            Callable<String> dies =
                    () -> {
                        otherStarted.await();
                        throw new OutOfMemoryError("simulated: the index outgrew the heap");
                    };
            Callable<String> runsUntilStopped =
                    () -> {
                        otherStarted.countDown();
                        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (!Thread.interrupted() && System.nanoTime() < giveUp) {
                            Thread.onSpinWait();
                        }
                        return "stopped";
                    };
            long started = System.nanoTime();

            assertThatThrownBy(
                            () ->
                                    new ParallelFileWork(two)
                                            .runAll(List.of(dies, runsUntilStopped), cleaned::add))
                    .isInstanceOf(OutOfMemoryError.class)
                    .hasMessageContaining("simulated");

            assertThat(cleaned)
                    .as("the other task ended before the Error went on")
                    .containsExactly("stopped");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
                    .as("stopped, not run to its end")
                    .isLessThan(10_000);
        } finally {
            two.shutdownNow();
        }
    }
}
