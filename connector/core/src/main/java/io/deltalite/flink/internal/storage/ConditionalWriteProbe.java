package io.deltalite.flink.internal.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out whether an S3 endpoint honours conditional writes: it writes one probe object twice
 * with {@code If-None-Match: *} and deletes it. A store that accepts the second write ignores the
 * condition — on it, two commits of the same Delta version would both "succeed", one overwriting
 * the other.
 *
 * <p>The answer is kept per endpoint and bucket for the life of the JVM, so the writers and the
 * committer of a job, and later jobs in the same task manager, probe once. Probes that fail (no
 * access, no bucket) are not remembered.
 */
final class ConditionalWriteProbe {
    private static final Logger LOG = LoggerFactory.getLogger(ConditionalWriteProbe.class);

    /** Prefix of probe objects in a table's {@code _delta_log/}; Delta readers ignore them. */
    static final String PROBE_PREFIX = ".deltalite-probe-";

    private static final Map<S3Endpoint, Boolean> HONOURED = new ConcurrentHashMap<>();

    private ConditionalWriteProbe() {}

    /**
     * Whether the endpoint of {@code fs} honours conditional writes, probed under {@code directory}
     * unless known already.
     */
    static boolean honoursConditionalWrites(FileSystem fs, Path directory) throws IOException {
        S3Endpoint endpoint = S3Endpoint.of(fs);
        Boolean known = HONOURED.get(endpoint);
        if (known != null) {
            return known;
        }
        boolean honoured = probe(fs, directory);
        HONOURED.putIfAbsent(endpoint, honoured);
        LOG.info(
                "S3 {} {} conditional writes (If-None-Match).",
                endpoint.describe(),
                honoured ? "honours" : "IGNORES");
        return honoured;
    }

    /** Writes a probe object twice under {@code directory}; true if the second write failed. */
    static boolean probe(FileSystem fs, Path directory) throws IOException {
        Path probe = new Path(directory, PROBE_PREFIX + UUID.randomUUID());
        try {
            ConditionalPut.write(fs, probe, "first".getBytes(StandardCharsets.UTF_8));
            try {
                ConditionalPut.write(fs, probe, "second".getBytes(StandardCharsets.UTF_8));
                return false;
            } catch (FileAlreadyExistsException expected) {
                return true;
            }
        } finally {
            deleteQuietly(fs, probe);
        }
    }

    private static void deleteQuietly(FileSystem fs, Path probe) {
        try {
            fs.delete(probe, false);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not delete the probe object {}: {}", probe, e.toString());
        }
    }
}
