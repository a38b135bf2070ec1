package io.deltalite.peers;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * BENCHMARKS.md section 11 at full scale (about an hour per repetition on 2 cores). Sizes are
 * system properties: {@code bench.bulk}, {@code bench.changes}, {@code bench.events}, {@code
 * bench.rate}, {@code bench.rateSeconds}, {@code bench.repetitions}, {@code bench.systems}
 * (comma-separated {@link PeerSystem} names), {@code bench.workloads} (comma-separated {@link
 * PeerBenchmarkRunner.Workload} names, all by default), {@code bench.dir}.
 */
@Tag("benchmark")
class PeerBenchmark {
    @Test
    void sideBySide() throws Exception {
        Path dir = Path.of(System.getProperty("bench.dir", "/tmp/deltalite-peers"));
        PeerBenchmarkRunner.Scale scale =
                new PeerBenchmarkRunner.Scale(
                        Long.getLong("bench.bulk", 5_000_000),
                        Long.getLong("bench.changes", 1_000_000),
                        Long.getLong("bench.events", 2_000_000),
                        Long.getLong("bench.eventsPerDay", 250_000),
                        Double.parseDouble(System.getProperty("bench.rate", "10000")),
                        Long.getLong("bench.rateSeconds", 60),
                        Long.getLong("bench.checkpointMillis", 10_000),
                        Integer.getInteger("bench.parallelism", 2),
                        Integer.getInteger("bench.repetitions", 3),
                        workloads());
        List<PeerSystem> systems =
                System.getProperty("bench.systems", "").isBlank()
                        ? List.of(PeerSystem.values())
                        : Arrays.stream(System.getProperty("bench.systems").split(","))
                                .map(String::trim)
                                .map(PeerSystem::valueOf)
                                .toList();
        PeerBenchmarkRunner runner =
                new PeerBenchmarkRunner(
                        dir,
                        scale,
                        systems,
                        ChildJvm.fromBuild(System.getProperty("bench.heap", "4g")));
        runner.runAll();
        String report = runner.report();
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("peers-report.md"), report);
        System.out.println(report);
        // A section per workload asked for (only workload 3, say, has no section of workload 1).
        scale.workloads().forEach(workload -> assertThat(report).contains(workload.title));
    }

    private static Set<PeerBenchmarkRunner.Workload> workloads() {
        String names = System.getProperty("bench.workloads", "");
        if (names.isBlank()) {
            return EnumSet.allOf(PeerBenchmarkRunner.Workload.class);
        }
        Set<PeerBenchmarkRunner.Workload> workloads =
                EnumSet.noneOf(PeerBenchmarkRunner.Workload.class);
        for (String name : names.split(",")) {
            workloads.add(PeerBenchmarkRunner.Workload.valueOf(name.trim()));
        }
        return workloads;
    }
}
