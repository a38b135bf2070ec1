package io.deltalite.flink.internal.delta.fileio;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A real {@link RenamingFileSystem} that also records, in order, what is done to each file: {@code
 * create <name>}, {@code sync <name>}, {@code close <name>}, {@code rename <name> -> <name>},
 * {@code syncFolder <folder>}. Everything still happens on the file system it wraps.
 */
final class RecordingFileSystem implements RenamingFileSystem {
    private final RenamingFileSystem files;
    private final List<String> events = new ArrayList<>();

    RecordingFileSystem(RenamingFileSystem files) {
        this.files = files;
    }

    synchronized List<String> events() {
        return List.copyOf(events);
    }

    private synchronized void record(String event) {
        events.add(event);
    }

    @Override
    public NewFile createNew(String path) throws IOException {
        return recorded(path, files.createNew(path));
    }

    @Override
    public NewFile createReplacing(String path) throws IOException {
        return recorded(path, files.createReplacing(path));
    }

    private NewFile recorded(String path, NewFile file) {
        String name = name(path);
        record("create " + name);
        return new NewFile() {
            @Override
            public void write(int b) throws IOException {
                file.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                file.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                file.flush();
            }

            @Override
            public void sync() throws IOException {
                file.sync();
                record("sync " + name);
            }

            @Override
            public void close() throws IOException {
                file.close();
                record("close " + name);
            }
        };
    }

    @Override
    public void rename(String temporary, String target, boolean overwrite) throws IOException {
        files.rename(temporary, target, overwrite);
        record("rename " + name(temporary) + " -> " + name(target));
    }

    @Override
    public void syncFolder(String folder) throws IOException {
        files.syncFolder(folder);
        record("syncFolder " + name(folder));
    }

    @Override
    public void deleteIfExists(String path) throws IOException {
        files.deleteIfExists(path);
        record("delete " + name(path));
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
