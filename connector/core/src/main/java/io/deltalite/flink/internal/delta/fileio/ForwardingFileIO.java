package io.deltalite.flink.internal.delta.fileio;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.util.Optional;

/** A file access that forwards every call; subclasses change only what they need to. */
abstract class ForwardingFileIO implements FileIO {
    protected final FileIO delegate;

    ForwardingFileIO(FileIO delegate) {
        this.delegate = delegate;
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return delegate.newOutputFile(path);
    }

    @Override
    public Optional<String> getConf(String confKey) {
        return delegate.getConf(confKey);
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
