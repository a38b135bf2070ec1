package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;

/** Adapters between Java iterators and Kernel's closeable iterators. */
public final class KernelIterators {
    private KernelIterators() {}

    public static <T> CloseableIterator<T> of(Iterator<T> iterator) {
        return of(iterator, () -> {});
    }

    static <T> CloseableIterator<T> of(Iterator<T> iterator, AutoCloseable onClose) {
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return iterator.hasNext();
            }

            @Override
            public T next() {
                return iterator.next();
            }

            @Override
            public void close() throws IOException {
                try {
                    onClose.close();
                } catch (IOException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException(e);
                }
            }
        };
    }

    static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            // Closing a reader after its data was consumed or abandoned; nothing to recover.
        }
    }

    static void close(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
