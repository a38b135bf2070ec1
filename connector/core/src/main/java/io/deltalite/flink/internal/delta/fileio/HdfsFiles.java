package io.deltalite.flink.internal.delta.fileio;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HDFS through Hadoop's client. The name node renames atomically, and a rename that must not
 * overwrite fails if the name is taken — two writers, in any process, can never both publish one
 * name. A file's data is forced to the data nodes' disks ({@code hsync}) before it is published;
 * the name node persists a rename in its edit log before it answers, so a folder needs no sync.
 *
 * <p>Every call runs with deltalite's class loader as context class loader: the HDFS client starts
 * threads (lease renewal, the data streamer) that outlive a job ({@link ConnectorClassLoader}).
 */
final class HdfsFiles implements RenamingFileSystem {
    private static final Logger LOG = LoggerFactory.getLogger(HdfsFiles.class);

    private final Configuration hadoopConf;

    HdfsFiles(Configuration hadoopConf) {
        this.hadoopConf = hadoopConf;
    }

    @Override
    public NewFile createNew(String path) throws IOException {
        return create(path, false);
    }

    @Override
    public NewFile createReplacing(String path) throws IOException {
        return create(path, true);
    }

    private NewFile create(String path, boolean overwrite) throws IOException {
        Path file = new Path(path);
        FSDataOutputStream out;
        try {
            // creates missing folders; without overwrite the name node refuses a taken name
            out = ConnectorClassLoader.call(() -> fileSystem(file).create(file, overwrite));
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            throw alreadyExists(path, e);
        }
        return new NewFile() {
            @Override
            public void write(int b) throws IOException {
                ConnectorClassLoader.run(() -> out.write(b));
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                ConnectorClassLoader.run(() -> out.write(b, off, len));
            }

            @Override
            public void flush() throws IOException {
                ConnectorClassLoader.run(out::flush);
            }

            @Override
            public void sync() throws IOException {
                ConnectorClassLoader.run(out::hsync);
            }

            @Override
            public void close() throws IOException {
                ConnectorClassLoader.run(out::close);
            }
        };
    }

    @Override
    public void rename(String temporary, String target, boolean overwrite) throws IOException {
        Path from = new Path(temporary);
        Path to = new Path(target);
        boolean renamed = false;
        try {
            ConnectorClassLoader.run(
                    () ->
                            fileContext(to)
                                    .rename(
                                            from,
                                            to,
                                            overwrite
                                                    ? Options.Rename.OVERWRITE
                                                    : Options.Rename.NONE));
            renamed = true;
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            throw alreadyExists(target, e);
        } finally {
            if (!renamed) {
                try {
                    ConnectorClassLoader.run(() -> fileSystem(from).delete(from, false));
                } catch (IOException e) {
                    LOG.warn("Could not delete {}: {}", temporary, e.toString());
                }
            }
        }
    }

    /** A rename is in the name node's edit log, flushed to its disks, before it returns. */
    @Override
    public void syncFolder(String folder) {}

    @Override
    public void deleteIfExists(String path) throws IOException {
        Path file = new Path(path);
        ConnectorClassLoader.run(() -> fileSystem(file).delete(file, false));
    }

    private FileSystem fileSystem(Path path) throws IOException {
        return path.getFileSystem(hadoopConf);
    }

    private FileContext fileContext(Path path) throws IOException {
        return FileContext.getFileContext(path.toUri(), hadoopConf);
    }

    /** The exception Kernel takes for a lost race: Java's, naming the file. */
    private static FileAlreadyExistsException alreadyExists(String path, IOException cause) {
        FileAlreadyExistsException e =
                new FileAlreadyExistsException(path, null, "another writer created it first");
        e.initCause(cause);
        return e;
    }
}
