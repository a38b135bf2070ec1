package io.deltalite.flink.internal.delta.table;

import java.io.IOException;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A data file as parquet-java writes it: a stream of Kernel's file IO, created already (through a
 * {@link io.deltalite.flink.internal.delta.fileio.TrackingFileIO}, so that a failed write abandons
 * it).
 */
record KernelOutputFile(
        io.delta.kernel.defaults.engine.fileio.PositionOutputStream stream, String path)
        implements OutputFile {
    @Override
    public PositionOutputStream create(long blockSizeHint) {
        return new PositionOutputStream() {
            @Override
            public long getPos() throws IOException {
                return stream.getPos();
            }

            @Override
            public void write(int b) throws IOException {
                stream.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                stream.write(bytes, offset, length);
            }

            @Override
            public void flush() throws IOException {
                stream.flush();
            }

            @Override
            public void close() throws IOException {
                stream.close();
            }
        };
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
        return create(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return 0;
    }

    @Override
    public String getPath() {
        return path;
    }
}
