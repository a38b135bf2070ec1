package io.deltalite.flink.internal.delta.fileio;

import io.delta.storage.CloseableIterator;
import io.delta.storage.LogStore;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * Named as the Kernel log store of the S3 schemes in the Hadoop configuration of a table that
 * deltalite writes, so that nothing can fall back to Kernel's default {@code
 * S3SingleDriverLogStore}: its put-if-absent is a lock inside one JVM, and with a second writer it
 * loses commits. {@link S3FileIO} keeps every log operation away from log stores; if one were ever
 * created anyway, creating it fails loudly.
 */
public final class LogStoreGuard extends LogStore {
    /** The Kernel settings that choose the log store of each S3 scheme. */
    static final List<String> S3_LOG_STORE_KEYS =
            List.of(
                    "io.delta.kernel.logStore.s3a.impl",
                    "io.delta.kernel.logStore.s3.impl",
                    "io.delta.kernel.logStore.s3n.impl");

    public LogStoreGuard(Configuration hadoopConf) {
        super(hadoopConf);
        throw new IllegalStateException(
                "A Delta log operation on S3 bypassed deltalite's conditional-write log access"
                        + " and asked Kernel for a log store. This is a bug in deltalite; please"
                        + " report it with the stack trace.");
    }

    /** Points every S3 scheme's Kernel log store at this guard. */
    public static void install(Configuration hadoopConf) {
        S3_LOG_STORE_KEYS.forEach(key -> hadoopConf.set(key, LogStoreGuard.class.getName()));
    }

    @Override
    public CloseableIterator<String> read(Path path, Configuration hadoopConf) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void write(
            Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Iterator<FileStatus> listFrom(Path path, Configuration hadoopConf) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Path resolvePathOnPhysicalStorage(Path path, Configuration hadoopConf) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Boolean isPartialWriteVisible(Path path, Configuration hadoopConf) {
        throw new UnsupportedOperationException();
    }
}
