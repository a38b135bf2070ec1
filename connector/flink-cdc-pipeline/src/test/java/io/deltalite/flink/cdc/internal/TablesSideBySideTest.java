package io.deltalite.flink.cdc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Many tables' work, a few at a time: results in order, failures reported, nothing left running.
 */
class TablesSideBySideTest {
    @Test
    void resultsComeInTheTablesOrder() throws Exception {
        try (TablesSideBySide tables = new TablesSideBySide(2, "test")) {
            List<Callable<List<Integer>>> work =
                    List.of(
                            () -> slow(30, 1),
                            () -> List.of(2),
                            () -> slow(10, 3),
                            () -> List.of(4));
            assertThat(tables.run(work)).containsExactly(1, 2, 3, 4);
        }
    }

    @Test
    void anErrorOfOneTableIsReportedAsItIsWhateverFailedBefore() {
        try (TablesSideBySide tables = new TablesSideBySide(2, "test")) {
            List<Callable<List<Integer>>> work =
                    List.of(
                            () -> {
                                throw new IllegalStateException("table 1 failed");
                            },
                            () -> {
                                throw new OutOfMemoryError("table 2 ran out");
                            },
                            () -> List.of(3));
            assertThatThrownBy(() -> tables.run(work))
                    .isInstanceOf(OutOfMemoryError.class)
                    .satisfies(
                            error ->
                                    assertThat(error.getSuppressed())
                                            .extracting(Throwable::getMessage)
                                            .containsExactly("table 1 failed"));
        }
    }

    @Test
    void anInterruptedCallerReturnsOnlyAfterEveryTablesWorkEnded() throws Exception {
        CountDownLatch started = new CountDownLatch(2);
        AtomicBoolean stillRunning = new AtomicBoolean();
        Callable<List<Integer>> stubborn =
                () -> {
                    started.countDown();
                    stillRunning.set(true);
                    // Storage calls that ignore interrupts: a sleep that does not end early.
                    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    stillRunning.set(false);
                    return List.of(1);
                };
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean runningWhenReturned = new AtomicBoolean(true);
        try (TablesSideBySide tables = new TablesSideBySide(2, "test")) {
            Thread caller =
                    new Thread(
                            () -> {
                                try {
                                    tables.run(List.of(stubborn, stubborn));
                                } catch (Throwable e) {
                                    thrown.set(e);
                                }
                                runningWhenReturned.set(stillRunning.get());
                            });
            caller.start();
            started.await();
            caller.interrupt();
            caller.join();
        }
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(runningWhenReturned).as("a table's work still running").isFalse();
    }

    private static List<Integer> slow(long millis, int value) throws InterruptedException {
        Thread.sleep(millis);
        return List.of(value);
    }
}
