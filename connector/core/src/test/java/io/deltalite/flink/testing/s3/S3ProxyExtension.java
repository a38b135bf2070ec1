package io.deltalite.flink.testing.s3;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs one {@link S3ProxyServer} for a test class:
 *
 * <pre>{@code
 * @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();
 * ... S3.server().createBucket() ...
 * }</pre>
 */
public final class S3ProxyExtension implements BeforeAllCallback, AfterAllCallback {
    private final boolean checkSignatures;
    private S3ProxyServer server;

    /** A server that checks signatures, as S3 does. */
    public S3ProxyExtension() {
        this(true);
    }

    public S3ProxyExtension(boolean checkSignatures) {
        this.checkSignatures = checkSignatures;
    }

    public S3ProxyServer server() {
        if (server == null) {
            throw new IllegalStateException(
                    "the S3Proxy server runs only while the test class does");
        }
        return server;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = S3ProxyServer.start(checkSignatures);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
