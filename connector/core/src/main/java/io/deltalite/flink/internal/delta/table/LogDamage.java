package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.deltalite.flink.exceptions.DeltaLiteDamagedTableException;
import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.delta.fileio.LogFiles;
import io.deltalite.flink.internal.delta.kernel.KernelIterators;
import io.deltalite.flink.internal.merge.table.Causes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Explains a failed read of a table's Delta log: which version's file is damaged or missing, so
 * that the error names it. Runs only after Kernel failed to load a snapshot; it reads the commit
 * files Kernel would have read (those after the newest log checkpoint) once more, with Kernel's own
 * JSON parser.
 */
final class LogDamage {
    private static final StructType ANY_ACTION =
            new StructType()
                    .add("protocol", new StructType().add("minReaderVersion", IntegerType.INTEGER));

    private LogDamage() {}

    /**
     * The error for {@code failure}, a failed load of the table at {@code location}, or empty if
     * the log looks intact (the failure is then not the log's).
     */
    static Optional<DeltaLiteException> explain(
            String location, String tablePath, Engine engine, FileIO io, RuntimeException failure) {
        String log = tablePath + "/_delta_log/";
        // _last_checkpoint before the listing: a checkpoint written in between is then listed.
        long named = lastCheckpointVersion(log, io);
        List<FileStatus> commits = new ArrayList<>();
        long newestCheckpoint = -1;
        try (CloseableIterator<FileStatus> files = io.listFrom(log + String.format("%020d", 0))) {
            while (files.hasNext()) {
                FileStatus file = files.next();
                String name = file.getPath().substring(file.getPath().lastIndexOf('/') + 1);
                if (LogFiles.isCommitFile(file.getPath())) {
                    commits.add(file);
                } else if (name.matches("\\d{20}\\.checkpoint.*\\.parquet")) {
                    newestCheckpoint =
                            Math.max(newestCheckpoint, Long.parseLong(name.substring(0, 20)));
                }
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // cannot list the log either: the storage's error says more
        }
        Optional<Long> missing =
                named >= 0 && named > newestCheckpoint ? Optional.of(named) : Optional.empty();
        if (missing.isPresent()) {
            return Optional.of(
                    damaged(
                            location,
                            "its _last_checkpoint names a log checkpoint at version "
                                    + missing.get()
                                    + " whose file is missing",
                            failure));
        }
        for (FileStatus commit : commits) {
            long version = LogFiles.commitVersion(commit.getPath()).getAsLong();
            if (version <= newestCheckpoint) {
                continue;
            }
            try (CloseableIterator<ColumnarBatch> batches =
                    engine.getJsonHandler()
                            .readJsonFiles(
                                    KernelIterators.of(List.of(commit).iterator()),
                                    ANY_ACTION,
                                    Optional.empty())) {
                while (batches.hasNext()) {
                    batches.next();
                }
            } catch (IOException | RuntimeException e) {
                if (!isDamage(e)) {
                    return Optional.empty(); // the storage's own error says more
                }
                return Optional.of(
                        damaged(
                                location,
                                "the commit file of version "
                                        + version
                                        + " ("
                                        + commit.getPath()
                                        + ") cannot be read: "
                                        + Causes.rootMessage(e),
                                failure));
            }
        }
        return Optional.empty();
    }

    /** The version {@code _last_checkpoint} names, or -1. */
    private static long lastCheckpointVersion(String log, FileIO io) {
        try {
            FileStatus last = io.getFileStatus(log + "_last_checkpoint");
            String text;
            try (java.io.InputStream in =
                    io.newInputFile(last.getPath(), last.getSize()).newStream()) {
                text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            }
            java.util.regex.Matcher version =
                    java.util.regex.Pattern.compile("\"version\"\\s*:\\s*(\\d+)").matcher(text);
            return version.find() ? Long.parseLong(version.group(1)) : -1;
        } catch (IOException | RuntimeException e) {
            return -1; // no _last_checkpoint (or unreadable): Kernel lists the log instead
        }
    }

    /** Whether reading a log file failed because its content is broken or it is gone. */
    private static boolean isDamage(Throwable error) {
        for (Throwable t = error; t != null && t.getCause() != t; t = t.getCause()) {
            String name = t.getClass().getName();
            String message = String.valueOf(t.getMessage());
            if ((t instanceof java.io.FileNotFoundException
                            && !message.contains("Permission denied"))
                    || name.startsWith("com.fasterxml.jackson.core.")
                    || name.contains("shaded.com.fasterxml.jackson.core.")
                    || message.contains("Could not parse JSON")) {
                return true;
            }
        }
        return false;
    }

    private static DeltaLiteException damaged(
            String location, String what, RuntimeException failure) {
        return new DeltaLiteDamagedTableException(
                "The Delta log of the table at "
                        + location
                        + " is damaged: "
                        + what
                        + ". deltalite commits nothing on top of a log it cannot read. Restore that"
                        + " file (or the table) from a backup; the job commits its checkpoint when"
                        + " it restarts after that.",
                failure);
    }
}
