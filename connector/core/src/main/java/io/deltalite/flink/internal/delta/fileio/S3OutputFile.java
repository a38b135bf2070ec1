package io.deltalite.flink.internal.delta.fileio;

import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.deltalite.flink.internal.storage.ObjectUpload;
import io.deltalite.flink.internal.storage.S3TableStorage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A file Kernel writes on S3.
 *
 * <ul>
 *   <li>{@link #writeAtomically} with {@code overwrite = false} is how Kernel writes a commit
 *       ({@code _delta_log/N.json}) and a checksum: a put-if-absent, so a writer that loses the
 *       race for version N gets {@link java.nio.file.FileAlreadyExistsException}, which Kernel
 *       reports as a conflict. With {@code overwrite = true} ({@code _last_checkpoint}) it is a
 *       plain PUT.
 *   <li>{@link #create} (data files, checkpoint Parquet files) is a plain upload: an S3 object is
 *       published whole when the stream is closed, so it is atomic without a rename; one that is
 *       not whole is aborted ({@link PublishingStream}).
 * </ul>
 */
final class S3OutputFile implements OutputFile {
    private final S3TableStorage storage;
    private final String path;

    S3OutputFile(S3TableStorage storage, String path) {
        this.storage = storage;
        this.path = path;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public PositionOutputStream create(boolean atomicWrite) throws IOException {
        ObjectUpload upload = ConnectorClassLoader.call(() -> storage.create(path));
        return new PublishingStream(
                path,
                new PublishingStream.Target() {
                    /** A write that fills a block starts its upload in an S3A pool thread. */
                    @Override
                    public void write(int b) throws IOException {
                        ConnectorClassLoader.run(() -> upload.write(b));
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        ConnectorClassLoader.run(() -> upload.write(b, off, len));
                    }

                    @Override
                    public void flush() throws IOException {
                        upload.flush();
                    }

                    @Override
                    public void publish() throws IOException {
                        ConnectorClassLoader.run(upload::close);
                    }

                    @Override
                    public void discard() {
                        upload.abortIfOpen();
                    }
                });
    }

    @Override
    public void writeAtomically(CloseableIterator<String> data, boolean overwrite)
            throws IOException {
        byte[] content;
        try (data) {
            ByteArrayOutputStream lines = new ByteArrayOutputStream();
            while (data.hasNext()) {
                lines.write(data.next().getBytes(StandardCharsets.UTF_8));
                lines.write('\n');
            }
            content = lines.toByteArray();
        }
        ConnectorClassLoader.run(
                () -> {
                    if (overwrite) {
                        storage.put(path, content);
                    } else {
                        storage.putIfAbsent(path, content);
                    }
                });
    }
}
