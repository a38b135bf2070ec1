package io.deltalite.flink.internal.delta.fileio;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Why the sink cannot write a table on a local (or locally mounted) file system, found after a
 * write failed: Hadoop's local file system reports a refused {@code mkdirs} as just "failed".
 */
public final class LocalWritability {
    private LocalWritability() {}

    /** A sentence on why {@code location} cannot be written, or empty if nothing is found. */
    public static String explain(String location) {
        if (!LocalDiskFiles.isLocal(location)) {
            return "";
        }
        Path path = Paths.get(new org.apache.hadoop.fs.Path(location).toUri().getPath());
        Path existing = path;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return "";
        }
        try {
            FileStore store = Files.getFileStore(existing);
            if (store.isReadOnly()) {
                return " "
                        + existing
                        + " is on a read-only file system ("
                        + store
                        + "): mount it writable, or choose a path on another one.";
            }
        } catch (IOException e) {
            return "";
        }
        if (!Files.isWritable(existing)) {
            return " "
                    + existing
                    + " is not writable by the user "
                    + System.getProperty("user.name")
                    + " that runs the sink.";
        }
        try {
            long usable = Files.getFileStore(existing).getUsableSpace();
            if (usable < 1024 * 1024) {
                return " The file system of " + existing + " is full (" + usable + " bytes free).";
            }
        } catch (IOException e) {
            return "";
        }
        return "";
    }
}
