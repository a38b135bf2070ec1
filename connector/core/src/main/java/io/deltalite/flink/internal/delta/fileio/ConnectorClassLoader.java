package io.deltalite.flink.internal.delta.fileio;

/**
 * Runs calls into S3A with deltalite's own class loader as the thread's context class loader.
 *
 * <p>S3A starts the threads of its pools lazily, from the thread that submits work, and a new
 * thread inherits that thread's context class loader. In a Flink task that is the job's user-code
 * class loader, which Flink closes when the job ends. The S3A file system, though, is cached per
 * bucket for the life of the JVM wherever Hadoop's classes are shared between jobs (the connector
 * in Flink's {@code lib/}), and its threads would then fail the next job with "Trying to access
 * closed classloader". With this class loader in place they inherit one that lives as long as the
 * file system does.
 */
public final class ConnectorClassLoader {
    private static final ClassLoader CONNECTOR = ConnectorClassLoader.class.getClassLoader();

    /** A call that may throw {@code E}. */
    @FunctionalInterface
    public interface Call<T, E extends Exception> {
        T call() throws E;
    }

    /** An action that may throw {@code E}. */
    @FunctionalInterface
    public interface Action<E extends Exception> {
        void run() throws E;
    }

    private ConnectorClassLoader() {}

    public static <T, E extends Exception> T call(Call<T, E> call) throws E {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        if (previous == CONNECTOR) {
            return call.call();
        }
        thread.setContextClassLoader(CONNECTOR);
        try {
            return call.call();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    public static <E extends Exception> void run(Action<E> action) throws E {
        ConnectorClassLoader.<Void, E>call(
                () -> {
                    action.run();
                    return null;
                });
    }

    /**
     * {@code inner}, each of whose steps runs with this class loader as the context loader (Parquet
     * reads and writes lazily, as the iterator is stepped).
     */
    public static <T> io.delta.kernel.utils.CloseableIterator<T> inConnectorLoader(
            io.delta.kernel.utils.CloseableIterator<T> inner) {
        return new InConnectorLoader<>(inner);
    }

    private static final class InConnectorLoader<T>
            implements io.delta.kernel.utils.CloseableIterator<T> {
        private final io.delta.kernel.utils.CloseableIterator<T> inner;

        InConnectorLoader(io.delta.kernel.utils.CloseableIterator<T> inner) {
            this.inner = inner;
        }

        @Override
        public boolean hasNext() {
            return call(inner::hasNext);
        }

        @Override
        public T next() {
            return call(inner::next);
        }

        @Override
        public void close() throws java.io.IOException {
            run(inner::close);
        }
    }
}
