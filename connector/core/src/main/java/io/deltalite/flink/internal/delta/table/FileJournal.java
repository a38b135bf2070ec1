package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.deltalite.flink.internal.delta.fileio.ConnectorClassLoader;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempt journal as small files under {@code <table>/_deltalite/journal/<appId>/}: one file
 * {@code <checkpoint>-<owner>.files} per owner and checkpoint. The first line is {@code
 * #deltalite-journal 2 <notCommittedAt>}, then one file path per line. (Files of the first format
 * are named {@code <checkpoint>-<subtask>.files} and hold only paths.) Beside them, one {@code
 * <owner>.heartbeat} per writer subtask and committer of a running job, whose single line {@code
 * #deltalite-heartbeat 1 <interval millis>} says how often it is refreshed; its modification time
 * is what counts. Delta readers and {@code VACUUM} ignore directories starting with an underscore.
 */
final class FileJournal implements AttemptJournal {
    private static final Logger LOG = LoggerFactory.getLogger(FileJournal.class);
    private static final String SUFFIX = ".files";
    private static final String HEADER = "#deltalite-journal 2 ";
    private static final String HEARTBEAT_SUFFIX = ".heartbeat";
    private static final String HEARTBEAT_HEADER = "#deltalite-heartbeat 1 ";

    private final String tableLocation;
    private final FileIO fileIO;

    /** For listing the lineages' folders, which Kernel's file access cannot list. */
    private final org.apache.hadoop.conf.Configuration hadoopConf;

    /** Notes this instance wrote, to replace them atomically when they are written again. */
    private final java.util.Set<String> written =
            java.util.concurrent.ConcurrentHashMap.newKeySet();

    FileJournal(
            String tableLocation, FileIO fileIO, org.apache.hadoop.conf.Configuration hadoopConf) {
        this.tableLocation = tableLocation.endsWith("/") ? tableLocation : tableLocation + "/";
        this.fileIO = fileIO;
        this.hadoopConf = hadoopConf;
    }

    private String root() {
        return tableLocation + "_deltalite/journal/";
    }

    private String directory(String appId) {
        return root() + appId.replace('/', '_') + "/";
    }

    private String path(Entry entry) {
        return directory(entry.appId())
                + String.format("%020d-%s%s", entry.checkpointId(), entry.owner(), SUFFIX);
    }

    @Override
    public void record(Entry entry) {
        String path = path(entry);
        StringBuilder text = new StringBuilder(HEADER).append(entry.notCommittedAt());
        entry.files().forEach(file -> text.append('\n').append(file));
        byte[] content = text.toString().getBytes(StandardCharsets.UTF_8);
        try {
            if (written.add(path)) {
                // A first note: if writing it fails, there was nothing to lose.
                fileIO.mkdirs(directory(entry.appId()));
                write(path, content);
            } else {
                // A note that grows: the old one stays whole until the new one replaces it.
                replace(entry.appId(), path, content);
            }
        } catch (IOException | RuntimeException e) {
            throw new UncheckedIOException(
                    "Cannot note the files of checkpoint "
                            + entry.checkpointId()
                            + " at "
                            + path
                            + "; the checkpoint is not taken. Check that the table location is"
                            + " writable.",
                    e instanceof IOException io ? io : new IOException(e));
        }
    }

    /** Replaces the file at {@code path} in the folder of {@code appId} as a whole. */
    private void replace(String appId, String path, byte[] content) throws IOException {
        String temporary = directory(appId) + "." + UUID.randomUUID() + ".tmp";
        write(temporary, content);
        fileIO.copyFileAtomically(temporary, path, true);
        fileIO.delete(temporary);
    }

    @Override
    public void beat(String appId, String owner, java.time.Duration interval) {
        String path = directory(appId) + owner + HEARTBEAT_SUFFIX;
        byte[] content =
                (HEARTBEAT_HEADER + interval.toMillis() + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            fileIO.mkdirs(directory(appId));
            // Replaced as a whole: a PUT on S3, a rename over the old one on local and HDFS
            // storage (RenamingFileIO), so a reader never sees a torn heartbeat.
            write(path, content);
        } catch (IOException | RuntimeException e) {
            throw new UncheckedIOException(
                    "Cannot refresh the heartbeat " + path,
                    e instanceof IOException io ? io : new IOException(e));
        }
    }

    @Override
    public void removeHeartbeats(String appId, long writtenBeforeMillis) {
        for (org.apache.hadoop.fs.FileStatus file : list(directory(appId))) {
            if (file.isFile()
                    && isHeartbeat(file.getPath().getName())
                    && file.getModificationTime() < writtenBeforeMillis) {
                try {
                    fileIO.delete(file.getPath().toString());
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Could not remove the heartbeat {}: {}", file.getPath(), e.toString());
                }
            }
        }
    }

    private void write(String path, byte[] content) throws IOException {
        try (PositionOutputStream out = fileIO.newOutputFile(path).create(false)) {
            out.write(content);
        }
    }

    @Override
    public List<Entry> entries(String appId) {
        return entriesNotedBefore(appId, Long.MAX_VALUE);
    }

    @Override
    public List<Entry> entriesNotedBefore(String appId, long cutoffMillis) {
        List<Entry> entries = new ArrayList<>();
        try (CloseableIterator<FileStatus> files = fileIO.listFrom(directory(appId) + "0")) {
            while (files.hasNext()) {
                FileStatus file = files.next();
                String name = file.getPath().substring(file.getPath().lastIndexOf('/') + 1);
                if (!name.endsWith(SUFFIX)
                        || name.indexOf('-') < 0
                        || file.getModificationTime() >= cutoffMillis) {
                    continue;
                }
                String stem = name.substring(0, name.length() - SUFFIX.length());
                int dash = stem.indexOf('-');
                String owner = stem.substring(dash + 1);
                if (owner.chars().allMatch(Character::isDigit)) {
                    owner = AttemptJournal.writer(Integer.parseInt(owner)); // first format
                }
                List<String> lines;
                try {
                    lines = read(file);
                } catch (FileNotFoundException e) {
                    continue; // removed meanwhile by the writer or committer that resolved it
                }
                long notCommittedAt = -1;
                if (!lines.isEmpty() && lines.get(0).startsWith(HEADER)) {
                    notCommittedAt = Long.parseLong(lines.remove(0).substring(HEADER.length()));
                }
                entries.add(
                        new Entry(
                                appId,
                                Long.parseLong(stem.substring(0, dash)),
                                owner,
                                notCommittedAt,
                                lines));
            }
        } catch (FileNotFoundException e) {
            return entries;
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof FileNotFoundException) {
                return entries; // the folder was never created
            }
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + directory(appId), e);
        }
        return entries;
    }

    private List<String> read(FileStatus file) throws IOException {
        try (InputStream in = fileIO.newInputFile(file.getPath(), file.getSize()).newStream()) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            List<String> paths = new ArrayList<>();
            for (String line : text.split("\n")) {
                if (!line.isBlank()) {
                    paths.add(line);
                }
            }
            return paths;
        }
    }

    @Override
    public List<Lineage> lineages() {
        List<Lineage> lineages = new ArrayList<>();
        for (org.apache.hadoop.fs.FileStatus folder : list(root())) {
            if (!folder.isDirectory()) {
                continue;
            }
            long newest = -1;
            org.apache.hadoop.fs.FileStatus heartbeat = null;
            for (org.apache.hadoop.fs.FileStatus file : list(folder.getPath().toString())) {
                if (!file.isFile()) {
                    continue;
                }
                String name = file.getPath().getName();
                if (isNote(name)) {
                    newest = Math.max(newest, file.getModificationTime());
                } else if (isHeartbeat(name)
                        && (heartbeat == null
                                || file.getModificationTime() > heartbeat.getModificationTime())) {
                    heartbeat = file;
                }
            }
            if (newest >= 0 || heartbeat != null) {
                lineages.add(
                        new Lineage(
                                folder.getPath().getName(),
                                newest,
                                java.util.Optional.ofNullable(heartbeat).map(this::heartbeat)));
            }
        }
        lineages.sort(java.util.Comparator.comparing(Lineage::appId));
        return lineages;
    }

    /** The heartbeat in {@code file}; of an unknown interval when it cannot be read. */
    private Heartbeat heartbeat(org.apache.hadoop.fs.FileStatus file) {
        java.time.Duration interval = Heartbeat.UNKNOWN_INTERVAL;
        String path = file.getPath().toString();
        try (InputStream in = fileIO.newInputFile(path, file.getLen()).newStream()) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            if (text.startsWith(HEARTBEAT_HEADER)) {
                interval =
                        java.time.Duration.ofMillis(
                                Long.parseLong(text.substring(HEARTBEAT_HEADER.length()).trim()));
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not read the heartbeat {}: {}", path, e.toString());
        }
        return new Heartbeat(file.getModificationTime(), interval);
    }

    @Override
    public void removeLineage(String appId) {
        String folder = directory(appId);
        List<org.apache.hadoop.fs.FileStatus> files = list(folder);
        if (files.stream()
                .map(file -> file.getPath().getName())
                .anyMatch(name -> isNote(name) || isHeartbeat(name))) {
            return;
        }
        try {
            for (org.apache.hadoop.fs.FileStatus file : files) {
                if (file.isFile() && file.getPath().getName().startsWith(".")) {
                    fileIO.delete(file.getPath().toString()); // a note never published
                }
            }
            // An object store has no folders: deleting the missing one is a no-op.
            fileIO.delete(folder);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not remove the journal folder {}: {}", folder, e.toString());
        }
    }

    private static boolean isNote(String name) {
        return name.endsWith(SUFFIX) && !name.startsWith(".") && name.indexOf('-') > 0;
    }

    private static boolean isHeartbeat(String name) {
        return name.endsWith(HEARTBEAT_SUFFIX) && !name.startsWith(".");
    }

    /** The entries of a folder, none when it does not exist. */
    private List<org.apache.hadoop.fs.FileStatus> list(String folder) {
        org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(folder);
        try {
            return ConnectorClassLoader.call(
                    () -> {
                        try {
                            return List.of(path.getFileSystem(hadoopConf).listStatus(path));
                        } catch (FileNotFoundException e) {
                            return List.<org.apache.hadoop.fs.FileStatus>of();
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot list "
                            + folder
                            + ". Check that the table's _deltalite folder is readable.",
                    e);
        }
    }

    @Override
    public void remove(Entry entry) {
        written.remove(path(entry));
        try {
            fileIO.delete(path(entry));
            String owner = entry.owner();
            if (owner.startsWith(AttemptJournal.WRITER_PREFIX)
                    && owner.length() > AttemptJournal.WRITER_PREFIX.length()
                    && owner.substring(AttemptJournal.WRITER_PREFIX.length())
                            .chars()
                            .allMatch(Character::isDigit)) {
                // An entry of the first format, written before an upgrade.
                fileIO.delete(
                        directory(entry.appId())
                                + String.format(
                                        "%020d-%s%s",
                                        entry.checkpointId(),
                                        owner.substring(AttemptJournal.WRITER_PREFIX.length()),
                                        SUFFIX));
            }
        } catch (IOException e) {
            LOG.warn("Could not remove journal entry {}: {}", path(entry), e.toString());
        }
    }
}
