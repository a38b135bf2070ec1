package io.deltalite.flink.internal.delta;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps a Delta log file that was not written to its end from being published.
 *
 * <p>Kernel writes a log checkpoint with Parquet's writer inside try-with-resources: if reading the
 * checkpoint's content fails halfway (the previous checkpoint or a commit cannot be read), the
 * writer is closed normally — Parquet writes a valid footer over the rows so far — and the stream's
 * close would publish a checkpoint that silently lacks files; every reader would then see rows
 * vanish, and log cleanup would delete the commits that could rebuild them. If Parquet's own writer
 * fails, the stream is closed without a footer. So each stream of a {@code _delta_log} file keeps
 * one of these, and its close publishes only when {@link #refusal} has nothing to say:
 *
 * <ul>
 *   <li>no write to the stream failed;
 *   <li>the content's source did not stop with an error ({@link #abandon}, called by {@link
 *       GuardedParquetHandler} when the iterator it hands Kernel's writer throws);
 *   <li>a Parquet file ends with the Parquet magic {@code PAR1} (its footer was written).
 * </ul>
 */
final class LogFileGuard {
    private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    /** Paths whose content's source failed while they were being written. */
    private static final Set<String> ABANDONED = ConcurrentHashMap.newKeySet();

    private final String path;
    private final boolean parquet;
    private final byte[] tail = new byte[PARQUET_MAGIC.length];
    private long written;
    private boolean failed;

    LogFileGuard(String path) {
        this.path = path;
        this.parquet = path.endsWith(".parquet");
    }

    /** Whether {@code path} is a file of a Delta log, which readers trust once it exists. */
    static boolean isLogFile(String path) {
        return path.contains("/_delta_log/");
    }

    /** The source of {@code path}'s content failed: whatever was written must not be published. */
    static void abandon(String path) {
        ABANDONED.add(name(path));
    }

    /** Forgets {@code path}'s mark once its write is over. */
    static void forget(String path) {
        ABANDONED.remove(name(path));
    }

    /** Log file names are unique per version; the name survives any rewriting of the path. */
    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    void wrote(int b) {
        shift((byte) b);
    }

    void wrote(byte[] b, int off, int len) {
        for (int i = Math.max(off, off + len - tail.length); i < off + len; i++) {
            shift(b[i]);
        }
        written += len - Math.min(len, tail.length);
    }

    private void shift(byte b) {
        System.arraycopy(tail, 1, tail, 0, tail.length - 1);
        tail[tail.length - 1] = b;
        written++;
    }

    /** A write, flush or close of the stream failed. */
    void failed() {
        failed = true;
    }

    /** Why the file must not be published, or null if it may be. */
    String refusal() {
        if (failed) {
            return "a write to it failed";
        }
        if (ABANDONED.remove(name(path))) {
            return "the content it was written from could not be read to its end";
        }
        if (parquet && (written < tail.length || !java.util.Arrays.equals(tail, PARQUET_MAGIC))) {
            return "it has no Parquet footer (its writer failed)";
        }
        return null;
    }
}
