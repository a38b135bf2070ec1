package io.deltalite.flink.internal.storage;

import io.deltalite.flink.exceptions.DeltaLiteStorageException;
import io.deltalite.flink.internal.merge.table.Causes;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.util.Locale;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.CredentialInitializationException;
import org.apache.hadoop.fs.s3a.S3AUtils;
import org.apache.hadoop.fs.s3a.UnknownStoreException;
import org.apache.hadoop.fs.s3a.auth.NoAuthWithAWSException;

/**
 * Asks the S3 store of a table once, quickly, when the job is built, whether it can be used as
 * configured — before S3A's retry loops get a chance to hide a typo for many minutes. Faults that
 * no retry heals end in a {@link DeltaLiteStorageException} naming the table, the setting, what the
 * store answered and what to change:
 *
 * <ul>
 *   <li>the endpoint's host is unknown, nothing listens on its port, or it does not speak TLS where
 *       {@code https} was asked for (a TCP connect and TLS handshake of at most {@value
 *       #CONNECT_TIMEOUT_MILLIS} ms each, skipped behind an S3A proxy and for AWS's default
 *       endpoint);
 *   <li>the store refuses the credentials, finds none, or says the session token expired, or the
 *       bucket does not exist (one request for the table path, through an S3A file system of its
 *       own with a single attempt and short timeouts).
 * </ul>
 *
 * A fault that may heal, or that may hold only for the client that builds the job — no answer in
 * time, a 5xx, anything not recognised — is {@link MaybeUnreachable}: the build goes on with a
 * warning and the writers, which use S3A's retries, meet the store themselves. Writers do not run
 * this check: on a task manager a blip must not fail a task that S3A would have carried through.
 */
public final class S3AccessCheck {
    static final int CONNECT_TIMEOUT_MILLIS = 5_000;
    private static final String PROBE_TIMEOUT = "10s";

    private S3AccessCheck() {}

    /**
     * The store did not answer the check in a way that proves a mistake: it may be unreachable only
     * from here, or only for now.
     */
    public static final class MaybeUnreachable extends java.io.UncheckedIOException {
        private static final long serialVersionUID = 1L;

        MaybeUnreachable(String message, IOException cause) {
            super(message, cause);
        }
    }

    /**
     * @throws DeltaLiteStorageException if the store of {@code location} cannot be used as {@code
     *     conf} configures it
     * @throws MaybeUnreachable if the store did not answer in a way that proves a mistake
     */
    public static void require(String location, Configuration settings) {
        Path table = new Path(location);
        String bucket = table.toUri().getHost();
        // As S3A reads them for this bucket: fs.s3a.bucket.<bucket>.* overrides applied.
        Configuration conf = S3AUtils.propagateBucketOptions(settings, bucket);
        String endpoint = endpoint(conf, bucket);
        if (!endpoint.isEmpty() && conf.getTrimmed("fs.s3a.proxy.host", "").isEmpty()) {
            requireReachable(location, endpoint, conf);
        }
        requireUsable(location, table, bucket, endpoint, conf);
    }

    /** The configured endpoint of {@code bucket} (per-bucket setting first), without user info. */
    private static String endpoint(Configuration conf, String bucket) {
        String endpoint =
                conf.getTrimmed(
                        "fs.s3a.bucket." + bucket + ".endpoint",
                        conf.getTrimmed("fs.s3a.endpoint", ""));
        return S3Endpoint.withoutUserInfo(endpoint);
    }

    private static void requireReachable(String location, String endpoint, Configuration conf) {
        URI uri = endpointUri(location, endpoint, conf);
        String host = uri.getHost();
        String bucket = new Path(location).toUri().getHost();
        if (host == null) {
            return; // not a URL S3A would understand either; S3A's own error is clearer
        }
        boolean tls = "https".equalsIgnoreCase(uri.getScheme());
        int port = uri.getPort() >= 0 ? uri.getPort() : tls ? 443 : 80;
        if (!conf.getBoolean("fs.s3a.path.style.access", false)
                && !isIpAddress(host)
                && !bucket.contains(".")) {
            // Virtual-host style: the client talks to <bucket>.<host>.
            host = bucket + "." + host;
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
            if (tls) {
                handshake(socket, host, port);
            }
        } catch (UnknownHostException e) {
            throw unreachable(
                    location,
                    endpoint,
                    "its host "
                            + host
                            + " is an unknown host"
                            + (conf.getBoolean("fs.s3a.path.style.access", false)
                                    ? ""
                                    : " (requests name the bucket in the host name; set"
                                            + " fs.s3a.path.style.access to true if the store"
                                            + " wants http://host/bucket)"),
                    e);
        } catch (ConnectException e) {
            throw unreachable(
                    location,
                    endpoint,
                    "the connection to "
                            + host
                            + ":"
                            + port
                            + " was refused: nothing listens there",
                    e);
        } catch (SocketTimeoutException e) {
            throw new MaybeUnreachable(
                    host
                            + ":"
                            + port
                            + " (fs.s3a.endpoint "
                            + endpoint
                            + ") did not answer within "
                            + CONNECT_TIMEOUT_MILLIS
                            + " ms from here",
                    e);
        } catch (SSLException e) {
            throw new DeltaLiteStorageException(
                    "Cannot reach S3 for the Delta table at "
                            + location
                            + ": the TLS handshake with fs.s3a.endpoint "
                            + endpoint
                            + " failed ("
                            + masked(e.getMessage(), conf)
                            + "). If that port serves plain HTTP, write the endpoint as http://"
                            + host
                            + ":"
                            + port
                            + " and set fs.s3a.connection.ssl.enabled to false; if it uses a"
                            + " certificate the JVM does not trust, add it to the trust store.",
                    e);
        } catch (IOException e) {
            throw new MaybeUnreachable(
                    "connecting to fs.s3a.endpoint " + endpoint + " failed: " + e, e);
        }
    }

