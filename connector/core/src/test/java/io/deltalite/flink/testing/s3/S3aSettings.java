package io.deltalite.flink.testing.s3;

import java.util.LinkedHashMap;
import java.util.Map;

/** The Hadoop S3A settings the tests use to reach a loopback S3 endpoint. */
public final class S3aSettings {
    private S3aSettings() {}

    /** Path-style requests without TLS to {@code endpoint}, with the test credentials. */
    public static Map<String, String> forEndpoint(String endpoint) {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("fs.s3a.endpoint", endpoint);
        options.put("fs.s3a.endpoint.region", "us-east-1");
        options.put("fs.s3a.path.style.access", "true");
        options.put("fs.s3a.connection.ssl.enabled", "false");
        options.put(
                "fs.s3a.aws.credentials.provider",
                "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        options.put("fs.s3a.access.key", S3ProxyServer.ACCESS_KEY);
        options.put("fs.s3a.secret.key", S3ProxyServer.SECRET_KEY);
        return options;
    }
}
