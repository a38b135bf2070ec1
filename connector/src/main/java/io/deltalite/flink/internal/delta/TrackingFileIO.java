package io.deltalite.flink.internal.delta;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The file system access of deltalite's Kernel engine. It adds two things to Hadoop's:
 *
 * <ul>
 *   <li>settings of this table (Parquet batch, row-group and target file sizes) that Kernel's
 *       readers and writers look up by name, without touching the shared Hadoop configuration;
 *   <li>a record of every file created on the current thread while a {@link WriteScope} is open, so
 *       that a failed write can delete what it had started — including a half-written file.
 * </ul>
 */
final class TrackingFileIO implements FileIO {
    private static final ThreadLocal<List<String>> CREATED = new ThreadLocal<>();

    private final FileIO delegate;
    private final Map<String, String> settings;

    TrackingFileIO(FileIO delegate, Map<String, String> settings) {
        this.delegate = delegate;
        this.settings = Map.copyOf(settings);
    }

    /** Collects the files created by the current thread until closed. */
    static final class WriteScope implements AutoCloseable {
        private final List<String> outer;
        private final List<String> created = new ArrayList<>();

        WriteScope() {
            outer = CREATED.get();
            CREATED.set(created);
        }

        List<String> createdFiles() {
            return created;
        }

        @Override
        public void close() {
            if (outer == null) {
                CREATED.remove();
            } else {
                outer.addAll(created);
                CREATED.set(outer);
            }
        }
    }

    @Override
    public OutputFile newOutputFile(String path) {
        List<String> created = CREATED.get();
        if (created != null) {
            created.add(path);
        }
        return delegate.newOutputFile(path);
    }

    @Override
    public Optional<String> getConf(String confKey) {
        String value = settings.get(confKey);
        return value != null ? Optional.of(value) : delegate.getConf(confKey);
    }

    @Override
    public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
        return delegate.listFrom(filePath);
    }

    @Override
    public FileStatus getFileStatus(String path) throws IOException {
        return delegate.getFileStatus(path);
    }

    @Override
    public String resolvePath(String path) throws IOException {
        return delegate.resolvePath(path);
    }

    @Override
    public boolean mkdirs(String path) throws IOException {
        return delegate.mkdirs(path);
    }

    @Override
    public InputFile newInputFile(String path, long fileSize) {
        return delegate.newInputFile(path, fileSize);
    }

    @Override
    public boolean delete(String path) throws IOException {
        return delegate.delete(path);
    }

    @Override
    public void copyFileAtomically(String srcPath, String destPath, boolean overwrite)
            throws IOException {
        delegate.copyFileAtomically(srcPath, destPath, overwrite);
    }
}
