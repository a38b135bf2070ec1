package io.deltalite.e2e.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks of BENCHMARKS.md, at full size. Not part of the default build:
 *
 * <pre>
 * mvn -B -ntp install -DskipTests
 * mvn -B -ntp -pl e2e-tests test -Dtest=BenchmarkSuite -Dsurefire.excludedGroups= \
 *     [-Dbench.scenarios=memory,spark,floor,amplification,probe,vectors] [-Dbench.repetitions=3] [-Dbench.dir=/tmp/deltalite-bench]
 * </pre>
 *
 * The markdown report is printed and written to {@code bench.dir/report.md}.
 */
@Tag("benchmark")
class BenchmarkSuite {
    @Test
    void run() throws Exception {
        Path work = Paths.get(System.getProperty("bench.dir", "/tmp/deltalite-bench"));
        List<String> scenarios =
                List.of(
                        System.getProperty(
                                        "bench.scenarios", "memory,spark,floor,amplification,probe")
                                .split(","));
        BenchmarkRunner runner =
                new BenchmarkRunner(work, Integer.getInteger("bench.repetitions", 3), 1.0);
        runScenarios(runner, scenarios);
        Files.createDirectories(work);
        Files.writeString(work.resolve("report.md"), runner.report());
        System.out.println(runner.report());
    }

    static void runScenarios(BenchmarkRunner runner, List<String> scenarios) {
        try {
            for (String scenario : scenarios) {
                switch (scenario.trim()) {
                    case "memory" -> runner.memoryVersusTableSize();
                    case "spark" -> runner.versusSparkMerge();
                    case "floor" -> runner.versusFloor();
                    case "amplification" -> runner.writeAmplification();
                    case "probe" -> runner.probeEffectiveness();
                    case "vectors" -> runner.deletionVectors();
                    default -> throw new IllegalArgumentException("unknown scenario " + scenario);
                }
                runner.deleteRuns();
            }
        } finally {
            runner.deleteRuns();
        }
    }
}
