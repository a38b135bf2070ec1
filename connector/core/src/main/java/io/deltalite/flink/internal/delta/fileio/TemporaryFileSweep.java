package io.deltalite.flink.internal.delta.fileio;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the hidden temporary files that writers which died mid-write left where {@link
 * RenamingFileIO} publishes files by name: the table's {@code _delta_log} and everything under its
 * {@code _deltalite}. Only names of {@link RenamingFileIO#TEMPORARY_NAME}'s form, and only once
 * they are older than {@link #SAFE_AGE} — no write of one file takes that long, and a write whose
 * temporary file is deleted under it fails to publish and is tried again, so nothing is lost either
 * way. Data files are never temporary (a dead writer's one is unreferenced, and {@code VACUUM}'s).
 *
 * <p>Runs whenever the sink opens a table on a local file system or HDFS; a sweep that fails is
 * logged and does not stop the sink.
 */
public final class TemporaryFileSweep {
    private static final Logger LOG = LoggerFactory.getLogger(TemporaryFileSweep.class);

    /** How old a temporary file must be before it is taken for a dead writer's. */
    static final Duration SAFE_AGE = Duration.ofHours(1);

    private TemporaryFileSweep() {}

    /**
     * Deletes the temporary files under {@code tablePath} last modified before {@code nowMillis}
     * minus {@link #SAFE_AGE}; returns their paths.
     */
    public static List<String> sweep(String tablePath, Configuration hadoopConf, long nowMillis) {
        List<String> deleted = new ArrayList<>();
        long before = nowMillis - SAFE_AGE.toMillis();
        Path table = new Path(tablePath);
        try {
            ConnectorClassLoader.run(
                    () -> {
                        FileSystem fs = table.getFileSystem(hadoopConf);
                        sweep(fs, new Path(table, "_delta_log"), false, before, deleted);
                        sweep(fs, new Path(table, "_deltalite"), true, before, deleted);
                    });
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "Could not look for temporary files that stopped writers left in the Delta"
                            + " table {} ({}); they stay until the next start.",
                    tablePath,
                    e.toString());
        }
        return deleted;
    }

    /**
     * Sweeps {@code folder}, and its subfolders when {@code recursive}. Listed by {@link
     * FileSystem#listStatus}, which on a local file system loads no permissions (the recursive
     * {@code listFiles} runs {@code ls} per file there, and fails on a file that vanished since the
     * folder was listed): a file or folder that vanishes meanwhile — a writer published it, another
     * sweep deleted it — is skipped.
     */
    private static void sweep(
            FileSystem fs, Path folder, boolean recursive, long before, List<String> deleted)
            throws IOException {
        FileStatus[] files;
        try {
            files = fs.listStatus(folder);
        } catch (FileNotFoundException e) {
            return; // no such folder (yet), or it went before it was listed
        }
        for (FileStatus file : files) {
            if (file.isDirectory()) {
                if (recursive) {
                    sweep(fs, file.getPath(), true, before, deleted);
                }
            } else if (file.getModificationTime() < before
                    && RenamingFileIO.TEMPORARY_NAME.matcher(file.getPath().getName()).matches()
                    // false when it vanished since the listing
                    && fs.delete(file.getPath(), false)) {
                deleted.add(file.getPath().toString());
                LOG.info(
                        "Deleted {}, the temporary file of a write that never finished"
                                + " (last modified {}).",
                        file.getPath(),
                        java.time.Instant.ofEpochMilli(file.getModificationTime()));
            }
        }
    }
}
