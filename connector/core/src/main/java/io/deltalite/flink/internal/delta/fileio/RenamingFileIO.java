package io.deltalite.flink.internal.delta.fileio;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;

/**
 * Kernel's file access for a table on a file system that renames atomically: a local (or locally
 * mounted) one, HDFS. Every new file is written through a {@link PublishingStream}. A file that
 * readers look up by name — a commit, a log checkpoint, the sink's journal notes and staged keys —
 * is written under a hidden temporary name, its data forced to durable storage, and only then given
 * its name ({@link RenamingFileSystem#rename}), which for a file that must not be overwritten fails
 * atomically if the name exists: two writers, in one JVM or several, can never both commit a
 * version, a reader never sees half a file, and a power loss cannot publish an empty one. (Kernel's
 * default log store for local paths only locks within one instance.) A data or deletion-vector file
 * is written under its own name — only a commit makes it part of the table — forced to storage
 * before its write returns, and deleted if its write fails.
 *
 * <p>Reads and listings go through Hadoop.
 */
public final class RenamingFileIO extends ForwardingFileIO {
    /**
     * The names of the hidden temporary files: {@code .<name>.<random UUID>.tmp} ({@code
     * .<UUID>.tmp} for the journal's own temporary notes). A file so named that is older than any
     * write takes was left by a writer that died; {@link TemporaryFileSweep} deletes it.
     */
    static final Pattern TEMPORARY_NAME =
            Pattern.compile(
                    "\\.(.+\\.)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp");

    private final RenamingFileSystem files;

    RenamingFileIO(FileIO hadoop, RenamingFileSystem files) {
        super(hadoop);
        this.files = files;
    }

    /** A table on a local or mounted file system. */
    public static RenamingFileIO local(FileIO hadoop) {
        return new RenamingFileIO(hadoop, new LocalDiskFiles());
    }

    /** A table on HDFS. */
    public static RenamingFileIO hdfs(FileIO hadoop, Configuration hadoopConf) {
        return new RenamingFileIO(hadoop, new HdfsFiles(hadoopConf));
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return new RenamedFile(path);
    }

    /** A new file: written whole under a temporary name, then published atomically. */
    private final class RenamedFile implements OutputFile {
        private final String path;

        RenamedFile(String path) {
            this.path = path;
        }

        @Override
        public String path() {
            return path;
        }

        @Override
        public PositionOutputStream create(boolean putIfAbsent) throws IOException {
            if (!readByName(path)) {
                return inPlace(putIfAbsent);
            }
            String temporary = temporaryFor(path);
            RenamingFileSystem.NewFile file = files.createNew(temporary);
            return new PublishingStream(
                    path,
                    new Target(file) {
                        @Override
                        public void publish() throws IOException {
                            file.sync();
                            file.close();
                            files.rename(temporary, path, !putIfAbsent);
                            files.syncFolder(parent(path));
                        }

                        @Override
                        void delete() throws IOException {
                            files.deleteIfExists(temporary);
                        }
                    });
        }

        /**
         * A file no reader finds by its name (a data or deletion-vector file: only a commit makes
         * it part of the table), written under that name: should the process die mid-write, what is
         * left is an unreferenced file that {@code VACUUM} removes, not a hidden one nothing ever
         * removes.
         */
        private PositionOutputStream inPlace(boolean putIfAbsent) throws IOException {
            RenamingFileSystem.NewFile file =
                    putIfAbsent ? files.createNew(path) : files.createReplacing(path);
            return new PublishingStream(
                    path,
                    new Target(file) {
                        @Override
                        public void publish() throws IOException {
                            // A commit will reference it once this returns.
                            file.sync();
                            file.close();
                            files.syncFolder(parent(path));
                        }

                        @Override
                        void delete() throws IOException {
                            files.deleteIfExists(path);
                        }
                    });
        }

        @Override
        public void writeAtomically(CloseableIterator<String> data, boolean overwrite)
                throws IOException {
            String temporary = temporaryFor(path);
            try (data) {
                write(
                        temporary,
                        out -> {
                            while (data.hasNext()) {
                                byte[] line = (data.next() + "\n").getBytes(StandardCharsets.UTF_8);
                                out.write(line, 0, line.length);
                            }
                        });
            }
            publish(temporary, path, overwrite);
        }
    }

    /** What writes the content of a temporary file. */
    @FunctionalInterface
    private interface Content {
        void writeTo(RenamingFileSystem.NewFile out) throws IOException;
    }

    /** Writes a temporary file whole and forces it to storage; deletes it if that fails. */
    private void write(String temporary, Content content) throws IOException {
        boolean written = false;
        try {
            try (RenamingFileSystem.NewFile out = files.createNew(temporary)) {
                content.writeTo(out);
                out.sync();
            }
            // closed too: a close that fails leaves nothing behind either
            written = true;
        } finally {
            if (!written) {
                files.deleteIfExists(temporary);
            }
        }
    }

    /** Gives a written temporary file its name, and makes the name durable. */
    private void publish(String temporary, String path, boolean overwrite) throws IOException {
        files.rename(temporary, path, overwrite);
        files.syncFolder(parent(path));
    }

    /**
     * Whether readers look {@code path} up by its name — a file of the Delta log, or one of the
     * sink's own journal and staged-key files — so that it must appear whole or not at all.
     */
    private static boolean readByName(String path) {
        return path.contains("/_delta_log/") || path.contains("/_deltalite/");
    }

    /** The folder of {@code path}, spelled as in {@code path}. */
    private static String parent(String path) {
        return path.substring(0, path.lastIndexOf('/'));
    }

    /**
     * A hidden name beside {@code path}, matching {@link #TEMPORARY_NAME}; the folder spelled as in
     * {@code path} (a Hadoop path would read a colon in a name as a scheme).
     */
    private static String temporaryFor(String path) {
        int slash = path.lastIndexOf('/');
        return path.substring(0, slash + 1)
                + "."
                + path.substring(slash + 1)
                + "."
                + UUID.randomUUID()
                + ".tmp";
    }

    /** Bytes on their way to a file; discarding closes the file before deleting it. */
    private abstract static class Target implements PublishingStream.Target {
        private final RenamingFileSystem.NewFile out;

        Target(RenamingFileSystem.NewFile out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        /** Removes what was written. */
        abstract void delete() throws IOException;

        @Override
        public void discard() {
            try {
                // closes the descriptor even if flushing the buffer fails
                out.close();
            } catch (IOException ignored) {
                // the write is dropped anyway
            }
            try {
                delete();
            } catch (IOException ignored) {
                // nothing refers to it
            }
        }
    }

    @Override
    public void copyFileAtomically(String srcPath, String destPath, boolean overwrite)
            throws IOException {
        String temporary = temporaryFor(destPath);
        long length = delegate.getFileStatus(srcPath).getSize();
        write(
                temporary,
                out -> {
                    try (SeekableInputStream in =
                            delegate.newInputFile(srcPath, length).newStream()) {
                        byte[] buffer = new byte[64 * 1024];
                        for (int n; (n = in.read(buffer)) > 0; ) {
                            out.write(buffer, 0, n);
                        }
                    }
                });
        publish(temporary, destPath, overwrite);
    }
}
