package io.deltalite.flink.internal.merge.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.TestDefinitions;
import io.deltalite.flink.internal.merge.journal.LineageHeartbeat;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.sink.MaintenanceReport;
import io.deltalite.flink.sink.MaintenanceReport.State;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.KilledJobs;
import io.deltalite.flink.testing.KilledJobs.Leftovers;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The maintenance pass over what killed jobs left: the notes and files of a lineage whose job is
 * gone are removed once they are older than the retention, those of a running job never, and no
 * file any version references ever.
 */
class DeadLineageCleanupTest {
    private static final Duration RETENTION = Duration.ofDays(7);
    private static final String KILLED = "killed";
    private static final String RUNNING = "running";

    @TempDir Path dir;

    /**
     * A job that committed checkpoint 1, prepared checkpoint 2 (upserts and many deletes of absent
     * keys, so a staged key file) and was killed ten days ago; a job that runs now, between a
     * prepare and its commit. The killed job's notes, staged keys and uncommitted files go; the
     * running job's stay, and every version reads as before.
     */
    @Test
    void theLeftoversOfAJobKilledLongerAgoThanTheRetentionAreRemoved() {
        Leftovers killed = killJob(KILLED, 1);
        ageLineage(KILLED, Duration.ofDays(10));
        Leftovers running = killJob(RUNNING, 1); // alive: caught between prepare and commit
        Map<Long, List<String>> versions = everyVersion();
        assertThat(Files.exists(dir.resolve("_deltalite/staged"))).isTrue();

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        MaintenanceReport.Lineage dead = lineage(report, KILLED);
        assertThat(dead.state()).isEqualTo(State.DEAD);
        assertThat(dead.notes()).isEqualTo(killed.notes().size());
        assertThat(dead.dataFiles()).isEqualTo(killed.uncommitted().size());
        assertThat(dead.stagedKeyFiles()).isEqualTo(1);
        assertThat(dead.bytes()).isPositive();
        assertThat(lineage(report, RUNNING).state()).isEqualTo(State.LIVE);
        assertThat(lineage(report, RUNNING).files()).isZero();

        assertThat(Files.exists(dir.resolve("_deltalite/journal/" + KILLED))).isFalse();
        assertThat(DeltaHistory.journalNotes(dir)).containsExactlyElementsOf(running.notes());
        assertThat(DeltaHistory.uncommittedDataFiles(dir))
                .containsExactlyInAnyOrderElementsOf(running.uncommitted());
        assertThat(stagedKeyFiles()).hasSize(1); // the running job's
        assertThat(everyVersion()).isEqualTo(versions);
    }

    /**
     * A job writing deletion vectors was killed after marking a committed file: the vector file it
     * wrote is referenced by no version and goes with the data files; the marked file stays.
     */
    @Test
    void theDeletionVectorFilesOfAKilledJobAreRemoved() {
        TableDefinition withVectors =
                new TableDefinition(
                        TestDefinitions.ITEMS.columns(),
                        TestDefinitions.ITEMS.primaryKey(),
                        List.of(),
                        Map.of("delta.enableDeletionVectors", "true"));
        MergeOptions vectors =
                MergeOptions.DEFAULTS
                        .withWriteMode(io.deltalite.flink.sink.WriteMode.DELETION_VECTORS)
                        .withCompaction(CompactionOptions.DISABLED);
        Leftovers killed =
                KilledJobs.kill(
                        dir, withVectors, vectors, KILLED, 1, id -> new Object[] {id, "v" + id});
        assertThat(killed.uncommitted()).anyMatch(name -> name.startsWith("deletion_vector_"));
        ageLineage(KILLED, Duration.ofDays(10));
        Map<Long, List<String>> versions = everyVersion();

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(lineage(report, KILLED).dataFiles()).isEqualTo(killed.uncommitted().size());
        assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
        assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
        assertThat(everyVersion()).isEqualTo(versions);
    }

    /** A dry run reports what it would remove and changes nothing. */
    @Test
    void aDryRunReportsTheLeftoversAndChangesNothing() {
        Leftovers killed = killJob(KILLED, 1);
        ageLineage(KILLED, Duration.ofDays(10));
        List<String> before = everyFile();

        MaintenanceReport report = cleanup().run(Instant.now(), true);

        assertThat(report.dryRun()).isTrue();
        assertThat(lineage(report, KILLED).state()).isEqualTo(State.DEAD);
        assertThat(lineage(report, KILLED).dataFiles()).isEqualTo(killed.uncommitted().size());
        assertThat(lineage(report, KILLED).stagedKeyFiles()).isEqualTo(1);
        assertThat(report.toString()).contains("would remove").contains(KILLED);
        assertThat(everyFile()).isEqualTo(before);
    }

