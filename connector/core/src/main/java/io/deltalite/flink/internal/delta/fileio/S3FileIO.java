package io.deltalite.flink.internal.delta.fileio;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.deltalite.flink.internal.delta.kernel.KernelIterators;
import io.deltalite.flink.internal.storage.S3TableStorage;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/**
 * Kernel's file access for a table on S3. Reads go to Hadoop's S3A as usual; everything Kernel
 * would hand to a {@code LogStore} — listing the log, writing log files, atomic copies — goes to
 * {@link S3TableStorage} instead, so that a commit is a put-if-absent with S3's conditional write
 * and never relies on the lock inside one JVM of Kernel's default S3 log store. {@link
 * LogStoreGuard} makes sure nothing reaches a {@code LogStore} anyway.
 *
 * <p>Every call into S3A, including reads and writes of the streams it hands out, runs with
 * deltalite's class loader as context class loader ({@link ConnectorClassLoader}).
 */
public final class S3FileIO implements FileIO {
    private final FileIO hadoop;
    private final S3TableStorage storage;

    public S3FileIO(FileIO hadoop, S3TableStorage storage) {
        this.hadoop = hadoop;
        this.storage = storage;
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return new S3OutputFile(storage, path);
    }

    @Override
    public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
        List<org.apache.hadoop.fs.FileStatus> listed =
                ConnectorClassLoader.call(() -> storage.listFrom(filePath));
        return KernelIterators.of(
                listed.stream()
                        .map(
                                status ->
                                        FileStatus.of(
                                                status.getPath().toString(),
                                                status.getLen(),
                                                status.getModificationTime()))
                        .iterator());
    }

    @Override
    public void copyFileAtomically(String srcPath, String destPath, boolean overwrite)
            throws IOException {
        ConnectorClassLoader.run(
                () -> {
                    byte[] content;
                    try (InputStream in = storage.open(srcPath)) {
                        content = in.readAllBytes();
                    }
                    if (overwrite) {
                        storage.put(destPath, content);
                    } else {
                        storage.putIfAbsent(destPath, content);
                    }
                });
    }

    @Override
    public FileStatus getFileStatus(String path) throws IOException {
        return ConnectorClassLoader.call(() -> hadoop.getFileStatus(path));
    }

    @Override
    public String resolvePath(String path) throws IOException {
        return ConnectorClassLoader.call(() -> hadoop.resolvePath(path));
    }

    @Override
    public boolean mkdirs(String path) throws IOException {
        return ConnectorClassLoader.call(() -> hadoop.mkdirs(path));
    }

    @Override
    public InputFile newInputFile(String path, long fileSize) {
        return new S3InputFile(hadoop.newInputFile(path, fileSize));
    }

    @Override
    public boolean delete(String path) throws IOException {
        return ConnectorClassLoader.call(() -> hadoop.delete(path));
    }

    @Override
    public Optional<String> getConf(String confKey) {
        return hadoop.getConf(confKey);
    }
}
