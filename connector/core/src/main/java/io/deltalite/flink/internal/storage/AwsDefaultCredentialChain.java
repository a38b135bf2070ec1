package io.deltalite.flink.internal.storage;

import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * The AWS SDK's default credential chain as an S3A credential provider: Java system properties,
 * environment variables, a web identity token (for example EKS service accounts), the shared
 * profile files, then container and EC2 instance roles. S3A's own default list has only the
 * environment and the container or instance role.
 *
 * <p>Each S3A file system creates its own chain (S3A needs a public constructor) and closes it with
 * the file system; the SDK's shared default instance is never closed by deltalite.
 */
public final class AwsDefaultCredentialChain implements AwsCredentialsProvider, SdkAutoCloseable {
    private final DefaultCredentialsProvider chain = DefaultCredentialsProvider.builder().build();

    public AwsDefaultCredentialChain() {}

    @Override
    public AwsCredentials resolveCredentials() {
        return chain.resolveCredentials();
    }

    @Override
    public void close() {
        chain.close();
    }

    @Override
    public String toString() {
        return "AwsDefaultCredentialChain";
    }
}
