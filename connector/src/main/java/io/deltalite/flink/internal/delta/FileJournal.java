package io.deltalite.flink.internal.delta;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.deltalite.flink.internal.merge.AttemptJournal;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempt journal as small files under {@code <table>/_deltalite/journal/<appId>/}: one file
 * {@code <checkpoint>-<subtask>.files} per writer subtask and checkpoint, one data file path per
 * line. Delta readers and {@code VACUUM} ignore directories starting with an underscore.
 */
final class FileJournal implements AttemptJournal {
    private static final Logger LOG = LoggerFactory.getLogger(FileJournal.class);
    private static final String SUFFIX = ".files";

    private final String tableLocation;
    private final FileIO fileIO;

    FileJournal(String tableLocation, FileIO fileIO) {
        this.tableLocation = tableLocation.endsWith("/") ? tableLocation : tableLocation + "/";
        this.fileIO = fileIO;
    }

    private String directory(String appId) {
        return tableLocation + "_deltalite/journal/" + appId.replace('/', '_') + "/";
    }

    private String path(Entry entry) {
        return directory(entry.appId())
                + String.format("%020d-%d%s", entry.checkpointId(), entry.subtask(), SUFFIX);
    }

    @Override
    public void record(Entry entry) {
        String path = path(entry);
        try {
            fileIO.mkdirs(directory(entry.appId()));
            try (PositionOutputStream out = fileIO.newOutputFile(path).create(false)) {
                out.write(String.join("\n", entry.files()).getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot note the files of checkpoint "
                            + entry.checkpointId()
                            + " at "
                            + path
                            + "; the checkpoint is not taken. Check that the table location is"
                            + " writable.",
                    e);
        }
    }

    @Override
    public List<Entry> entries(String appId) {
        List<Entry> entries = new ArrayList<>();
        try (CloseableIterator<FileStatus> files = fileIO.listFrom(directory(appId) + "0")) {
            while (files.hasNext()) {
                FileStatus file = files.next();
                String name = file.getPath().substring(file.getPath().lastIndexOf('/') + 1);
                if (!name.endsWith(SUFFIX) || name.indexOf('-') < 0) {
                    continue;
                }
                String[] parts = name.substring(0, name.length() - SUFFIX.length()).split("-");
                entries.add(
                        new Entry(
                                appId,
                                Long.parseLong(parts[0]),
                                Integer.parseInt(parts[1]),
                                read(file)));
            }
        } catch (FileNotFoundException e) {
            return entries;
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
    public void remove(Entry entry) {
        try {
            fileIO.delete(path(entry));
        } catch (IOException e) {
            LOG.warn("Could not remove journal entry {}: {}", path(entry), e.toString());
        }
    }
}
