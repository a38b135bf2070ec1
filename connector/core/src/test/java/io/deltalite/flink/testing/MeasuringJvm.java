package io.deltalite.flink.testing;

import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Refuses to run a {@link Benchmark} in a test JVM limited to the quick JIT. The build's test JVMs
 * run with {@code -XX:TieredStopAtLevel=1} ({@code test.jvm.jit} in the root pom: tests live too
 * briefly to earn back the optimizing compiler), under which the index build ran 1.6-1.9 times
 * slower than with the optimizing compiler a job runs with (BENCHMARKS.md §13a): a figure measured
 * so would be a figure of the build, not of deltalite.
 */
public final class MeasuringJvm implements BeforeEachCallback {
    private static final String QUICK_JIT_ONLY = "-XX:TieredStopAtLevel=1";

    @Override
    public void beforeEach(ExtensionContext context) {
        List<String> arguments = ManagementFactory.getRuntimeMXBean().getInputArguments();
        if (arguments.contains(QUICK_JIT_ONLY)) {
            throw new IllegalStateException(
                    context.getDisplayName()
                            + " measures, but this test JVM runs with "
                            + QUICK_JIT_ONLY
                            + " (the build's quick JIT for tests), under which deltalite runs"
                            + " 1.6-1.9x slower than in a job (BENCHMARKS.md §13a). Run it with"
                            + " -Dtest.jvm.jit= (empty), as the commands in BENCHMARKS.md do.");
        }
    }
}
