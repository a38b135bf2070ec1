package io.deltalite.flink.internal.delta.fileio;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides whether a file written through a {@link PublishingStream} may be published: only a file
 * written to its end. Readers trust a file of the Delta log once it exists, and a data file is
 * referenced by a commit once its write returns, so half a file must never appear under its name.
 *
 * <p>Kernel writes a log checkpoint with Parquet's writer inside try-with-resources: if reading the
 * checkpoint's content fails halfway (the previous checkpoint or a commit cannot be read), the
 * writer is closed normally — Parquet writes a valid footer over the rows so far — and publishing
 * it would give every reader a checkpoint that silently lacks files, and let log cleanup delete the
 * commits that could rebuild them. If Parquet's own writer fails, the stream is closed without a
 * footer. A file may be published only when {@link #refusal} has nothing to say:
 *
 * <ul>
 *   <li>no write to the stream failed;
 *   <li>the content's source did not stop with an error ({@link #abandon}, called by {@link
 *       GuardedParquetHandler} when the iterator it hands Kernel's writer throws);
 *   <li>a Parquet file of the log ends with its footer: the footer's length and the magic {@code
 *       PAR1}.
 * </ul>
 */
final class PublishGuard {
    private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    /** Files (by {@link #key}) whose content's source failed while they were being written. */
    private static final Set<String> ABANDONED = ConcurrentHashMap.newKeySet();

    private final String path;
    private final boolean parquet;

    /** The last bytes written: a Parquet file ends with its footer's length and the magic. */
    private final byte[] tail = new byte[8];

    private long written;
    private boolean failed;

    PublishGuard(String path) {
        this.path = path;
        // A data file whose writer failed never reaches a commit: the failure reaches the caller,
        // which deletes what it wrote. A log checkpoint is found by its name alone.
        this.parquet = path.endsWith(".parquet") && path.contains("/_delta_log/");
    }

    /** The source of {@code path}'s content failed: whatever was written must not be published. */
    static void abandon(String path) {
        ABANDONED.add(key(path));
    }

    /** Forgets {@code path}'s mark once its write is over. */
    static void forget(String path) {
        ABANDONED.remove(key(path));
    }

    /**
     * The file's location without the spelling of its scheme ({@code /t/x}, {@code file:/t/x} and
     * {@code file:///t/x} are one file; the same name in two tables is two).
     */
    private static String key(String path) {
        java.net.URI uri = new org.apache.hadoop.fs.Path(path).toUri();
        return (uri.getAuthority() == null ? "" : uri.getAuthority()) + uri.getPath();
    }

    void wrote(int b) {
        if (parquet) {
            shift((byte) b);
        }
    }

    void wrote(byte[] b, int off, int len) {
        if (!parquet) {
            return;
        }
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

    /**
     * Whether the bytes end as a Parquet file does: {@code PAR1} (the header), the data and the
     * footer, the footer's length (4 bytes, little-endian) and {@code PAR1} again. A writer that
     * failed before its first row group leaves the header alone, which also ends with the magic.
     */
    private boolean endsWithFooter() {
        if (!Arrays.equals(tail, 4, 8, PARQUET_MAGIC, 0, 4)) {
            return false;
        }
        long footerLength =
                (tail[0] & 0xffL)
                        | (tail[1] & 0xffL) << 8
                        | (tail[2] & 0xffL) << 16
                        | (tail[3] & 0xffL) << 24;
        return footerLength > 0 && footerLength + 12 <= written;
    }

    /** Why the file must not be published, or null if it may be. */
    String refusal() {
        if (failed) {
            return "a write to it failed";
        }
        if (ABANDONED.remove(key(path))) {
            return "the content it was written from could not be read to its end";
        }
        if (parquet && !endsWithFooter()) {
            return "it has no Parquet footer (its writer failed; "
                    + written
                    + " bytes, ending "
                    + java.util.HexFormat.of().formatHex(tail)
                    + ")";
        }
        return null;
    }
}
