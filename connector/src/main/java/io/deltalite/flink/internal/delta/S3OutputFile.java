package io.deltalite.flink.internal.delta;

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
 *       published whole when the stream is closed, so it is atomic without a rename.
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
    public UploadStream create(boolean atomicWrite) throws IOException {
        return new UploadStream(
                ConnectorClassLoader.call(() -> storage.create(path)),
                LogFileGuard.isLogFile(path) ? new LogFileGuard(path) : null);
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

    /** Kernel's view of an {@link ObjectUpload}; abortable while it is open. */
    static final class UploadStream extends PositionOutputStream {
        private final ObjectUpload upload;

        /** For a file of the Delta log, what decides whether it may be published; else null. */
        private final LogFileGuard guard;

        UploadStream(ObjectUpload upload, LogFileGuard guard) {
            this.upload = upload;
            this.guard = guard;
        }

        @Override
        public long getPos() {
            return upload.position();
        }

        /** A write that fills a block starts its upload in an S3A pool thread. */
        @Override
        public void write(int b) throws IOException {
            try {
                ConnectorClassLoader.run(() -> upload.write(b));
            } catch (IOException | RuntimeException | Error e) {
                failed();
                throw e;
            }
            if (guard != null) {
                guard.wrote(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                ConnectorClassLoader.run(() -> upload.write(b, off, len));
            } catch (IOException | RuntimeException | Error e) {
                failed();
                throw e;
            }
            if (guard != null) {
                guard.wrote(b, off, len);
            }
        }

        @Override
        public void flush() throws IOException {
            try {
                upload.flush();
            } catch (IOException | RuntimeException | Error e) {
                failed();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            String refusal = guard == null ? null : guard.refusal();
            if (refusal != null) {
                upload.abortIfOpen();
                throw new IOException("Not publishing " + upload + ": " + refusal + ".");
            }
            ConnectorClassLoader.run(upload::close);
        }

        private void failed() {
            if (guard != null) {
                guard.failed();
            }
        }

        /** Cancels the upload unless it was closed; true if there was one to cancel. */
        boolean abortIfOpen() {
            return upload.abortIfOpen();
        }

        @Override
        public String toString() {
            return upload.toString();
        }
    }
}
