package io.deltalite.flink.internal.delta.fileio;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.deltalite.flink.internal.faults.StorageFaults;
import io.deltalite.flink.internal.faults.StorageFaults.Operation;
import java.io.IOException;

/**
 * The outermost layer of a table's file access: it gives {@link StorageFaults} its chance. Files
 * opened for reading while no fault is armed are handed out unwrapped.
 */
public final class FaultInjectingFileIO extends ForwardingFileIO {

    public FaultInjectingFileIO(FileIO delegate) {
        super(delegate);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        OutputFile file = delegate.newOutputFile(path);
        Operation operation =
                LogFiles.isCommitFile(path) ? Operation.WRITE_COMMIT_FILE : Operation.WRITE_FILE;
        return new OutputFile() {
            @Override
            public String path() {
                return file.path();
            }

            @Override
            public PositionOutputStream create(boolean putIfAbsent) throws IOException {
                StorageFaults.at(operation, path, false);
                PositionOutputStream out = file.create(putIfAbsent);
                return new AbandonableStream() {
                    @Override
                    public boolean abandonIfOpen() {
                        return out instanceof Abandonable open && open.abandonIfOpen();
                    }

                    @Override
                    public long getPos() throws IOException {
                        return out.getPos();
                    }

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
                    public void close() throws IOException {
                        out.close();
                        StorageFaults.at(operation, path, true);
                    }
                };
            }

            @Override
            public void writeAtomically(CloseableIterator<String> data, boolean overwrite)
                    throws IOException {
                StorageFaults.at(operation, path, false);
                file.writeAtomically(data, overwrite);
                StorageFaults.at(operation, path, true);
            }
        };
    }

    /** A stream that stays abandonable through this layer. */
    private abstract static class AbandonableStream extends PositionOutputStream
            implements Abandonable {}

    @Override
    public InputFile newInputFile(String path, long fileSize) {
        InputFile file = delegate.newInputFile(path, fileSize);
        if (!StorageFaults.isArmed()) {
            // Kernel reads a Parquet file with the Hadoop configuration of a HadoopInputFile only;
            // given any other InputFile it builds a new Configuration per file (and parses
            // Hadoop's XML defaults again): 39 % of a Flink job's CPU when this always wrapped.
            return file;
        }
        return new InputFile() {
            @Override
            public long length() throws IOException {
                return file.length();
            }

            @Override
            public String path() {
                return file.path();
            }

            @Override
            public SeekableInputStream newStream() throws IOException {
                StorageFaults.at(Operation.READ_FILE, path, false);
                return file.newStream();
            }
        };
    }
}