    /** Notes younger than the retention: the job may be alive (or restored), nothing goes. */
    @Test
    void aLineageWithANoteYoungerThanTheRetentionIsLeftAlone() {
        killJob(KILLED, 1);
        ageLineage(KILLED, Duration.ofDays(6));
        List<String> before = everyFile();

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(lineage(report, KILLED).state()).isEqualTo(State.LIVE);
        assertThat(lineage(report, KILLED).reason()).contains("a note of");
        assertThat(everyFile()).isEqualTo(before);
    }

    /**
     * Old notes, but the job committed within the retention (a job whose new notes are resolved
     * while an old one waits): it is live.
     */
    @Test
    void aLineageThatCommittedWithinTheRetentionIsLeftAlone() {
        killJob(KILLED, 1);
        try (UpsertHarness job =
                UpsertHarness.open(
                        location(), TestDefinitions.ITEMS, MergeOptions.DEFAULTS, KILLED)) {
            ageLineage(KILLED, Duration.ofDays(10));
            job.upsert(99L, "recent");
            job.commitAs(5);
        }
        ageNotes(KILLED, Duration.ofDays(10));
        List<String> notes = DeltaHistory.journalNotes(dir);

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(lineage(report, KILLED).state()).isEqualTo(State.LIVE);
        assertThat(lineage(report, KILLED).reason()).contains("committed version");
        assertThat(DeltaHistory.journalNotes(dir)).isEqualTo(notes);
    }

    /**
     * The job was killed right after committing its last checkpoint, before its writer saw the
     * commit: the note lists files the commit added. They stay; only the note goes.
     */
    @Test
    void filesANoteListsThatAVersionAddedStay() {
        try (UpsertHarness job =
                UpsertHarness.open(
                        location(), TestDefinitions.ITEMS, MergeOptions.DEFAULTS, KILLED)) {
            job.upsert(1L, "a");
            job.commit();
            job.upsert(2L, "b");
            job.commit();
        }
        List<String> notes = DeltaHistory.journalNotes(dir);
        assertThat(notes).isNotEmpty();
        ageLineage(KILLED, Duration.ofDays(10));
        Map<Long, List<String>> versions = everyVersion();

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(lineage(report, KILLED).state()).isEqualTo(State.DEAD);
        assertThat(lineage(report, KILLED).dataFiles()).isZero();
        assertThat(lineage(report, KILLED).dataFilesKept()).isPositive();
        assertThat(DeltaHistory.journalNotes(dir)).isEmpty();
        assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
        assertThat(everyVersion()).isEqualTo(versions);
    }

