package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.exceptions.DeltaLiteDamagedTableException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.util.Locale;

/**
 * A data file of the table could not be read while merging: gone, truncated, corrupt, or the
 * storage failed. The engine adds the table version it read ({@link #atVersion}) before the error
 * leaves the checkpoint, so the message names the file, the table, the version and what to do.
 */
public final class UnreadableDataFileException extends DeltaLiteDamagedTableException {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final String location;
    private final String reason;
    private final boolean damaged;

    private UnreadableDataFileException(
            String path,
            String location,
            String reason,
            boolean damaged,
            long version,
            Throwable cause) {
        super(message(path, location, reason, damaged, version), cause);
        this.path = path;
        this.location = location;
        this.reason = reason;
        this.damaged = damaged;
    }

    /** Reading {@code path} of the table at {@code location} failed with {@code cause}. */
    public static UnreadableDataFileException of(String path, String location, Throwable cause) {
        if (cause instanceof UnreadableDataFileException known) {
            return known;
        }
        boolean missing =
                Causes.has(cause, FileNotFoundException.class)
                        && !Causes.rootMessage(cause).contains("Permission denied");
        boolean corrupt = !missing && looksCorrupt(cause);
        String reason =
                missing
                        ? "does not exist"
                        : (corrupt ? "is corrupt (" : "could not be read (")
                                + Causes.rootMessage(cause)
                                + ")";
        return new UnreadableDataFileException(
                path, location, reason, missing || corrupt, -1, cause);
    }

    /** The same failure, naming the table version whose live file it is. */
    public UnreadableDataFileException atVersion(long version) {
        return new UnreadableDataFileException(
                path, location, reason, damaged, version, getCause());
    }

    /** Whether the file itself is gone or broken (not a storage hiccup). */
    public boolean isDamaged() {
        return damaged;
    }

    private static String message(
            String path, String location, String reason, boolean damaged, long version) {
        String file =
                "Data file "
                        + path
                        + " of Delta table "
                        + location
                        + (version >= 0 ? ", live in version " + version + "," : "")
                        + " "
                        + reason
                        + ". Nothing was committed.";
        if (!damaged) {
            return file + " The job retries the checkpoint when it restarts.";
        }
        return file
                + " The table references a file that was deleted (a VACUUM with a retention"
                + " shorter than a writer or reader needed, a manual delete, a bucket lifecycle"
                + " rule) or damaged. Restore the file from a backup; or, accepting that its rows"
                + " are lost, remove it from the table (FSCK REPAIR TABLE on Databricks; elsewhere"
                + " RESTORE TABLE to a version before the file was added, which also undoes later"
                + " changes). The job commits the checkpoint when it restarts after that.";
    }

    private static boolean looksCorrupt(Throwable error) {
        for (Throwable t = error; t != null && t.getCause() != t; t = t.getCause()) {
            String name = t.getClass().getName();
            String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (name.contains("HttpChannel")) {
                return false; // the connection ended early, not the file
            }
            if (t instanceof EOFException
                    || name.startsWith("org.apache.parquet.")
                    || message.contains("not a parquet file")
                    || message.contains("seek after eof")
                    || message.contains("corrupt")) {
                return true;
            }
        }
        return false;
    }
}
