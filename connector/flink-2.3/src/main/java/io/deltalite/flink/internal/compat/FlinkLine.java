package io.deltalite.flink.internal.compat;

import org.apache.flink.annotation.Internal;

/** The Flink line this connector artifact is compiled for: Flink 2.x. */
@Internal
public final class FlinkLine {
    /** The Maven coordinates of this line's connector, for error messages. */
    public static final String ARTIFACT = "io.deltalite:deltalite-connector";

    /** The Flink versions this line is built for, in words. */
    public static final String VERSIONS = "Flink 2.x (built and tested with 2.3.0)";

    private FlinkLine() {}

    /** Whether this artifact can run on Flink {@code major.minor}. */
    public static boolean runsOn(int major, int minor) {
        return major == 2;
    }
}
