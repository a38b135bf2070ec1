package io.deltalite.flink.internal.faults;

import java.io.IOException;

/**
 * Where tests inject storage faults into a table's file access, to prove that the commit protocol
 * survives them: a commit file that lands and then reports an error (an unknown outcome), a read of
 * a data file, a write of a data file. Nothing is armed in production; each call costs one read of
 * a volatile field.
 */
public final class StorageFaults {
    /** What the file access is doing. */
    public enum Operation {
        /** Publishing a commit file {@code _delta_log/<version>.json}. */
        WRITE_COMMIT_FILE,
        /** Creating a data file (or any other file outside {@code _delta_log}). */
        WRITE_FILE,
        /** Opening a file to read it. */
        READ_FILE
    }

    /** What happens at an operation; it may throw to fail it. */
    @FunctionalInterface
    public interface Fault {
        /**
         * @param done false just before the operation, true just after it succeeded
         */
        void at(Operation operation, String path, boolean done) throws IOException;
    }

    private static volatile Fault armed;

    private StorageFaults() {}

    public static void arm(Fault fault) {
        armed = fault;
    }

    public static void disarm() {
        armed = null;
    }

    /** Whether a fault is armed: file access opened while none is armed is not watched. */
    public static boolean isArmed() {
        return armed != null;
    }

    public static void at(Operation operation, String path, boolean done) throws IOException {
        Fault fault = armed;
        if (fault != null) {
            fault.at(operation, path, done);
        }
    }
}
