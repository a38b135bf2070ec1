package io.deltalite.flink.internal.delta.fileio;

import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import java.io.IOException;

/**
 * A file Kernel reads on S3, read with deltalite's context class loader ({@link
 * ConnectorClassLoader}).
 */
final class S3InputFile implements InputFile {
    private final InputFile hadoop;

    S3InputFile(InputFile hadoop) {
        this.hadoop = hadoop;
    }

    @Override
    public long length() throws IOException {
        return ConnectorClassLoader.call(hadoop::length);
    }

    @Override
    public String path() {
        return hadoop.path();
    }

    @Override
    public SeekableInputStream newStream() throws IOException {
        return new Stream(ConnectorClassLoader.call(hadoop::newStream));
    }

    private static final class Stream extends SeekableInputStream {
        private final SeekableInputStream in;

        Stream(SeekableInputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            return ConnectorClassLoader.call(in::read);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return ConnectorClassLoader.call(() -> in.read(b, off, len));
        }

        @Override
        public void readFully(byte[] b, int off, int len) throws IOException {
            ConnectorClassLoader.run(() -> in.readFully(b, off, len));
        }

        @Override
        public long getPos() throws IOException {
            return in.getPos();
        }

        @Override
        public void seek(long newPos) throws IOException {
            ConnectorClassLoader.run(() -> in.seek(newPos));
        }

        @Override
        public void close() throws IOException {
            ConnectorClassLoader.run(in::close);
        }
    }
}
