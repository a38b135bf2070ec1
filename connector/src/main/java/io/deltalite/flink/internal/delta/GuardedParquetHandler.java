package io.deltalite.flink.internal.delta;

import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.engine.ParquetHandler;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Kernel's Parquet handler, except that a file written atomically (a log checkpoint) whose content
 * cannot be read to its end is marked for {@link PublishGuard}, which then keeps it from being
 * published.
 */
final class GuardedParquetHandler implements ParquetHandler {
    private final ParquetHandler delegate;

    GuardedParquetHandler(ParquetHandler delegate) {
        this.delegate = delegate;
    }

    @Override
    public CloseableIterator<FileReadResult> readParquetFiles(
            CloseableIterator<FileStatus> files, StructType schema, Optional<Predicate> predicate)
            throws IOException {
        return delegate.readParquetFiles(files, schema, predicate);
    }

    @Override
    public CloseableIterator<DataFileStatus> writeParquetFiles(
            String directory,
            CloseableIterator<FilteredColumnarBatch> data,
            List<Column> statsColumns)
            throws IOException {
        return delegate.writeParquetFiles(directory, data, statsColumns);
    }

    @Override
    public void writeParquetFileAtomically(
            String path, CloseableIterator<FilteredColumnarBatch> data) throws IOException {
        try {
            delegate.writeParquetFileAtomically(path, new Guarded(path, data));
        } finally {
            PublishGuard.forget(path);
        }
    }

    /** The content of {@code path}; a failure to produce it marks the path abandoned first. */
    private static final class Guarded implements CloseableIterator<FilteredColumnarBatch> {
        private final String path;
        private final CloseableIterator<FilteredColumnarBatch> source;

        Guarded(String path, CloseableIterator<FilteredColumnarBatch> source) {
            this.path = path;
            this.source = source;
        }

        @Override
        public boolean hasNext() {
            try {
                return source.hasNext();
            } catch (RuntimeException | Error e) {
                PublishGuard.abandon(path);
                throw e;
            }
        }

        @Override
        public FilteredColumnarBatch next() {
            try {
                return source.next();
            } catch (RuntimeException | Error e) {
                PublishGuard.abandon(path);
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            source.close();
        }
    }
}
