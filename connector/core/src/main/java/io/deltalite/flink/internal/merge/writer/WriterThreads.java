package io.deltalite.flink.internal.merge.writer;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Names the threads a sink starts, so that a thread dump of a slow checkpoint says whose work each
 * thread does: {@code deltalite-<role>-<table>-<subtask>-<n>}, where {@code <table>} is the last
 * folder of the table's location. Two sinks in one TaskManager (a whole-database sync, or the
 * warm-up's throwaway table beside a real one) therefore never share a name.
 */
public final class WriterThreads {
    private static final int MAX_TABLE_NAME = 40;

    private WriterThreads() {}

    /** The name prefix of a writer's threads of one role, such as {@code files}. */
    public static String prefix(String role, String tableLocation, int subtask) {
        return "deltalite-" + role + "-" + tableName(tableLocation) + "-" + subtask;
    }

    /** The name prefix of a table's threads of one role that serve all its writers. */
    public static String prefix(String role, String tableLocation) {
        return "deltalite-" + role + "-" + tableName(tableLocation);
    }

    /** Daemon threads named {@code prefix-1}, {@code prefix-2}, ... */
    public static ThreadFactory daemon(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * The last folder of a table's location ({@code orders} of {@code s3a://bucket/lake/orders/}),
     * at most {@value #MAX_TABLE_NAME} characters; {@code table} when the location has none.
     */
    static String tableName(String location) {
        String path = location;
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        String name = path.substring(path.lastIndexOf('/') + 1);
        int scheme = name.indexOf(':');
        if (scheme >= 0) {
            name = name.substring(scheme + 1);
        }
        if (name.isEmpty()) {
            return "table";
        }
        return name.length() <= MAX_TABLE_NAME ? name : name.substring(0, MAX_TABLE_NAME);
    }
}
