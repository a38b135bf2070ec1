package io.deltalite.flink.internal.merge.maintenance;

import io.deltalite.flink.internal.merge.journal.FileReclaimer;
import io.deltalite.flink.internal.merge.journal.LineageHeartbeat;
import io.deltalite.flink.internal.merge.journal.WriterJournal;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.table.CommitRecord;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.sink.MaintenanceReport;
import io.deltalite.flink.sink.MaintenanceReport.State;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what dead lineages left in a table: the notes of their journal, the staged key files they
 * list, and the data and deletion vector files they list that no version references — what a job
 * that was cancelled, or stopped and never resumed, leaves behind (see {@link FileReclaimer}).
 *
 * <p><b>Dead</b> is decided as {@code VACUUM} decides that an unreferenced file may go: by age. A
 * lineage is dead when none of its notes, none of its heartbeats and no commit of its app id is
 * younger than the retention period. A running job refreshes a heartbeat in its journal folder
 * ({@link LineageHeartbeat}) even when it has no input, so its lineage is live; a savepoint older
 * than the retention period is one {@code VACUUM} has already taken files from. Ages are the
 * storage's modification times of notes and heartbeats (and the log's commit times) against the
 * pass's clock. A lineage whose notes are old but whose commits the log can no longer date is left
 * alone, and so is one whose job refreshes its heartbeat too rarely for the retention to tell it
 * from a stopped one.
 *
 * <p>The retention is never shorter than the table's own {@code delta.deletedFileRetentionDuration}
 * when the table sets one: the longer of the two applies.
 *
 * <p>Of a dead lineage's checkpoints, those the log shows committed or skipped lose the files the
 * commit did not take; those never committed lose all their files; staged key files always go. The
 * last guard of {@link FileReclaimer} holds throughout: no file that a version since the checkpoint
 * was noted added is deleted, and where the log no longer holds those versions the data files stay
 * for {@code VACUUM}. Files are deleted before the notes that list them, so a pass that dies is
 * completed by the next one.
 */
