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
 * Kernel's file access for a table on a local (or locally mounted) file system. Every new file — a
 * data file, a deletion vector, a commit, a log checkpoint — is written with Java's own file API
 * under a hidden temporary name and given its name only once it is whole ({@link
 * PublishingStream}). Files of the Delta log that must not be overwritten get their name with a
 * hard link, which the operating system refuses atomically if the name exists: two writers, in one
 * JVM or several, can never both commit a version, and a reader never sees half a file. (Kernel's
 * default log store for local paths only locks within one instance.)
 *
 * <p>Not Hadoop's local file system for writes: its checksumming stream leaves its file open when a
 * write fails (a full disk: the space stays taken until the JVM exits) and reports the failure as
 * an {@link Error}. Reads, listings and deletes still go through Hadoop.
 */
final class LocalFileIO extends ForwardingFileIO {
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
            Path temporary = temporaryFor(file);
            OutputStream out =
                    new BufferedOutputStream(
                            Files.newOutputStream(temporary, StandardOpenOption.CREATE_NEW),
                            BUFFER_SIZE);
            return new PublishingStream(
                    path,
                    new PublishingStream.Target() {
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

                        @Override
                        public void publish() throws IOException {
                            out.close();
                            LocalFileIO.publish(temporary, file, !putIfAbsent);
                        }

                        @Override
                        public void discard() {
                            try {
                                // closes the descriptor even if flushing the buffer fails
                                out.close();
                            } catch (IOException ignored) {
                                // the write is dropped anyway
                            }
                            try {
                                Files.deleteIfExists(temporary);
                            } catch (IOException ignored) {
                                // a hidden temporary file; nothing refers to it
                            }
                        }
                    });
        }

        @Override
        public void writeAtomically(CloseableIterator<String> data, boolean overwrite)
                throws IOException {
            Path temporary = temporaryFor(file);
            try (data;
                    OutputStream out = Files.newOutputStream(temporary)) {
                while (data.hasNext()) {
                    out.write((data.next() + "\n").getBytes(StandardCharsets.UTF_8));
                }
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(temporary);
                throw e;
            }
            publish(temporary, file, overwrite);
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
                Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
                return;
            }
            try {
                Files.createLink(file, temporary);
            } catch (UnsupportedOperationException e) {
                // No hard links here: fall back to a move that refuses an existing target.
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (FileAlreadyExistsException e) {
            throw new FileAlreadyExistsException(
                    file.toString(), null, "another writer created it first");
        } finally {
            Files.deleteIfExists(temporary);
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
