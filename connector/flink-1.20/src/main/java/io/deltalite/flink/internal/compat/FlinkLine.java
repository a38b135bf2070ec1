package io.deltalite.flink.internal.compat;

import org.apache.flink.annotation.Internal;

/** The Flink line this connector artifact is compiled for: Flink 1.20, the LTS line. */
@Internal
public final class FlinkLine {
    /** The Maven coordinates of this line's connector, for error messages. */
    public static final String ARTIFACT = "io.deltalite:deltalite-connector-flink-1.20";

    /** The Flink versions this line is built for, in words. */
    public static final String VERSIONS = "Flink 1.20 from 1.20.2 (built and tested with 1.20.3)";

    private FlinkLine() {}

    /**
     * Whether this artifact can run on Flink {@code major.minor.patch}. Flink 1.20.0, 1.20.1 and
     * 2.0.0 send a writer's last committables at end of input under the end-of-input id instead of
     * the next checkpoint's (changed by FLINK-37605); deltalite is not tested with that, so they
     * are refused.
     */
    public static boolean runsOn(int major, int minor, int patch) {
        return major == 1 && minor == 20 && patch >= 2;
    }
}