public final class DeadLineageCleanup {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLineageCleanup.class);

    /** How many versions the first look back for recent commits reads; each next one doubles. */
    private static final int FIRST_LOOK_BACK = 16;

    private final MergeTable table;
    private final FileReclaimer reclaimer;
    private final Duration retention;

    public DeadLineageCleanup(MergeTable table, Duration retention) {
        this.table = Objects.requireNonNull(table, "table");
        this.reclaimer = new FileReclaimer(table);
        this.retention = Objects.requireNonNull(retention, "retention");
        if (retention.isNegative()) {
            throw new IllegalArgumentException("The retention must not be negative: " + retention);
        }
    }

    /**
     * Decides every lineage with notes or a heartbeat, and removes what the dead ones left unless
     * {@code dryRun}.
     *
     * @param now the current time, against which notes, heartbeats and commits are aged
     */
    public MaintenanceReport run(Instant now, boolean dryRun) {
        TableSnapshot snapshot = table.latestSnapshot();
        Duration effective = effectiveRetention(snapshot);
        long cutoff = now.minus(effective).toEpochMilli();
        RecentCommits recent = new RecentCommits(snapshot, cutoff);
        List<MaintenanceReport.Lineage> lineages = new ArrayList<>();
        for (AttemptJournal.Lineage lineage : table.journal().lineages()) {
            Instant newestNote =
                    lineage.hasNotes() ? Instant.ofEpochMilli(lineage.newestNoteMillis()) : null;
            String appId = lineage.appId();
            if (lineage.newestNoteMillis() >= cutoff) {
                lineages.add(untouched(appId, State.LIVE, "a note of " + newestNote, newestNote));
                continue;
            }
            Optional<AttemptJournal.Heartbeat> heartbeat = lineage.heartbeat();
            if (heartbeat.isPresent() && heartbeat.get().writtenMillis() >= cutoff) {
                lineages.add(
                        untouched(
                                appId,
                                State.LIVE,
                                "its job is running: a heartbeat of "
                                        + Instant.ofEpochMilli(heartbeat.get().writtenMillis()),
                                newestNote));
                continue;
            }
            if (recordedByTable(snapshot, appId)) {
                if (!recent.known()) {
                    lineages.add(
                            untouched(
                                    appId,
                                    State.UNDECIDED,
                                    "the log no longer reaches back to "
                                            + Instant.ofEpochMilli(cutoff)
                                            + " to tell when it last committed",
                                    newestNote));
                    continue;
                }
                Optional<CommitRecord> commit = recent.newestOf(appId);
                if (commit.isPresent()) {
                    lineages.add(
                            untouched(
                                    appId,
                                    State.LIVE,
                                    "committed version "
                                            + commit.get().version()
                                            + " at "
                                            + Instant.ofEpochMilli(commit.get().timestampMillis()),
                                    newestNote));
                    continue;
                }
            }
            if (heartbeat.isPresent() && refreshedTooRarely(heartbeat.get(), effective)) {
                lineages.add(
                        new MaintenanceReport.Lineage(
                                appId,
                                State.UNDECIDED,
                                "its newest heartbeat, of "
                                        + Instant.ofEpochMilli(heartbeat.get().writtenMillis())
                                        + ", is older than the retention, but its job refreshes it"
                                        + " only every "
                                        + describe(heartbeat.get().interval())
                                        + ": a retention of "
                                        + effective
                                        + " cannot tell a running job from a stopped one. Use a"
                                        + " retention of at least twice the sink's"
                                        + " heartbeat-interval",
                                newestNote,
                                0,
                                0,
                                0,
                                0,
                                0));
                continue;
            }
            lineages.add(removeLeftovers(appId, cutoff, newestNote, dryRun));
        }
        MaintenanceReport report =
                new MaintenanceReport(
                        table.location(), snapshot.version(), effective, dryRun, lineages);
        LOG.info("{}", report);
        return report;
    }

    /**
     * The retention this pass applies to {@code snapshot}'s table: the one it was given, or the
     * table's {@code delta.deletedFileRetentionDuration} when that is longer — readers of older
     * versions were promised their files for that long.
     */
    Duration effectiveRetention(TableSnapshot snapshot) {
        Optional<Duration> table = snapshot.deletedFileRetention();
        if (table.isPresent() && table.get().compareTo(retention) > 0) {
            LOG.info(
                    "Using the retention of {} that table {} sets"
                            + " (delta.deletedFileRetentionDuration) instead of the shorter {}.",
                    table.get(),
                    this.table.location(),
                    retention);
            return table.get();
        }
        return retention;
    }

    /**
     * Whether a job refreshing its heartbeat this rarely might, while running, have none younger
     * than the retention: the retention must be at least twice the interval (the other half is the
     * margin for a slow write, a pause, and the skew between the storage's clock and this one).
     */
    private static boolean refreshedTooRarely(
            AttemptJournal.Heartbeat heartbeat, Duration retention) {
        return heartbeat.interval().compareTo(retention.dividedBy(2)) > 0;
    }

    private static String describe(Duration interval) {
        return interval.equals(AttemptJournal.Heartbeat.UNKNOWN_INTERVAL)
                ? "at an interval its heartbeat does not say"
                : interval.toString();
    }

    /**
     * Whether the table may record commits of the app id the journal names so; a {@code _} in the
     * name may stand for a {@code /} of the real app id, which is then unknown.
     */
    private static boolean recordedByTable(TableSnapshot snapshot, String appId) {
        return appId.indexOf('_') >= 0 || snapshot.committedCheckpoint(appId).isPresent();
    }

    private static MaintenanceReport.Lineage untouched(
            String appId, State state, String why, Instant newestNote) {
        return new MaintenanceReport.Lineage(
                appId, state, why + ", within the retention", newestNote, 0, 0, 0, 0, 0);
    }

    private MaintenanceReport.Lineage removeLeftovers(
            String appId, long cutoff, Instant newestNote, boolean dryRun) {
        // Only notes older than the cutoff: a writer of a job judged dead that wakes up while the
        // pass runs writes new notes, which are not this pass's to judge. The log is read after
        // the notes, so that whatever was committed before them is seen.
        List<AttemptJournal.Entry> entries = table.journal().entriesNotedBefore(appId, cutoff);
        TableSnapshot snapshot = table.latestSnapshot();
        Set<String> deletable = new LinkedHashSet<>();
        Set<String> kept = new LinkedHashSet<>();
        for (AttemptJournal.Entry entry : entries) {
            Decision decision = decide(snapshot, entry, entries);
            deletable.addAll(decision.deletable());
            decision.decided().stream()
                    .filter(path -> !decision.deletable().contains(path))
                    .forEach(kept::add);
        }
        // A file one note keeps (a version added it, or the log cannot tell) stays, whatever
        // another note says.
        deletable.removeAll(kept);

        int dataFiles = 0;
        int stagedKeyFiles = 0;
        long bytes = 0;
        List<String> existing = new ArrayList<>();
        for (String path : deletable) {
            OptionalLong size = table.files().fileSize(path);
            if (size.isEmpty()) {
                continue; // deleted earlier by its writer or committer
            }
            existing.add(path);
            bytes += size.getAsLong();
            if (table.files().isStagedKeyFile(path)) {
                stagedKeyFiles++;
            } else {
                dataFiles++;
            }
        }
        int dataFilesKept = 0;
        for (String path : kept) {
            if (!table.files().isStagedKeyFile(path) && table.files().exists(path)) {
                dataFilesKept++;
            }
        }
        if (!dryRun) {
            reclaimer.delete(existing);
            entries.forEach(table.journal()::remove);
            // A heartbeat its job wrote while this pass ran stays, and keeps the folder.
            table.journal().removeHeartbeats(appId, cutoff);
            table.journal().removeLineage(appId);
        }
        return new MaintenanceReport.Lineage(
                appId,
                State.DEAD,
                (newestNote == null ? "it has no notes" : "its newest note, of " + newestNote)
                        + ", its heartbeats and its commits are older than the retention",
                newestNote,
                entries.size(),
                dataFiles,
                stagedKeyFiles,
                bytes,
                dataFilesKept);
    }

    /**
     * What one note decides, the lineage being dead.
     *
     * @param decided the files the note decides about (an unprepared note leaves those a later note
     *     took to that note)
     * @param deletable those of them that may go; the others it keeps
     */
    private record Decision(Set<String> decided, Set<String> deletable) {}

    private Decision decide(
            TableSnapshot snapshot, AttemptJournal.Entry entry, List<AttemptJournal.Entry> all) {
        if (WriterJournal.isUnprepared(entry)) {
            // Taken by no checkpoint; those a later note took are that note's to decide.
            List<String> untaken = WriterJournal.untaken(entry, all, null);
            return decision(
                    untaken, reclaimer.abandoned(snapshot, entry.notCommittedAt(), untaken));
        }
        FileReclaimer.Landing landing =
                reclaimer.find(
                        snapshot, entry.appId(), entry.checkpointId(), entry.notCommittedAt());
        if (!landing.isResolved()) {
            return decision(
                    entry.files(),
                    reclaimer.abandoned(snapshot, entry.notCommittedAt(), entry.files()));
        }
        return decision(
                entry.files(), reclaimer.reclaimable(snapshot, landing, entry.files(), true));
    }

    private static Decision decision(List<String> decided, List<String> deletable) {
        return new Decision(new LinkedHashSet<>(decided), new LinkedHashSet<>(deletable));
    }

    /**
     * The commits younger than the cutoff, read once and from the latest version back: a look back
     * that doubles until it reaches a commit older than the cutoff or the first version.
     */
    private static final class RecentCommits {
        private final TableSnapshot snapshot;
        private final long cutoff;
        private Optional<List<CommitRecord>> commits;

        RecentCommits(TableSnapshot snapshot, long cutoff) {
            this.snapshot = snapshot;
            this.cutoff = cutoff;
        }

        /** Whether the log reaches back to the cutoff. */
        boolean known() {
            if (commits == null) {
                commits = read();
            }
            return commits.isPresent();
        }

        /**
         * The newest recent commit recording {@code appId} (as the journal names it); only when
         * {@link #known()}.
         */
        Optional<CommitRecord> newestOf(String appId) {
            CommitRecord newest = null;
            for (CommitRecord commit : commits.orElseThrow()) {
                for (String recorded : commit.transactions().keySet()) {
                    if (recorded.replace('/', '_').equals(appId)) {
                        newest = commit;
                    }
                }
            }
            return Optional.ofNullable(newest);
        }

        private Optional<List<CommitRecord>> read() {
            long latest = snapshot.version();
            for (long count = FIRST_LOOK_BACK; ; count *= 2) {
                long after = Math.max(-1, latest - count);
                Optional<List<CommitRecord>> read = snapshot.commitsAfter(after);
                if (read.isEmpty()) {
                    return Optional.empty();
                }
                List<CommitRecord> commits = read.get();
                if (after < 0 || commits.get(0).timestampMillis() < cutoff) {
                    return Optional.of(
                            commits.stream()
                                    .filter(commit -> commit.timestampMillis() >= cutoff)
                                    .toList());
                }
            }
        }
    }
}