    private static void handshake(Socket socket, String host, int port) throws IOException {
        socket.setSoTimeout(CONNECT_TIMEOUT_MILLIS);
        try (SSLSocket tls =
                (SSLSocket)
                        ((SSLSocketFactory) SSLSocketFactory.getDefault())
                                .createSocket(socket, host, port, false)) {
            tls.startHandshake();
        } catch (SocketTimeoutException e) {
            throw new MaybeUnreachable(
                    host
                            + ":"
                            + port
                            + " gave no TLS answer within "
                            + CONNECT_TIMEOUT_MILLIS
                            + " ms",
                    e);
        }
    }

    private static boolean isIpAddress(String host) {
        return host.matches("[0-9.]+") || host.contains(":") || host.equals("localhost");
    }

    /** The endpoint as S3A reads it: without a scheme, {@code fs.s3a.connection.ssl.enabled}. */
    private static URI endpointUri(String location, String endpoint, Configuration conf) {
        String url = endpoint;
        if (!endpoint.contains("://")) {
            boolean ssl = conf.getBoolean("fs.s3a.connection.ssl.enabled", true);
            url = (ssl ? "https://" : "http://") + endpoint;
        }
        try {
            return URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new DeltaLiteStorageException(
                    "The S3 endpoint of the Delta table at "
                            + location
                            + " is not a URL: fs.s3a.endpoint = "
                            + endpoint
                            + ". Write it as http(s)://host[:port].",
                    e);
        }
    }

    private static DeltaLiteStorageException unreachable(
            String location, String endpoint, String why, Exception cause) {
        return new DeltaLiteStorageException(
                "Cannot reach S3 for the Delta table at "
                        + location
                        + ": fs.s3a.endpoint is "
                        + endpoint
                        + ", and "
                        + why
                        + ". Check the endpoint's host and port (a typo?) and that the S3 service"
                        + " runs and can be reached from here; nothing was written.",
                cause);
    }

    /** One request for the table path, with a single attempt: credentials, bucket. */
    private static void requireUsable(
            String location, Path table, String bucket, String endpoint, Configuration conf) {
        Configuration probe = new Configuration(conf);
        probe.setInt("fs.s3a.attempts.maximum", 1);
        probe.setInt("fs.s3a.retry.limit", 1);
        probe.set("fs.s3a.retry.interval", "100ms");
        probe.setInt("fs.s3a.retry.throttle.limit", 1);
        probe.set("fs.s3a.retry.throttle.interval", "100ms");
        probe.set("fs.s3a.connection.establish.timeout", PROBE_TIMEOUT);
        probe.set("fs.s3a.connection.timeout", PROBE_TIMEOUT);
        probe.set("fs.s3a.connection.request.timeout", PROBE_TIMEOUT);
        String store = (endpoint.isEmpty() ? "AWS S3" : "S3 at " + endpoint);
        FileSystem fs;
        try {
            fs = FileSystem.newInstance(table.toUri(), probe);
        } catch (IOException e) {
            throw unusable(location, bucket, store, e, conf);
        }
        try {
            fs.getFileStatus(table);
        } catch (IOException e) {
            if (e instanceof FileNotFoundException && !isUnknownBucket(e)) {
                return; // no table yet: creating it is the sink's business
            }
            // An error answer to a HEAD request has no body, so no S3 error code; a listing's
            // answer has one ("ExpiredToken", "NoSuchBucket", ...).
            IOException detailed = e;
            try {
                fs.listStatus(table);
                // A policy may grant only the keys under the table's prefix (bucket/t/*), not
                // the key "t" itself: the listing is what the table needs.
                return;
            } catch (IOException listing) {
                if (!(listing instanceof FileNotFoundException) || isUnknownBucket(listing)) {
                    detailed = listing;
                    listing.addSuppressed(e);
                }
            }
            throw unusable(location, bucket, store, detailed, conf);
        } finally {
            try {
                fs.close();
            } catch (IOException e) {
                // the probe's own file system; nothing to keep
            }
        }
    }

