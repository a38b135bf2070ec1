package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.compat.FlinkLine;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.util.EnvironmentInformation;

/**
 * Refuses to run a connector artifact on a Flink line it was not compiled for, before anything
 * fails with a linkage error in the middle of a job. Each Flink line has its own artifact ({@link
 * FlinkLine}); the check runs where the job is built and again where writers and the committer
 * start, because the cluster's Flink can differ from the client's.
 */
@Internal
public final class FlinkVersionCheck {
    private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\D.*)?$");

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
        Matcher version = MAJOR_MINOR.matcher(flinkVersion == null ? "" : flinkVersion.trim());
        if (!version.matches()) {
            return;
        }
        int major = Integer.parseInt(version.group(1));
        int minor = Integer.parseInt(version.group(2));
        if (!FlinkLine.runsOn(major, minor)) {
            throw new IllegalStateException(
                    String.format(
                            "This deltalite connector (%s) is for %s, but it runs on Flink %s. "
                                    + "Use the artifact of your Flink line instead: "
                                    + "io.deltalite:deltalite-connector-flink-1.20 on Flink 1.20, "
                                    + "io.deltalite:deltalite-connector on Flink 2.x (for SQL, "
                                    + "the same artifact with classifier 'sql' in Flink's lib/).",
                            FlinkLine.ARTIFACT, FlinkLine.VERSIONS, flinkVersion));
        }
    }
}
