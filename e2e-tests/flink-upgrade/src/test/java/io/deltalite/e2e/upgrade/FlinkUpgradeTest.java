package io.deltalite.e2e.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.FlinkUpgradeJob;
import io.deltalite.flink.testing.Rows;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upgrading Flink with a savepoint: a job of deltalite-connector-flink-1.20 on Flink 1.20 saves,
 * the same job of deltalite-connector on Flink 2.3 starts from the savepoint; and the other way
 * round. Each job runs in a JVM of its own ({@link FlinkLineJob}).
 */
class FlinkUpgradeTest {
    private static final Path LOGS =
            Paths.get(System.getProperty("upgrade.work", "target/upgrade"));

    @TempDir Path dir;

    @Test
    void aFlink120SavepointWithUncommittedResultsRestoresOnFlink23AndCommitsThemOnce()
            throws Exception {
        Path table = dir.resolve("orders");
        Path savepoints = dir.resolve("savepoints");

        // The 1.20 job's commits lag behind its checkpoints; it saves after its first commit and
        // its JVM halts at once, so no commit of what the savepoint holds can land on 1.20.
        FlinkLineJob.Run onFlink120 =
                FlinkLineJob.FLINK_1_20.run(
                        LOGS.resolve("1.20-to-2.3-on-1.20.log"),
                        table.toString(),
                        savepoints.toString(),
                        "-",
                        "savepoint-and-halt",
                        "1");
        assertThat(onFlink120.exitCode()).as(onFlink120.tail()).isZero();
        assertThat(onFlink120.savepoint()).as(onFlink120.tail()).isPresent();
        List<DeltaHistory.Commit> committedOnFlink120 = DeltaHistory.commits(table);
        Set<String> flink120Apps = appIds(committedOnFlink120);
        assertThat(flink120Apps).hasSize(1);

        FlinkLineJob.Run onFlink23 =
                FlinkLineJob.FLINK_2_3.run(
                        LOGS.resolve("1.20-to-2.3-on-2.3.log"),
                        table.toString(),
                        savepoints.toString(),
                        onFlink120.savepoint().orElseThrow(),
                        "finish");
        assertThat(onFlink23.exitCode()).as(onFlink23.tail()).isZero();

        List<DeltaHistory.Commit> commits = DeltaHistory.commits(table);
        // The 2.3 job committed checkpoints the 1.20 job had prepared (under the 1.20 job's
        // transaction app id), then its own.
        assertThat(commitsOf(commits, flink120Apps))
                .as(onFlink23.tail())
                .hasSizeGreaterThan(commitsOf(committedOnFlink120, flink120Apps).size());
        assertThat(appIds(commits)).hasSizeGreaterThan(1);
        assertThat(Rows.sorted(KernelTableReader.readAll(table.toString())))
                .isEqualTo(Rows.sorted(FlinkUpgradeJob.script().expected()));
        List<String> transactions = DeltaHistory.transactionIds(table);
        assertThat(new HashSet<>(transactions)).hasSameSizeAs(transactions);
    }

    @Test
    void aFlink23SavepointIsRefusedByFlink120WithAMessageAndTheTableIsLeftAsItWas()
            throws Exception {
        Path table = dir.resolve("orders");
        Path savepoints = dir.resolve("savepoints");
        FlinkLineJob.Run onFlink23 =
                FlinkLineJob.FLINK_2_3.run(
                        LOGS.resolve("2.3-to-1.20-on-2.3.log"),
                        table.toString(),
                        savepoints.toString(),
                        "-",
                        "savepoint-and-halt",
                        "1");
        assertThat(onFlink23.exitCode()).as(onFlink23.tail()).isZero();
        List<DeltaHistory.Commit> committedOnFlink23 = DeltaHistory.commits(table);

        FlinkLineJob.Run onFlink120 =
                FlinkLineJob.FLINK_1_20.run(
                        LOGS.resolve("2.3-to-1.20-on-1.20.log"),
                        table.toString(),
                        savepoints.toString(),
                        onFlink23.savepoint().orElseThrow(),
                        "finish");

        assertThat(onFlink120.exitCode()).as(onFlink120.tail()).isEqualTo(1);
        // Refused where the job is built, before Flink 1.20 fails to start its JobMaster with
        // "Unrecognized checkpoint version number: 6" (it reads versions up to 4).
        assertThat(onFlink120.outputText())
                .as(onFlink120.tail())
                .contains(
                        "Cannot start this job from the savepoint "
                                + onFlink23.savepoint().orElseThrow())
                .contains("savepoint metadata version 6")
                .contains("Flink 1.20.3 does not read that version")
                .contains("io.deltalite:deltalite-connector on Flink 2.x");
        assertThat(DeltaHistory.commits(table)).isEqualTo(committedOnFlink23);
    }

    private static Set<String> appIds(List<DeltaHistory.Commit> commits) {
        return commits.stream()
                .map(DeltaHistory.Commit::appId)
                .filter(id -> id != null)
                .collect(Collectors.toSet());
    }

    private static List<DeltaHistory.Commit> commitsOf(
            List<DeltaHistory.Commit> commits, Set<String> apps) {
        return commits.stream().filter(commit -> apps.contains(commit.appId())).toList();
    }
}
