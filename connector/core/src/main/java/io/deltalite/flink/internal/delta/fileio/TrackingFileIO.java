package io.deltalite.flink.internal.delta.fileio;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
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
 *       that a failed write can delete what it had started — including a half-written file. A file
 *       still being written when its scope ends is {@linkplain Abandonable abandoned}, so that no
 *       descriptor stays open and no multipart upload is left behind.
 * </ul>
 */
public final class TrackingFileIO extends ForwardingFileIO {
    private static final ThreadLocal<WriteScope> CURRENT = new ThreadLocal<>();

    private final Map<String, String> settings;

    public TrackingFileIO(FileIO delegate, Map<String, String> settings) {
        super(delegate);
        this.settings = Map.copyOf(settings);
    }

    /** Collects the files created by the current thread until closed. */
    public static final class WriteScope implements AutoCloseable {
        private final WriteScope outer;
        private final List<String> created = new ArrayList<>();
        private final List<Abandonable> open = new ArrayList<>();

        public WriteScope() {
            outer = CURRENT.get();
            CURRENT.set(this);
        }

        public List<String> createdFiles() {
            return created;
        }

        /** Abandons the files that were started in this scope and never closed. */
        @Override
        public void close() {
            for (Abandonable file : open) {
                file.abandonIfOpen();
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

    /** An output file that registers its streams with the scope it was created in. */
    private record ScopedOutputFile(OutputFile file, WriteScope scope) implements OutputFile {
        @Override
        public String path() {
            return file.path();
        }

        @Override
        public PositionOutputStream create(boolean atomicWrite) throws IOException {
            PositionOutputStream stream = file.create(atomicWrite);
            if (stream instanceof Abandonable file) {
                scope.open.add(file);
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
