package io.deltalite.flink.internal.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3ProxyServer;
import java.nio.file.FileAlreadyExistsException;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

/** The S3A settings deltalite adds where the user set none. */
class S3ADefaultsTest {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Test
    void theS3SchemeIsServedByS3A() {
        Configuration conf = new Configuration();
        S3ADefaults.apply(conf);

        assertThat(conf.get("fs.s3.impl")).isEqualTo(S3AFileSystem.class.getName());
        assertThat(S3Locations.isS3("s3://bucket/table")).isTrue();
        assertThat(S3Locations.isS3("S3A://bucket/table")).isTrue();
        assertThat(S3Locations.isS3("/data/table")).isFalse();
        assertThat(S3Locations.isS3("file:/data/table")).isFalse();
    }

    @Test
    void withoutConfiguredCredentialsTheAwsDefaultChainComesAfterTheKeysInTheSettings() {
        Configuration conf = new Configuration();
        S3ADefaults.apply(conf);

        assertThat(conf.getTrimmedStrings(S3ADefaults.CREDENTIALS_PROVIDER))
                .containsExactly(
                        "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider",
                        "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
                        AwsDefaultCredentialChain.class.getName());
    }

    @Test
    void settingsTheUserMadeAreKept() {
        Configuration conf = new Configuration();
        conf.set(S3ADefaults.CREDENTIALS_PROVIDER, "com.example.Provider");
        conf.set("fs.s3.impl", "com.example.S3FileSystem", "core-site.xml");
        S3ADefaults.apply(conf);

        assertThat(conf.get(S3ADefaults.CREDENTIALS_PROVIDER)).isEqualTo("com.example.Provider");
        assertThat(conf.get("fs.s3.impl")).isEqualTo("com.example.S3FileSystem");
    }

    @Test
    void credentialsFromJavaSystemPropertiesReachS3() throws Throwable {
        String table = "s3a://" + S3.server().createBucket() + "/table";
        Configuration conf = new Configuration();
        S3.server().hadoopOptions().forEach(conf::set);
        conf.unset("fs.s3a.access.key");
        conf.unset("fs.s3a.secret.key");
        conf.unset(S3ADefaults.CREDENTIALS_PROVIDER);
        S3ADefaults.apply(conf);

        withSystemProperties(
                Map.of(
                        "aws.accessKeyId", S3ProxyServer.ACCESS_KEY,
                        "aws.secretAccessKey", S3ProxyServer.SECRET_KEY,
                        // never ask an instance metadata service from a test
                        "aws.disableEc2Metadata", "true"),
                () -> {
                    S3TableStorage storage = S3TableStorage.open(table, conf, false);
                    String commit = table + "/_delta_log/00000000000000000000.json";
                    storage.putIfAbsent(commit, new byte[] {'{', '}'});
                    assertThatThrownBy(() -> storage.putIfAbsent(commit, new byte[] {'{', '}'}))
                            .isInstanceOf(FileAlreadyExistsException.class);
                });
    }

    private static void withSystemProperties(Map<String, String> properties, Executable body)
            throws Throwable {
        properties.forEach(System::setProperty);
        try {
            body.execute();
        } finally {
            properties.keySet().forEach(System::clearProperty);
        }
    }
}
