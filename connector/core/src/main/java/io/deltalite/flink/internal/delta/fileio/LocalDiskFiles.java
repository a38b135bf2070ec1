package io.deltalite.flink.internal.delta.fileio;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local (or locally mounted) file system through Java's own file API. A file is published with a
 * hard link, which the operating system refuses atomically if the name exists — two writers, in one
 * JVM or several, can never both create it — or, to replace a file, with an atomic rename. A file's
 * data is forced to disk before it is published and its folder after, so that a power loss cannot
 * leave a published name on an empty file.
 *
 * <p>Not Hadoop's local file system: its checksumming stream leaves its file open when a write
 * fails (a full disk: the space stays taken until the JVM exits) and reports the failure as an
 * {@link Error}.
 */
final class LocalDiskFiles implements RenamingFileSystem {
    private static final Logger LOG = LoggerFactory.getLogger(LocalDiskFiles.class);
    private static final int BUFFER_SIZE = 64 * 1024;

    /** Whether {@code location} is on a local or mounted file system: a path, file:, a drive. */
    static boolean isLocal(String location) {
        String scheme = new org.apache.hadoop.fs.Path(location).toUri().getScheme();
        return scheme == null || scheme.equalsIgnoreCase("file") || scheme.length() == 1;
    }

    static Path toPath(String path) {
        // The decoded path of the URI, never Paths.get(URI): that refuses non-ASCII characters
        // in a file:/// URI ("Bad escape").
        return Paths.get(new org.apache.hadoop.fs.Path(path).toUri().getPath());
    }

    @Override
    public NewFile createNew(String path) throws IOException {
        return open(path, StandardOpenOption.CREATE_NEW);
    }

    @Override
    public NewFile createReplacing(String path) throws IOException {
        return open(path, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
    }

    private static NewFile open(String path, OpenOption... options) throws IOException {
        Path file = toPath(path);
        Files.createDirectories(file.getParent());
        OpenOption[] writing = java.util.Arrays.copyOf(options, options.length + 1);
        writing[options.length] = StandardOpenOption.WRITE;
        FileChannel channel = FileChannel.open(file, writing);
        OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER_SIZE);
        return new NewFile() {
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
            public void sync() throws IOException {
                out.flush();
                channel.force(true);
            }

            @Override
            public void close() throws IOException {
                // closes the channel even if flushing the buffer fails
                out.close();
            }
        };
    }

    @Override
    public void rename(String temporary, String target, boolean overwrite) throws IOException {
        Path from = toPath(temporary);
        Path to = toPath(target);
        try {
            if (overwrite) {
                Files.move(
                        from,
                        to,
                        StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
                // A checksum Hadoop once wrote for the old content would now be wrong.
                deleteQuietly(to.resolveSibling("." + to.getFileName() + ".crc"));
                return;
            }
            try {
                Files.createLink(to, from);
            } catch (UnsupportedOperationException e) {
                // A rename would replace a file another writer created meanwhile.
                throw new IOException(
                        "Cannot publish "
                                + to
                                + ": the file system has no hard links, which deltalite needs to"
                                + " create a Delta log file only if no other writer did. Put"
                                + " the table on a file system with hard links.",
                        e);
            }
        } catch (FileAlreadyExistsException e) {
            throw new FileAlreadyExistsException(
                    to.toString(), null, "another writer created it first");
        } finally {
            deleteQuietly(from);
        }
    }

    /**
     * Forces the folder's entries to disk: opening a folder as a channel and forcing it is how
     * Linux and the BSDs sync a directory. Where the platform refuses (Windows cannot open a folder
     * so), there is nothing more to do from Java.
     */
    @Override
    public void syncFolder(String folder) throws IOException {
        Path path = toPath(folder);
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ);
        } catch (IOException | UnsupportedOperationException e) {
            LOG.debug("Cannot open the folder {} to sync it: {}", path, e.toString());
            return;
        }
        try (channel) {
            channel.force(true);
        } catch (IOException e) {
            // The file is published already; its name may just not survive a power loss.
            LOG.warn("Could not sync the folder {} after publishing in it: {}", path, e.toString());
        }
    }

    @Override
    public void deleteIfExists(String path) throws IOException {
        Files.deleteIfExists(toPath(path));
    }

    /** Once the file is published, failing to tidy up must not make its write look failed. */
    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("Could not delete {}: {}", file, e.toString());
        }
    }
}
