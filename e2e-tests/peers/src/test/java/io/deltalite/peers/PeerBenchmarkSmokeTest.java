package io.deltalite.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.peers.PeerBenchmarkRunner.Run;
import io.deltalite.peers.PeerBenchmarkRunner.Workload;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The side-by-side benchmark at a tiny scale, once, so that it keeps working: every system
 * bulk-loads and then applies the CDC changelog in JVMs of its own, and every final table, read
 * back by its own reader (and Spark for Delta) in a fresh JVM, holds exactly the rows of the model.
 * The numbers mean nothing. Workloads 2 and 3 differ only in the changelog ({@link ChangelogTest})
 * and the source's rate; they run in the benchmark's own command, where the whole matrix takes
 * about 5 minutes at this scale. Tagged {@code benchmark}, outside the build's test run (which must
 * stay under 30 minutes on 2 cores): {@code mvn -B -ntp -pl e2e-tests/peers test
 * -Dtest=PeerBenchmarkSmokeTest -Dsurefire.excludedGroups=}.
 */
@Tag("benchmark")
class PeerBenchmarkSmokeTest {
    @TempDir Path dir;

    @Test
    void everySystemEndsWithTheModelsRows() {
        PeerBenchmarkRunner runner =
                new PeerBenchmarkRunner(
                                dir,
                                new PeerBenchmarkRunner.Scale(
                                        3_000,
                                        2_000,
                                        3_000,
                                        1_000,
                                        1_000,
                                        2,
                                        500,
                                        2,
                                        1,
                                        EnumSet.of(Workload.CDC)),
                                List.of(PeerSystem.values()),
                                ChildJvm.fromBuild("1g"))
                        .readingWithSpark(EnumSet.of(PeerSystem.DELTALITE_DELETION_VECTORS));
        runner.runAll();
        String report = runner.report();
        System.out.println(report);

        for (Workload workload : List.of(Workload.CDC)) {
            List<Run> runs = runner.runs().get(workload);
            assertThat(runs).hasSize(PeerSystem.values().length);
            for (Run run : runs) {
                assertThat(run.nativeRead().getLong("rows"))
                        .as("%s, %s: rows", run.system().label, workload.title)
                        .isEqualTo(run.nativeRead().getLong("expectedRows"))
                        .isPositive();
                assertThat(run.correct()).as("%s, %s", run.system().label, workload.title).isTrue();
                assertThat(run.write().getLong("commits")).isPositive();
            }
        }
        // Deletes and corrections reached every system: the CDC table is smaller than all keys
        // ever written, and Spark agreed with Kernel on
        // deletion vectors.
        for (Run run : runner.runs().get(Workload.CDC)) {
            assertThat(run.nativeRead().getLong("rows")).isLessThan(3_000 + 2_000);
            if (run.system() == PeerSystem.DELTALITE_DELETION_VECTORS) {
                assertThat(run.sparkRead().get("checksum"))
                        .isEqualTo(run.nativeRead().get("expectedChecksum"));
            }
        }
        assertThat(report)
                .contains("| Iceberg upsert (equality deletes) |")
                .doesNotContain("WRONG");
    }
}
