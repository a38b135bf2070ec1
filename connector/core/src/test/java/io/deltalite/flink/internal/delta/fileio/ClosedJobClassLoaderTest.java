package io.deltalite.flink.internal.delta.fileio;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.sink.ParquetCompression;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connector that outlives a job — its jar in Flink's {@code lib/}, or a mini cluster running one
 * job after another — keeps compressing after Flink closed the first job's user-code class loader.
 * Parquet caches its codecs, with the Hadoop configuration they were created with, in a static map;
 * a configuration that captured the job's loader fails once Hadoop reloads it.
 */
class ClosedJobClassLoaderTest {
    @TempDir Path dir;

    @Test
    void aSecondJobCompressesAfterTheFirstJobsClassLoaderClosed() throws Exception {
        clearParquetCodecCache();
        Object[] row = {1L, "d1", 1};
        JobLoader first = new JobLoader(getClass().getClassLoader());
        inLoader(first, () -> write(dir.resolve("first"), row));
        first.close();
        // Hadoop reloads every configuration when a default resource is added (as classes such
        // as JobConf do when they load): the cached codec's configuration reads its loader again.
        Configuration.addDefaultResource("deltalite-test-reload.xml");

        JobLoader second = new JobLoader(getClass().getClassLoader());
        Object[] other = {2L, "d1", 2};
        inLoader(second, () -> write(dir.resolve("second"), other));
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.resolve("second").toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(other)));
    }

    private static void write(Path table, Object[] row) {
        try (UpsertHarness harness =
                UpsertHarness.open(
                        table.toString(),
                        LocalFileIOTest.EVENTS,
                        MergeOptions.DEFAULTS.withCompression(ParquetCompression.ZSTD))) {
            harness.upsert(row);
            harness.commit();
        }
    }

    private static void inLoader(ClassLoader loader, Runnable work) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            work.run();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @SuppressWarnings("unchecked")
    private static void clearParquetCodecCache() throws Exception {
        java.lang.reflect.Field cache =
                org.apache.parquet.hadoop.CodecFactory.class.getDeclaredField("CODEC_BY_NAME");
        cache.setAccessible(true);
        ((Map<String, ?>) cache.get(null)).clear();
    }

    /** Like Flink's user-code loader: once closed, every use of it fails. */
    private static final class JobLoader extends ClassLoader {
        private volatile boolean closed;

        JobLoader(ClassLoader parent) {
            super(parent);
        }

        void close() {
            closed = true;
        }

        private void check() {
            if (closed) {
                throw new IllegalStateException("Trying to access closed classloader.");
            }
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            check();
            return super.loadClass(name, resolve);
        }

        @Override
        public URL getResource(String name) {
            check();
            return super.getResource(name);
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            check();
            return super.getResources(name);
        }
    }
}
