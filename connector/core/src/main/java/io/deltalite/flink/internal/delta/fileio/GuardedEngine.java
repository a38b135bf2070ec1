package io.deltalite.flink.internal.delta.fileio;

import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.ExpressionHandler;
import io.delta.kernel.engine.FileSystemClient;
import io.delta.kernel.engine.JsonHandler;
import io.delta.kernel.engine.MetricsReporter;
import io.delta.kernel.engine.ParquetHandler;
import java.util.List;

/** Kernel's default engine with a {@link GuardedParquetHandler}. */
public final class GuardedEngine implements Engine {
    private final Engine delegate;
    private final ParquetHandler parquet;

    public GuardedEngine(Engine delegate) {
        this.delegate = delegate;
        this.parquet = new GuardedParquetHandler(delegate.getParquetHandler());
    }

    @Override
    public ExpressionHandler getExpressionHandler() {
        return delegate.getExpressionHandler();
    }

    @Override
    public JsonHandler getJsonHandler() {
        return delegate.getJsonHandler();
    }

    @Override
    public FileSystemClient getFileSystemClient() {
        return delegate.getFileSystemClient();
    }

    @Override
    public ParquetHandler getParquetHandler() {
        return parquet;
    }

    @Override
    public List<MetricsReporter> getMetricsReporters() {
        return delegate.getMetricsReporters();
    }
}
