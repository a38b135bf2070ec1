package io.deltalite.flink.internal.delta.table;

import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.delta.fileio.ConnectorClassLoader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * Where there is no Delta table yet, checks that the sink may create one there: the location is
 * missing or an empty folder (an empty {@code _delta_log} is fine), not a file, not under a file,
 * and not a folder of someone else's files — which a later {@code VACUUM} of the new table would
 * delete.
 */
final class TableLocationCheck {
    private static final int NAMES_SHOWN = 3;

    private TableLocationCheck() {}

    static void requireCreatable(String location, Configuration hadoopConf) {
        try {
            ConnectorClassLoader.run(() -> check(location, hadoopConf));
        } catch (IOException e) {
            throw new DeltaLiteException(
                    "Cannot check the location "
                            + location
                            + " of the Delta table: "
                            + e.getMessage()
                            + ". Check the path and the storage settings.",
                    e);
        }
    }

    /**
     * After a failed read of the table: the clearer error when the location is a file or lies under
     * one, else empty (and nothing is thrown if the storage cannot be asked either).
     */
    static java.util.Optional<DeltaLiteException> explain(
            String location, Configuration hadoopConf) {
        try {
            ConnectorClassLoader.run(() -> requireNoFile(location, hadoopConf));
            return java.util.Optional.empty();
        } catch (DeltaLiteException e) {
            return java.util.Optional.of(e);
        } catch (IOException | RuntimeException e) {
            return java.util.Optional.empty();
        }
    }

    private static void requireNoFile(String location, Configuration hadoopConf)
            throws IOException {
        Path path = new Path(location);
        FileSystem fs = path.getFileSystem(hadoopConf);
        try {
            if (!fs.getFileStatus(path).isDirectory()) {
                throw isAFile(location);
            }
        } catch (FileNotFoundException e) {
            requireNoFileAbove(fs, path, location);
        }
    }

    private static DeltaLiteException isAFile(String location) {
        return new DeltaLiteException(
                "The table location "
                        + location
                        + " is a file, not a folder. Give the path of a folder: a Delta table is"
                        + " a folder with a _delta_log.");
    }

    private static void check(String location, Configuration hadoopConf) throws IOException {
        Path path = new Path(location);
        FileSystem fs = path.getFileSystem(hadoopConf);
        FileStatus status;
        try {
            status = fs.getFileStatus(path);
        } catch (FileNotFoundException e) {
            requireNoFileAbove(fs, path, location);
            return;
        }
        if (!status.isDirectory()) {
            throw isAFile(location);
        }
        List<String> foreign = new ArrayList<>();
        RemoteIterator<FileStatus> entries = fs.listStatusIterator(path);
        while (entries.hasNext() && foreign.size() < NAMES_SHOWN) {
            String name = entries.next().getPath().getName();
            if (!name.equals("_delta_log") && !name.equals("_deltalite") && !name.startsWith(".")) {
                foreign.add(name);
            }
        }
        if (!foreign.isEmpty()) {
            throw new DeltaLiteException(
                    "The folder "
                            + location
                            + " is not a Delta table (it has no _delta_log with commits) and is"
                            + " not empty: it holds "
                            + String.join(", ", foreign)
                            + (foreign.size() == NAMES_SHOWN ? ", ..." : "")
                            + ". deltalite creates a table only in an empty folder, because the"
                            + " table's VACUUM would delete files it does not know. Choose another"
                            + " path, or move those files away.");
        }
    }

    private static void requireNoFileAbove(FileSystem fs, Path path, String location)
            throws IOException {
        for (Path parent = path.getParent(); parent != null; parent = parent.getParent()) {
            FileStatus status;
            try {
                status = fs.getFileStatus(parent);
            } catch (FileNotFoundException e) {
                continue;
            }
            if (!status.isDirectory()) {
                throw new DeltaLiteException(
                        "The table location "
                                + location
                                + " lies under "
                                + parent
                                + ", which is a file, not a folder. Give a path whose parents are"
                                + " folders.");
            }
            return;
        }
    }
}
