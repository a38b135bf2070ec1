package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.KilledJobs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The maintenance entry point, from code and from the command line. */
class DeltaLiteMaintenanceTest {
    private static final TableDefinition ITEMS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field("v", ValueType.of(ValueType.Kind.STRING), true)),
                    List.of("id"),
                    List.of(),
                    Map.of());

    @TempDir Path dir;

    @Test
    void theCommandLineRemovesWhatAJobKilledTenDaysAgoLeftAndSaysWhat() {
        KilledJobs.Leftovers killed = killedTenDaysAgo("killed");

        Output dryRun = main(dir.toString(), "--dry-run");

        assertThat(dryRun.code).isZero();
        assertThat(dryRun.out)
                .contains("Dry run over " + dir)
                .contains("killed: DEAD")
                .contains(killed.uncommitted().size() + " data file(s), 1 staged key file(s)");
        assertThat(DeltaHistory.journalNotes(dir)).isNotEmpty();

        Output run = main(dir.toString(), "--retention", "7d");

        assertThat(run.code).isZero();
        assertThat(run.out).contains("Maintenance of " + dir).contains("killed: DEAD");
        assertThat(DeltaHistory.journalNotes(dir)).isEmpty();
        assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
        assertThat(KilledJobs.stagedKeyFiles(dir)).isEmpty();
    }

    @Test
    void aRetentionBelowSevenDaysIsRefusedWithoutTheOverride() {
        killedTenDaysAgo("killed");

        Output refused = main(dir.toString(), "--retention", "36h");

        assertThat(refused.code).isEqualTo(2);
        assertThat(refused.err)
                .contains("A retention of PT36H for " + dir + " is below 7 days")
                .contains("--allow-short-retention");
        assertThat(DeltaHistory.journalNotes(dir)).isNotEmpty();
        assertThatThrownBy(
                        () ->
                                DeltaLiteMaintenance.forTable(dir.toString())
                                        .retention(Duration.ofHours(1))
                                        .run())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowShortRetention()");

        Output allowed = main(dir.toString(), "--retention", "36h", "--allow-short-retention");

        assertThat(allowed.code).isZero();
        assertThat(DeltaHistory.journalNotes(dir)).isEmpty();
    }

    @Test
    void wrongArgumentsPrintTheUsage() {
        assertThat(main().code).isEqualTo(2);
        assertThat(main().err).contains("No table path given.").contains("Usage:");
        assertThat(main(dir.toString(), "--retention", "a week").err)
                .contains("Cannot read the retention 'a week'");
        assertThat(main(dir.toString(), "--vacuum").err).contains("Unknown option --vacuum");
        assertThat(main("--help").code).isZero();
        assertThat(main("--help").out).contains("--dry-run").contains("--hadoop");
        assertThat(DeltaLiteMaintenance.duration("PT12H")).isEqualTo(Duration.ofHours(12));
        assertThat(DeltaLiteMaintenance.duration("90m")).isEqualTo(Duration.ofMinutes(90));
    }

    @Test
    void aPathWithoutATableFailsNamingIt() {
        Output failed = main(dir.resolve("nothing").toString());

        assertThat(failed.code).isEqualTo(1);
        assertThat(failed.err).contains("Maintenance of " + dir.resolve("nothing") + " failed");
    }

    @Test
    void hadoopOptionValuesStayOutOfItsDescription() {
        assertThat(
                        DeltaLiteMaintenance.forTable("s3a://lake/orders")
                                .hadoopOption("fs.s3a.secret.key", "hunter2")
                                .toString())
                .contains("fs.s3a.secret.key")
                .doesNotContain("hunter2");
    }

    private KilledJobs.Leftovers killedTenDaysAgo(String appId) {
        KilledJobs.Leftovers leftovers =
                KilledJobs.kill(dir, ITEMS, appId, 1, id -> new Object[] {id, "v" + id});
        KilledJobs.age(dir, appId, Duration.ofDays(10));
        return leftovers;
    }

    private record Output(int code, String out, String err) {}

    private static Output main(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                DeltaLiteMaintenance.run(
                        args,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Output(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
