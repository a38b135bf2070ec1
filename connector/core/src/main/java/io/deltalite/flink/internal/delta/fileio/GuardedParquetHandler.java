package io.deltalite.flink.internal.delta.fileio;

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
 * Kernel's Parquet handler, with two differences:
 *
 * <ul>
 *   <li>a file written atomically (a log checkpoint) whose content cannot be read to its end is
 *       marked for {@link PublishGuard}, which then keeps it from being published;
 *   <li>every read and write runs with deltalite's class loader as the thread's context loader.
 *       Parquet builds a Hadoop configuration per reader and writer, which captures the context
 *       loader, and caches the compression codecs it creates — with that configuration — in a
 *       static map. Under a Flink task the context loader is the job's user-code loader, which
 *       Flink closes when the job ends; where the connector outlives a job (its jar in Flink's
 *       {@code lib/}, a mini cluster) every later zstd write would fail with "Trying to access
 *       closed classloader".
 * </ul>
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
        return ConnectorClassLoader.inConnectorLoader(
                ConnectorClassLoader.call(
                        () -> delegate.readParquetFiles(files, schema, predicate)));
    }

    @Override
    public CloseableIterator<DataFileStatus> writeParquetFiles(
            String directory,
            CloseableIterator<FilteredColumnarBatch> data,
            List<Column> statsColumns)
            throws IOException {
        return ConnectorClassLoader.inConnectorLoader(
                ConnectorClassLoader.call(
                        () -> delegate.writeParquetFiles(directory, data, statsColumns)));
    }

    @Override
    public void writeParquetFileAtomically(
            String path, CloseableIterator<FilteredColumnarBatch> data) throws IOException {
        try {
            ConnectorClassLoader.run(
                    () -> delegate.writeParquetFileAtomically(path, new Guarded(path, data)));
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