    /**
     * The last guard: a note of a checkpoint the log never recorded lists a file that a version
     * added anyway (another job committed it). It stays.
     */
    @Test
    void aFileAVersionAddedStaysEvenWhenAnUncommittedCheckpointListsIt() {
        try (UpsertHarness job =
                UpsertHarness.open(
                        location(), TestDefinitions.ITEMS, MergeOptions.DEFAULTS, RUNNING)) {
            job.upsert(1L, "a");
            job.commit();
        }
        String committed = KernelTableReader.liveFiles(location()).keySet().iterator().next();
        DeltaTable table = open();
        table.journal().record(new AttemptJournal.Entry(KILLED, 7, "w0", 0, List.of(committed)));
        ageLineage(KILLED, Duration.ofDays(10));
        ageLineage(RUNNING, Duration.ofDays(10));

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(lineage(report, KILLED).state()).isEqualTo(State.DEAD);
        assertThat(lineage(report, KILLED).dataFiles()).isZero();
        assertThat(lineage(report, KILLED).dataFilesKept()).isEqualTo(1);
        assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
        assertThat(Rows.sorted(KernelTableReader.readAll(location())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "a"})));
    }

    /**
     * A note that cannot say when its checkpoint was not committed yet (first format): the log
     * cannot clear its data files, which stay for VACUUM; its staged keys, which no version ever
     * references, go.
     */
    @Test
    void whereTheLogCannotTellDataFilesAreLeftToVacuumAndStagedKeysGo() {
        Leftovers killed = killJob(KILLED, 1);
        DeltaTable table = open();
        for (AttemptJournal.Entry entry : table.journal().entries(KILLED)) {
            table.journal()
                    .record(
                            new AttemptJournal.Entry(
                                    entry.appId(),
                                    entry.checkpointId(),
                                    entry.owner(),
                                    -1,
                                    entry.files()));
        }
        ageLineage(KILLED, Duration.ofDays(10));

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(lineage(report, KILLED).stagedKeyFiles()).isEqualTo(1);
        assertThat(lineage(report, KILLED).dataFiles()).isZero();
        assertThat(lineage(report, KILLED).dataFilesKept()).isEqualTo(killed.uncommitted().size());
        assertThat(DeltaHistory.uncommittedDataFiles(dir))
                .containsExactlyInAnyOrderElementsOf(killed.uncommitted());
        assertThat(stagedKeyFiles()).isEmpty();
        assertThat(DeltaHistory.journalNotes(dir)).isEmpty();
    }

    /**
     * A job that runs but has had no input for longer than the retention: its notes (a writer's
     * results waiting for the job's end) and its commits are old, but it refreshes its heartbeat.
     * It is alive; nothing of it goes.
     */
    @Test
    void aLineageWhoseJobStillBeatsIsLeftAloneHoweverOldItsNotes() {
        killJob(RUNNING, 1); // caught with noted results it has not committed yet
        ageLineage(RUNNING, Duration.ofDays(10));
        LineageHeartbeat heartbeat =
                new LineageHeartbeat(
                        open().journal(), location(), RUNNING, "c", Duration.ofHours(1));
        heartbeat.start();
        try {
            awaitHeartbeat(RUNNING, "c");
            List<String> before = everyFile();

            MaintenanceReport report = cleanup().run(Instant.now(), false);

            assertThat(lineage(report, RUNNING).state()).isEqualTo(State.LIVE);
            assertThat(lineage(report, RUNNING).reason()).contains("heartbeat of");
            assertThat(everyFile()).isEqualTo(before);
        } finally {
            heartbeat.stop();
        }
    }

    /**
     * The job stopped beating ten days ago (killed, or cancelled): its heartbeat aged like its
     * notes, and goes with them — a heartbeat does not keep a dead job alive.
     */
    @Test
    void aHeartbeatThatStoppedAgesAndGoesWithTheLineage() {
        Leftovers killed = killJob(KILLED, 1);
        open().journal().beat(KILLED, "w0", Duration.ofHours(1));
        open().journal().beat(KILLED, "c", Duration.ofHours(1));
        ageLineage(KILLED, Duration.ofDays(10));

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(lineage(report, KILLED).state()).isEqualTo(State.DEAD);
        assertThat(lineage(report, KILLED).dataFiles()).isEqualTo(killed.uncommitted().size());
        assertThat(Files.exists(dir.resolve("_deltalite/journal/" + KILLED))).isFalse();
    }

    /**
     * A lineage with nothing but an old heartbeat (a job with no pending notes that was cancelled)
     * is reported and its heartbeat removed; one with a fresh heartbeat is live.
     */
    @Test
    void aLineageWithOnlyAHeartbeatIsLiveWhileItBeatsAndRemovedOnceItStopped() {
        UpsertHarness.open(location(), TestDefinitions.ITEMS, MergeOptions.DEFAULTS, RUNNING)
                .close(); // the table
        open().journal().beat(KILLED, "c", Duration.ofHours(1));
        ageLineage(KILLED, Duration.ofDays(10));
        open().journal().beat(RUNNING, "c", Duration.ofHours(1));

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(lineage(report, KILLED).state()).isEqualTo(State.DEAD);
        assertThat(lineage(report, KILLED).newestNote()).isNull();
        assertThat(lineage(report, RUNNING).state()).isEqualTo(State.LIVE);
        assertThat(DeltaHistory.journalNotes(dir)).containsExactly(RUNNING + "/c.heartbeat");
    }

    /**
     * A job refreshing its heartbeat only every five days cannot be told from a stopped one by a
     * retention of seven: the lineage is left undecided, nothing goes, and the report says what to
     * change.
     */
    @Test
    void aHeartbeatRefreshedTooRarelyForTheRetentionLeavesTheLineageUndecided() {
        killJob(KILLED, 1);
        open().journal().beat(KILLED, "c", Duration.ofDays(5));
        ageLineage(KILLED, Duration.ofDays(10));
        List<String> before = everyFile();

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(lineage(report, KILLED).state()).isEqualTo(State.UNDECIDED);
        assertThat(lineage(report, KILLED).reason())
                .contains("PT120H")
                .contains("at least twice the sink's heartbeat-interval");
        assertThat(everyFile()).isEqualTo(before);
    }

    /**
     * A table that keeps deleted files for 30 days (delta.deletedFileRetentionDuration): a pass
     * given 7 days uses the table's 30, so a job stopped ten days ago is still live.
     */
    @Test
    void aTableThatKeepsDeletedFilesLongerGetsItsOwnRetention() {
        TableDefinition keepsLonger =
                new TableDefinition(
                        TestDefinitions.ITEMS.columns(),
                        TestDefinitions.ITEMS.primaryKey(),
                        List.of(),
                        Map.of("delta.deletedFileRetentionDuration", "interval 30 days"));
        KilledJobs.kill(dir, keepsLonger, KILLED, 1, id -> new Object[] {id, "v" + id});
        ageLineage(KILLED, Duration.ofDays(10));
        List<String> before = everyFile();

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(report.retention()).isEqualTo(Duration.ofDays(30));
        assertThat(lineage(report, KILLED).state()).isEqualTo(State.LIVE);
        assertThat(everyFile()).isEqualTo(before);

        ageLineage(KILLED, Duration.ofDays(31));
        assertThat(lineage(cleanup().run(Instant.now(), false), KILLED).state())
                .isEqualTo(State.DEAD);
    }

    /**
     * A table that keeps deleted files for one day only: the pass keeps the retention it was given.
     */
    @Test
    void aTableThatKeepsDeletedFilesShorterDoesNotShortenTheRetention() {
        TableDefinition keepsShorter =
                new TableDefinition(
                        TestDefinitions.ITEMS.columns(),
                        TestDefinitions.ITEMS.primaryKey(),
                        List.of(),
                        Map.of("delta.deletedFileRetentionDuration", "interval 1 days"));
        KilledJobs.kill(dir, keepsShorter, KILLED, 1, id -> new Object[] {id, "v" + id});
        ageLineage(KILLED, Duration.ofDays(3));

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(report.retention()).isEqualTo(RETENTION);
        assertThat(lineage(report, KILLED).state()).isEqualTo(State.LIVE);
    }

    /**
     * Two notes of one dead lineage list the same file: the note of checkpoint 1, whose version
     * added it, keeps it; the note of checkpoint 2, never committed and noted after that version,
     * would delete it. It stays: the table references it.
     */
    @Test
    void aFileOneNoteKeepsStaysWhateverAnotherNoteOfTheLineageSays() {
        long before;
        try (UpsertHarness job =
                UpsertHarness.open(
                        location(), TestDefinitions.ITEMS, MergeOptions.DEFAULTS, KILLED)) {
            before = KernelTableReader.latestVersion(location());
            job.upsert(1L, "a");
            job.commitAs(1);
        }
        long committedAt = KernelTableReader.latestVersion(location());
        String committed = KernelTableReader.liveFiles(location()).keySet().iterator().next();
        DeltaTable table = open();
        table.journal()
                .record(new AttemptJournal.Entry(KILLED, 1, "w0", before, List.of(committed)));
        table.journal()
                .record(new AttemptJournal.Entry(KILLED, 2, "w1", committedAt, List.of(committed)));
        ageLineage(KILLED, Duration.ofDays(10));

        MaintenanceReport report = cleanup().run(Instant.now(), false);

        assertThat(lineage(report, KILLED).state()).isEqualTo(State.DEAD);
        assertThat(lineage(report, KILLED).dataFiles()).isZero();
        assertThat(lineage(report, KILLED).dataFilesKept()).isEqualTo(1);
        assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
        assertThat(Rows.sorted(KernelTableReader.readAll(location())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "a"})));
    }

    private void awaitHeartbeat(String appId, String owner) {
        Path heartbeat = dir.resolve("_deltalite/journal/" + appId + "/" + owner + ".heartbeat");
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!Files.exists(heartbeat)) {
            assertThat(System.nanoTime()).as("heartbeat %s", heartbeat).isLessThan(deadline);
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private Leftovers killJob(String appId, int committed) {
        return KilledJobs.kill(
                dir, TestDefinitions.ITEMS, appId, committed, id -> new Object[] {id, appId + id});
    }

    private void ageLineage(String appId, Duration age) {
        KilledJobs.age(dir, appId, age);
    }

    private void ageNotes(String appId, Duration age) {
        KilledJobs.ageNotes(dir, appId, age);
    }

    private Map<Long, List<String>> everyVersion() {
        Map<Long, List<String>> versions = new TreeMap<>();
        for (long v = 0; v <= KernelTableReader.latestVersion(location()); v++) {
            versions.put(v, Rows.sorted(KernelTableReader.readVersion(location(), v)));
        }
        return versions;
    }

    private List<String> everyFile() {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.map(dir::relativize).map(Path::toString).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<String> stagedKeyFiles() {
        return KilledJobs.stagedKeyFiles(dir);
    }

    private static MaintenanceReport.Lineage lineage(MaintenanceReport report, String appId) {
        return report.lineages().stream()
                .filter(lineage -> lineage.appId().equals(appId))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no lineage " + appId + " in " + report));
    }

    private DeadLineageCleanup cleanup() {
        return new DeadLineageCleanup(open(), RETENTION);
    }

    private DeltaTable open() {
        return DeltaTable.open(
                location(),
                Map.of(),
                MergeOptions.DEFAULTS,
                TableDefinition.existingTable(),
                false);
    }

    private String location() {
        return dir.toString();
    }
}
