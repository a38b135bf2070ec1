package io.deltalite.flink.internal.delta;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Kernel's file access for a table on a local (or locally mounted) file system. Every new file is
 * written with Java's own file API through a {@link PublishingStream}. A file that readers look up
 * by name — a commit, a log checkpoint, the sink's journal — is written under a hidden temporary
 * name and given its name only once it is whole; one that must not be overwritten gets it with a
 * hard link, which the operating system refuses atomically if the name exists: two writers, in one
 * JVM or several, can never both commit a version, and a reader never sees half a file. (Kernel's
 * default log store for local paths only locks within one instance.) A data or deletion-vector file
 * is written under its own name — only a commit makes it part of the table — and deleted if its
 * write fails.
 *
 * <p>Not Hadoop's local file system for writes: its checksumming stream leaves its file open when a
 * write fails (a full disk: the space stays taken until the JVM exits) and reports the failure as
 * an {@link Error}. Reads, listings and deletes still go through Hadoop.
 */
final class LocalFileIO extends ForwardingFileIO {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(LocalFileIO.class);
    private static final int BUFFER_SIZE = 64 * 1024;

    LocalFileIO(FileIO hadoop) {
        super(hadoop);
    }

    static boolean isLocal(String location) {
        String scheme = new org.apache.hadoop.fs.Path(location).toUri().getScheme();
        return scheme == null || scheme.equalsIgnoreCase("file") || scheme.length() == 1;
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return new LocalFile(path, toPath(path));
    }

    private static Path toPath(String path) {
        // The decoded path of the URI, never Paths.get(URI): that refuses non-ASCII characters
        // in a file:/// URI ("Bad escape").
        return Paths.get(new org.apache.hadoop.fs.Path(path).toUri().getPath());
    }

    /** A new file: written whole under a temporary name, then published atomically. */
    private static final class LocalFile implements OutputFile {
        private final String path;
        private final Path file;

        LocalFile(String path, Path file) {
            this.path = path;
            this.file = file;
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
            Path temporary = temporaryFor(file);
            OutputStream out =
                    new BufferedOutputStream(
                            Files.newOutputStream(temporary, StandardOpenOption.CREATE_NEW),
                            BUFFER_SIZE);
            return new PublishingStream(
                    path,
                    new Target(out) {
                        @Override
                        public void publish() throws IOException {
                            out.close();
                            LocalFileIO.publish(temporary, file, !putIfAbsent);
                        }

                        @Override
                        void delete() throws IOException {
                            Files.deleteIfExists(temporary);
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
            Files.createDirectories(file.getParent());
            OutputStream out =
                    new BufferedOutputStream(
                            putIfAbsent
                                    ? Files.newOutputStream(file, StandardOpenOption.CREATE_NEW)
                                    : Files.newOutputStream(file),
                            BUFFER_SIZE);
            return new PublishingStream(
                    path,
                    new Target(out) {
                        @Override
                        public void publish() throws IOException {
                            out.close();
                        }

                        @Override
                        void delete() throws IOException {
                            Files.deleteIfExists(file);
                        }
                    });
        }

        @Override
        public void writeAtomically(CloseableIterator<String> data, boolean overwrite)
                throws IOException {
            Path temporary = temporaryFor(file);
            boolean written = false;
            try (data;
                    OutputStream out = Files.newOutputStream(temporary)) {
                while (data.hasNext()) {
                    out.write((data.next() + "\n").getBytes(StandardCharsets.UTF_8));
                }
                written = true;
            } finally {
                if (!written) {
                    Files.deleteIfExists(temporary);
                }
            }
            publish(temporary, file, overwrite);
        }
    }

    /**
     * Whether readers look {@code path} up by its name — a file of the Delta log, or one of the
     * sink's own journal and staged-key files — so that it must appear whole or not at all.
     */
    private static boolean readByName(String path) {
        return path.contains("/_delta_log/") || path.contains("/_deltalite/");
    }

    /** Bytes on their way to a local file; discarding closes the file before deleting it. */
    private abstract static class Target implements PublishingStream.Target {
        private final OutputStream out;

        Target(OutputStream out) {
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

    private static Path temporaryFor(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        return file.resolveSibling("." + file.getFileName() + "." + UUID.randomUUID() + ".tmp");
    }

    /**
     * Gives the temporary file its final name: replacing an existing file when {@code overwrite},
     * else only if the name is free (a hard link fails atomically if it is not).
     */
    private static void publish(Path temporary, Path file, boolean overwrite) throws IOException {
        try {
            if (overwrite) {
                Files.move(
                        temporary,
                        file,
                        StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
                // A checksum Hadoop once wrote for the old content would now be wrong.
                deleteQuietly(file.resolveSibling("." + file.getFileName() + ".crc"));
                return;
            }
            try {
                Files.createLink(file, temporary);
            } catch (UnsupportedOperationException e) {
                // A rename would replace a file another writer created meanwhile.
                throw new IOException(
                        "Cannot publish "
                                + file
                                + ": the file system has no hard links, which deltalite needs to"
                                + " create a Delta log file only if no other writer did. Put"
                                + " the table on a file system with hard links.",
                        e);
            }
        } catch (FileAlreadyExistsException e) {
            throw new FileAlreadyExistsException(
                    file.toString(), null, "another writer created it first");
        } finally {
            deleteQuietly(temporary);
        }
    }

    /** Once the file is published, failing to tidy up must not make its write look failed. */
    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("Could not delete {}: {}", file, e.toString());
        }
    }

    @Override
    public void copyFileAtomically(String srcPath, String destPath, boolean overwrite)
            throws IOException {
        Path source = toPath(srcPath);
        Path temporary = temporaryFor(toPath(destPath));
        try {
            Files.copy(source, temporary, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            Files.deleteIfExists(temporary);
            throw new UncheckedIOException(e);
        }
        publish(temporary, toPath(destPath), overwrite);
    }
}
