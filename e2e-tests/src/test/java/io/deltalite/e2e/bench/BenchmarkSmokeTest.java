package io.deltalite.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every benchmark scenario at a tiny scale, once, so that the benchmarks keep working. About three
 * minutes on 2 cores, so it runs with the benchmarks rather than in every build (BENCHMARKS.md).
 */
@Tag("benchmark")
class BenchmarkSmokeTest {
    @TempDir Path dir;

    @Test
    void everyScenarioRunsAndReports() {
        BenchmarkRunner runner =
                new BenchmarkRunner(dir, 1, 0.004)
                        .withoutSmallestHeap()
                        .withVectorCommitLevels(0, 20);
        BenchmarkSuite.runScenarios(
                runner, List.of("memory", "spark", "floor", "amplification", "probe", "vectors"));
        String report = runner.report();
        assertThat(report)
                .contains("1. Memory vs table size")
                .contains("Ratios (Spark / deltalite")
                .contains("deltalite / floor")
                .contains("temporally local (one file)")
                .contains("5. Probe effectiveness")
                .contains("7. Deletion vectors")
                .contains("Scan after 20 checkpoints");
        // After 20 checkpoints of corrections both readers still see every row of the table:
        // 8 files of 640,000 × 0.004 rows.
        assertThat(report)
                .containsPattern("\\| 20 \\| [1-9]\\d* \\| [\\d,]+ \\| [\\d,]+ \\| 20,480 \\|");
        // The temporally-local probe found its one file: probed 8, rewrote 1.
        assertThat(report).containsPattern("\\| temporally local \\| 8 \\| 1 \\| 1 \\|");
    }
}
