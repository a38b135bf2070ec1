package io.deltalite.flink.internal.storage;

import java.util.Objects;
import org.apache.hadoop.fs.FileSystem;

/**
 * The S3 service and bucket behind an S3A file system, as far as conditional writes are concerned:
 * two tables in the same bucket of the same endpoint share the answer of one probe.
 *
 * @param endpoint the configured endpoint (user information removed), or empty for AWS's default
 * @param bucket the bucket
 */
record S3Endpoint(String endpoint, String bucket) {

    S3Endpoint {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(bucket, "bucket");
    }

    /** The endpoint of an initialized S3A file system, after its per-bucket settings applied. */
    static S3Endpoint of(FileSystem fs) {
        return new S3Endpoint(
                withoutUserInfo(fs.getConf().getTrimmed("fs.s3a.endpoint", "")),
                fs.getUri().getHost());
    }

    /** How messages name it, for example {@code endpoint http://127.0.0.1:9000, bucket events}. */
    String describe() {
        return (endpoint.isEmpty() ? "the default AWS S3 endpoint" : "endpoint " + endpoint)
                + ", bucket "
                + bucket;
    }

    @Override
    public String toString() {
        return describe();
    }

    /** An endpoint URL may carry {@code user:password@}; it never reaches a message or a log. */
    static String withoutUserInfo(String endpoint) {
        int at = endpoint.lastIndexOf('@');
        if (at < 0) {
            return endpoint;
        }
        int schemeEnd = endpoint.indexOf("://");
        String scheme =
                schemeEnd >= 0 && schemeEnd < at ? endpoint.substring(0, schemeEnd + 3) : "";
        return scheme + endpoint.substring(at + 1);
    }
}
