package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.compat.FlinkLine;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses to run a connector artifact on a Flink line it was not compiled for, before anything
 * fails with a linkage error in the middle of a job. Each Flink line has its own artifact ({@link
 * FlinkLine}); the check runs where the job is built and again where writers and the committer
 * start, because the cluster's Flink can differ from the client's.
 */
@Internal
public final class FlinkVersionCheck {
    private static final Logger LOG = LoggerFactory.getLogger(FlinkVersionCheck.class);

    /** major.minor, then optionally .patch, then anything (vendor suffixes, -SNAPSHOT). */
    private static final Pattern VERSION =
            Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?(?:\\D.*)?$");

    private FlinkVersionCheck() {}

    /** Checks the Flink this JVM runs. */
    public static void checkRunningFlink() {
        check(EnvironmentInformation.getVersion());
    }

    /**
     * Checks {@code flinkVersion}; a version Flink cannot tell (an IDE run without Flink's manifest
     * says {@code <unknown>}) passes.
     *
     * @throws IllegalStateException naming the artifact to use instead
     */
    static void check(String flinkVersion) {
        String version = flinkVersion == null ? "" : flinkVersion.trim();
        Matcher parts = VERSION.matcher(version);
        if (!parts.matches()) {
            LOG.warn(
                    "Cannot tell which Flink this is (it says '{}'); this deltalite connector ({})"
                            + " is for {}.",
                    version,
                    FlinkLine.ARTIFACT,
                    FlinkLine.VERSIONS);
            return;
        }
        int major = Integer.parseInt(parts.group(1));
        int minor = Integer.parseInt(parts.group(2));
        // A snapshot without a patch number ("1.20-SNAPSHOT") is the newest of its line.
        int patch = parts.group(3) != null ? Integer.parseInt(parts.group(3)) : Integer.MAX_VALUE;
        if (!FlinkLine.runsOn(major, minor, patch)) {
            throw new IllegalStateException(
                    String.format(
                            "This deltalite connector (%s) is for %s, but it runs on Flink %s. "
                                    + "Use the artifact of your Flink line instead: "
                                    + "io.deltalite:deltalite-connector-flink-1.20 on Flink 1.20 "
                                    + "(1.20.2 or later), io.deltalite:deltalite-connector on "
                                    + "Flink 2.x (2.0.1 or later); for SQL, the same artifact "
                                    + "with classifier 'sql' in Flink's lib/.",
                            FlinkLine.ARTIFACT, FlinkLine.VERSIONS, version));
        }
    }
}
