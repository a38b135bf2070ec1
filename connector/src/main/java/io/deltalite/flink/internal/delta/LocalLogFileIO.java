package io.deltalite.flink.internal.delta;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * Kernel's file access for a table on a local (or locally mounted) file system. Files of the Delta
 * log that must not be overwritten — commits, checkpoints — are created with a hard link from a
 * fully written temporary file, which the operating system refuses atomically if the name exists:
 * two writers, in one JVM or several, can never both commit a version, and a reader never sees half
 * a file. (Kernel's default log store for local paths only locks within one instance.) Everything
 * else goes to Hadoop's local file system.
 */
final class LocalLogFileIO extends ForwardingFileIO {

    LocalLogFileIO(FileIO hadoop) {
        super(hadoop);
    }

    static boolean isLocal(String location) {
        String scheme = new org.apache.hadoop.fs.Path(location).toUri().getScheme();
        return scheme == null || scheme.equalsIgnoreCase("file") || scheme.length() == 1;
    }

    @Override
    public OutputFile newOutputFile(String path) {
        Path file = toPath(path);
        Path parent = file.getParent();
        if (parent != null
                && parent.getFileName() != null
                && parent.getFileName().toString().equals("_delta_log")) {
            return new LogFile(path, file);
        }
        return new DiskErrorsAsIOExceptions(delegate.newOutputFile(path));
    }

    /**
     * Hadoop's local file system reports a failed write — a full disk above all — as {@code
     * FSError}, an {@link Error}: it would pass every cleanup that catches exceptions, leaving the
     * file and its siblings behind (and the task's error would not say which file). As an {@link
     * IOException} it takes the same way as any other failed write.
     */
    private static final class DiskErrorsAsIOExceptions implements OutputFile {
        private final OutputFile file;

        DiskErrorsAsIOExceptions(OutputFile file) {
            this.file = file;
        }

        @Override
        public String path() {
            return file.path();
        }

        @Override
        public PositionOutputStream create(boolean putIfAbsent) throws IOException {
            PositionOutputStream out;
            try {
                out = file.create(putIfAbsent);
            } catch (org.apache.hadoop.fs.FSError e) {
                throw asIOException(e);
            }
            return new PositionOutputStream() {
                @Override
                public long getPos() throws IOException {
                    return out.getPos();
                }

                @Override
                public void write(int b) throws IOException {
                    try {
                        out.write(b);
                    } catch (org.apache.hadoop.fs.FSError e) {
                        throw asIOException(e);
                    }
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    try {
                        out.write(b, off, len);
                    } catch (org.apache.hadoop.fs.FSError e) {
                        throw asIOException(e);
                    }
                }

                @Override
                public void flush() throws IOException {
                    try {
                        out.flush();
                    } catch (org.apache.hadoop.fs.FSError e) {
                        throw asIOException(e);
                    }
                }

                @Override
                public void close() throws IOException {
                    try {
                        out.close();
                    } catch (org.apache.hadoop.fs.FSError e) {
                        throw asIOException(e);
                    }
                }
            };
        }

        @Override
        public void writeAtomically(CloseableIterator<String> data, boolean overwrite)
                throws IOException {
            try {
                file.writeAtomically(data, overwrite);
            } catch (org.apache.hadoop.fs.FSError e) {
                throw asIOException(e);
            }
        }

        private IOException asIOException(org.apache.hadoop.fs.FSError error) {
            return new IOException(
                    "Writing " + file.path() + " failed: " + error.getCause().getMessage(),
                    error.getCause());
        }
    }

    private static Path toPath(String path) {
        // The decoded path of the URI, never Paths.get(URI): that refuses non-ASCII characters
        // in a file:/// URI ("Bad escape").
        return Paths.get(new org.apache.hadoop.fs.Path(path).toUri().getPath());
    }

    /** A log file: written whole under a temporary name, then published atomically. */
    private static final class LogFile implements OutputFile {
        private final String path;
        private final Path file;

        LogFile(String path, Path file) {
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
            OutputStream out = Files.newOutputStream(temporary);
            LogFileGuard guard = new LogFileGuard(path);
            return new PositionOutputStream() {
                private long position;
                private boolean closed;

                @Override
                public long getPos() {
                    return position;
                }

                @Override
                public void write(int b) throws IOException {
                    try {
                        out.write(b);
                    } catch (IOException | RuntimeException | Error e) {
                        guard.failed();
                        throw e;
                    }
                    guard.wrote(b);
                    position++;
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    try {
                        out.write(b, off, len);
                    } catch (IOException | RuntimeException | Error e) {
                        guard.failed();
                        throw e;
                    }
                    guard.wrote(b, off, len);
                    position += len;
                }

                @Override
                public void flush() throws IOException {
                    try {
                        out.flush();
                    } catch (IOException | RuntimeException | Error e) {
                        guard.failed();
                        throw e;
                    }
                }

                @Override
                public void close() throws IOException {
                    if (closed) {
                        return;
                    }
                    closed = true;
                    String refusal;
                    try {
                        out.close();
                    } catch (IOException | RuntimeException | Error e) {
                        guard.failed();
                        throw e;
                    } finally {
                        refusal = guard.refusal();
                        if (refusal != null) {
                            // Never published: no partial log file appears.
                            Files.deleteIfExists(temporary);
                        }
                    }
                    if (refusal != null) {
                        throw new IOException("Not publishing " + file + ": " + refusal + ".");
                    }
                    publish(temporary, file, !putIfAbsent);
                }
            };
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