    /** What the failed request says about the settings, in the order that explains most. */
    private static DeltaLiteStorageException unusable(
            String location, String bucket, String store, IOException e, Configuration conf) {
        if (e instanceof org.apache.hadoop.fs.s3a.AWSServiceIOException service
                && service.statusCode() >= 500) {
            throw new MaybeUnreachable(
                    store
                            + " is in trouble (HTTP "
                            + service.statusCode()
                            + "): "
                            + answer(e, conf),
                    e);
        }
        if (Causes.has(e, CredentialInitializationException.class)
                || Causes.has(e, NoAuthWithAWSException.class)) {
            return new DeltaLiteStorageException(
                    "Found no S3 credentials for the Delta table at "
                            + location
                            + ": "
                            + answer(e, conf)
                            + ". Set fs.s3a.access.key and fs.s3a.secret.key, or configure"
                            + " fs.s3a.aws.credentials.provider (for example the AWS SDK's"
                            + " default chain: environment, profile, instance role).",
                    e);
        }
        if (mentions(e, "expiredtoken") || mentions(e, "token has expired")) {
            return new DeltaLiteStorageException(
                    store
                            + " refused the session token of the credentials for the Delta table at "
                            + location
                            + ": it has expired ("
                            + answer(e, conf)
                            + "). Temporary credentials (fs.s3a.session.token) last hours at most:"
                            + " use a credentials provider that renews them"
                            + " (fs.s3a.aws.credentials.provider, for example an assumed role or"
                            + " the AWS SDK's default chain), or give fresh ones.",
                    e);
        }
        if (isUnknownBucket(e)) {
            return new DeltaLiteStorageException(
                    "The bucket "
                            + bucket
                            + " of the Delta table at "
                            + location
                            + " does not exist in "
                            + store
                            + ". Create the bucket, or fix the bucket name in the table path (or"
                            + " the endpoint and region, if it lives elsewhere).",
                    e);
        }
        if (e instanceof AccessDeniedException) {
            return new DeltaLiteStorageException(
                    store
                            + " refused the request for the Delta table at "
                            + location
                            + " (access denied: "
                            + answer(e, conf)
                            + "). Either it does not accept the credentials — check"
                            + " fs.s3a.access.key and fs.s3a.secret.key (and fs.s3a.session.token"
                            + " for temporary credentials, which expire), or the credentials"
                            + " provider in fs.s3a.aws.credentials.provider — or they may not read"
                            + " this path: the table needs list, read and write permission on "
                            + location
                            + ".",
                    e);
        }
        throw new MaybeUnreachable(
                store
                        + " did not answer a request for the Delta table at "
                        + location
                        + " in a way that tells what is wrong: "
                        + answer(e, conf),
                e);
    }

    /**
     * If {@code error} is the store refusing access (HTTP 403, or a local permission), the error to
     * show instead: what was refused, and the permissions the table needs.
     *
     * @param doing what was refused, for example {@code "reading its Delta log"}
     */
    public static java.util.Optional<DeltaLiteStorageException> denied(
            String location, String doing, Throwable error) {
        for (Throwable t = error; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof AccessDeniedException) {
                return java.util.Optional.of(
                        new DeltaLiteStorageException(
                                "The storage of the Delta table at "
                                        + location
                                        + " refused "
                                        + doing
                                        + " (access denied: "
                                        + oneLine(t.getMessage())
                                        + "). The sink needs list, read, write and delete"
                                        + " permission on the table's folder, _delta_log/ and"
                                        + " _deltalite/ included; grant them to the credentials"
                                        + " it uses. Nothing was committed.",
                                error));
            }
        }
        return java.util.Optional.empty();
    }

    private static String oneLine(String message) {
        return message == null ? "" : message.replaceAll("\\s+", " ").trim();
    }

    private static boolean mentions(Throwable e, String words) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT).contains(words)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isUnknownBucket(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (t instanceof UnknownStoreException || message.contains("nosuchbucket")) {
                return true;
            }
        }
        return false;
    }

    /** What the store answered, in one line, with any configured secret masked. */
    private static String answer(Throwable e, Configuration conf) {
        return masked(Causes.rootMessage(e), conf);
    }

    /** {@code text} in one line, with the value of every secret S3A setting replaced by ****. */
    static String masked(String text, Configuration conf) {
        String message = text == null ? "" : text;
        for (java.util.Map.Entry<String, String> setting : conf) {
            String key = setting.getKey();
            if (key.startsWith("fs.s3a.")
                    && (key.endsWith(".secret.key")
                            || key.endsWith(".session.token")
                            || key.endsWith(".access.key")
                            || key.endsWith(".proxy.password")
                            || key.contains("encryption.key"))) {
                String secret = conf.getTrimmed(key, "");
                if (secret.length() >= 4) {
                    message = message.replace(secret, "****");
                }
            }
        }
        return message.replaceAll("\\s+", " ").trim();
    }
}
