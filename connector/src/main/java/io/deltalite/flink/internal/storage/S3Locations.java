package io.deltalite.flink.internal.storage;

import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3A;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

/**
 * Which table locations are on S3, and the Hadoop settings that serve every S3 scheme with S3A.
 *
 * <p>{@code s3://} is mapped to S3A by configuration, not by rewriting paths: the scheme the user
 * gave stays in every path deltalite and Kernel derive from the location, so the log stays
 * consistent with what other readers of the table are given.
 */
public final class S3Locations {
    private static final Set<String> S3A_SCHEMES = Set.of("s3a", "s3");

    private S3Locations() {}

    /** Whether {@code location} is served by S3A: {@code s3a://} or {@code s3://}. */
    public static boolean isS3(String location) {
        String scheme = new Path(location).toUri().getScheme();
        return scheme != null && S3A_SCHEMES.contains(scheme.toLowerCase(Locale.ROOT));
    }

    /**
     * Makes {@code s3://} use S3A, unless the user configured another implementation for it. Hadoop
     * 3 has no {@code s3://} file system of its own.
     */
    public static void serveS3SchemeWithS3A(Configuration conf) {
        setIfAbsent(conf, "fs.s3.impl", S3AFileSystem.class.getName());
        setIfAbsent(conf, "fs.AbstractFileSystem.s3.impl", S3A.class.getName());
    }

    private static void setIfAbsent(Configuration conf, String key, String value) {
        if (conf.get(key) == null) {
            conf.set(key, value);
        }
    }
}
