package io.deltalite.flink.internal.delta.fileio;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import java.io.IOException;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;

/**
 * Data files as parquet-java reads them, opened through the table's own file access — the one
 * Kernel reads through (local disk, or S3 with deltalite's class loader) — so a reader over
 * parquet-java takes the same path to storage as Kernel's.
 */
public final class ParquetInputFiles {
    private ParquetInputFiles() {}

    /** The file at {@code path}, of {@code size} bytes (or unknown when not positive). */
    public static InputFile open(FileIO files, String path, long size) {
        io.delta.kernel.defaults.engine.fileio.InputFile file = files.newInputFile(path, size);
        return new InputFile() {
            @Override
            public long getLength() throws IOException {
                return size > 0 ? size : file.length();
            }

            @Override
            public org.apache.parquet.io.SeekableInputStream newStream() throws IOException {
                return new Stream(file.newStream());
            }

            @Override
            public String toString() {
                return path;
            }
        };
    }

    private static final class Stream extends DelegatingSeekableInputStream {
        private final SeekableInputStream in;

        Stream(SeekableInputStream in) {
            super(in);
            this.in = in;
        }

        @Override
        public long getPos() throws IOException {
            return in.getPos();
        }

        @Override
        public void seek(long position) throws IOException {
            in.seek(position);
        }

        @Override
        public void readFully(byte[] bytes, int offset, int length) throws IOException {
            in.readFully(bytes, offset, length);
        }
    }
}
