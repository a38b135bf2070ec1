package io.deltalite.flink.internal.storage;

import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.fs.Path;

/**
 * Which table locations are on S3.
 *
 * <p>{@code s3://} is served by S3A through configuration ({@link S3ADefaults}), not by rewriting
 * paths: the scheme the user gave stays in every path deltalite and Kernel derive from the
 * location, so the log stays consistent with what other readers of the table are given.
 */
public final class S3Locations {
    private static final Set<String> S3A_SCHEMES = Set.of("s3a", "s3");

    private S3Locations() {}

    /** Whether {@code location} is served by S3A: {@code s3a://} or {@code s3://}. */
    public static boolean isS3(String location) {
        String scheme = new Path(location).toUri().getScheme();
        return scheme != null && S3A_SCHEMES.contains(scheme.toLowerCase(Locale.ROOT));
    }
}
