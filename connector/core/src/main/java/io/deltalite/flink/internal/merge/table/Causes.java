package io.deltalite.flink.internal.merge.table;

/** What a chain of causes says, for error messages and for telling faults apart. */
public final class Causes {
    private Causes() {}

    /** The innermost cause. */
    public static Throwable root(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    /** The innermost cause's message, or its class name when it has none. */
    public static String rootMessage(Throwable error) {
        Throwable root = root(error);
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }

    /** Whether {@code error} or one of its causes is a {@code type}. */
    public static boolean has(Throwable error, Class<? extends Throwable> type) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
