package io.deltalite.flink.internal.faults;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Points in the sink where tests inject failures and delays, to prove exactly-once under failure: a
 * record being written, a checkpoint prepared (data files written), the commit just before and just
 * after the Delta commit, and a writer starting. Nothing is armed in production; checking a point
 * costs one read of an empty map.
 */
public final class FaultInjection {
    /** Where a fault can be injected. */
    public enum Point {
        /** In the writer, before a record is buffered. */
        WRITE,
        /** In the writer, after the checkpoint's partitions were merged and their files written. */
        PREPARED,
        /** In the committer, before the Delta commit of a checkpoint. */
        BEFORE_COMMIT,
        /** In the committer, after the Delta commit of a checkpoint landed. */
        AFTER_COMMIT,
        /**
         * In a writer's start, after its merge engine opened and before it reads what an earlier
         * start left (a storage outage while a writer restarts).
         */
        WRITER_START
    }

    /** What happens at an armed point; it may throw. */
    @FunctionalInterface
    public interface Action {
        void run(String tableLocation, long occurrence) throws Exception;
    }

    private static final Map<Point, Action> ARMED = new ConcurrentHashMap<>();
    private static final Map<Point, Long> OCCURRENCES = new ConcurrentHashMap<>();

    private FaultInjection() {}

    public static void arm(Point point, Action action) {
        OCCURRENCES.put(point, 0L);
        ARMED.put(point, action);
    }

    public static void disarmAll() {
        ARMED.clear();
        OCCURRENCES.clear();
    }

    public static void at(Point point, String tableLocation) {
        if (ARMED.isEmpty()) {
            return;
        }
        Action action = ARMED.get(point);
        if (action == null) {
            return;
        }
        long occurrence = OCCURRENCES.merge(point, 1L, Long::sum);
        try {
            action.run(tableLocation, occurrence);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
