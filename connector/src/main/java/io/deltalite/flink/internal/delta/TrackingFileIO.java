package io.deltalite.flink.internal.delta;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file system access of deltalite's Kernel engine. It adds two things to Hadoop's:
 *
 * <ul>
 *   <li>settings of this table (Parquet batch, row-group and target file sizes) that Kernel's
 *       readers and writers look up by name, without touching the shared Hadoop configuration;
 *   <li>a record of every file created on the current thread while a {@link WriteScope} is open, so
 *       that a failed write can delete what it had started — including a half-written file. An S3
 *       upload still open when its scope ends is aborted, so that no multipart upload is left
 *       behind.
 * </ul>
 */
final class TrackingFileIO extends ForwardingFileIO {
    private static final Logger LOG = LoggerFactory.getLogger(TrackingFileIO.class);
    private static final ThreadLocal<WriteScope> CURRENT = new ThreadLocal<>();

    private final Map<String, String> settings;

    TrackingFileIO(FileIO delegate, Map<String, String> settings) {
        super(delegate);
        this.settings = Map.copyOf(settings);
    }

    /** Collects the files created by the current thread until closed. */
    static final class WriteScope implements AutoCloseable {
        private final WriteScope outer;
        private final List<String> created = new ArrayList<>();
        private final List<S3OutputFile.UploadStream> uploads = new ArrayList<>();

        WriteScope() {
            outer = CURRENT.get();
            CURRENT.set(this);
        }

        List<String> createdFiles() {
            return created;
        }

        /** Aborts the uploads that were started in this scope and never closed. */
        @Override
        public void close() {
            for (S3OutputFile.UploadStream upload : uploads) {
                if (upload.abortIfOpen()) {
                    LOG.info("Aborted an unfinished upload: {}", upload);
                }
            }
            if (outer == null) {
                CURRENT.remove();
            } else {
                outer.created.addAll(created);
                CURRENT.set(outer);
            }
        }
    }

    @Override
    public OutputFile newOutputFile(String path) {
        OutputFile file = delegate.newOutputFile(path);
        WriteScope scope = CURRENT.get();
        if (scope == null) {
            return file;
        }
        scope.created.add(path);
        return new ScopedOutputFile(file, scope);
    }

    /** An output file that registers its S3 uploads with the scope it was created in. */
    private record ScopedOutputFile(OutputFile file, WriteScope scope) implements OutputFile {
        @Override
        public String path() {
            return file.path();
        }

        @Override
        public PositionOutputStream create(boolean atomicWrite) throws IOException {
            PositionOutputStream stream = file.create(atomicWrite);
            if (stream instanceof S3OutputFile.UploadStream upload) {
                scope.uploads.add(upload);
            }
            return stream;
        }

        @Override
        public void writeAtomically(CloseableIterator<String> data, boolean overwrite)
                throws IOException {
            file.writeAtomically(data, overwrite);
        }
    }

    @Override
    public Optional<String> getConf(String confKey) {
        String value = settings.get(confKey);
        return value != null ? Optional.of(value) : delegate.getConf(confKey);
    }
}
