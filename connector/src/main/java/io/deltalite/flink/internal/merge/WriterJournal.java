package io.deltalite.flink.internal.merge;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One writer subtask's notes in the attempt journal, so that no file it writes is ever lost track
 * of, even if the process dies:
 *
 * <ul>
 *   <li>after each merge, the files of the checkpoint in progress are noted as <em>unprepared</em>
 *       (owner {@code u<subtask>a<attempt>}): they belong to no checkpoint yet;
 *   <li>when a checkpoint takes them, they are noted under it (owner {@code w<subtask>}) before the
 *       unprepared note is removed;
 *   <li>at a restart, writer subtask 0 deletes what earlier attempts of this job left unprepared:
 *       files no checkpoint noted and no version added, which nothing can commit any more.
 * </ul>
 */
final class WriterJournal {
    private static final Logger LOG = LoggerFactory.getLogger(WriterJournal.class);
    static final String UNPREPARED_PREFIX = "u";

    private final MergeTable table;
    private final String appId;
    private final int subtask;
    private final int attempt;
    private List<String> unprepared = List.of();

    WriterJournal(MergeTable table, String appId, int subtask, int attempt) {
        this.table = table;
        this.appId = appId;
        this.subtask = subtask;
        this.attempt = attempt;
    }

    /** Notes the files of the checkpoint in progress (replacing the previous note). */
    void noteUnprepared(List<String> files, long notCommittedAt) {
        if (files.equals(unprepared)) {
            return;
        }
        if (files.isEmpty()) {
            forgetUnprepared();
            return;
        }
        table.journal().record(unpreparedEntry(notCommittedAt, files));
        unprepared = List.copyOf(files);
    }

    /** Notes a prepared checkpoint's files under it; they are no longer unprepared. */
    void notePrepared(PendingCheckpoint checkpoint) {
        table.journal().record(checkpoint.journalEntry());
        forgetUnprepared();
    }

    void forgetUnprepared() {
        if (!unprepared.isEmpty()) {
            table.journal().remove(unpreparedEntry(-1, List.of()));
            unprepared = List.of();
        }
    }

    private AttemptJournal.Entry unpreparedEntry(long notCommittedAt, List<String> files) {
        return new AttemptJournal.Entry(
                appId, 0, UNPREPARED_PREFIX + subtask + "a" + attempt, notCommittedAt, files);
    }

    /**
     * Deletes the files that earlier attempts of this job noted as unprepared and that no
     * checkpoint noted, no version added and no version holds live: their writer died before a
     * checkpoint took them. Called by one writer while the job starts.
     *
     * @return the number of files deleted
     */
    int cleanUpEarlierAttempts() {
        List<AttemptJournal.Entry> entries = table.journal().entries(appId);
        Set<String> noted = new HashSet<>();
        boolean anyUnprepared = false;
        for (AttemptJournal.Entry entry : entries) {
            if (isUnprepared(entry)) {
                anyUnprepared |= attemptOf(entry) < attempt;
            } else {
                entry.files().forEach(path -> noted.add(FileReclaimer.name(path)));
            }
        }
        if (!anyUnprepared) {
            return 0;
        }
        TableSnapshot snapshot = table.latestSnapshot();
        FileReclaimer reclaimer = new FileReclaimer(table);
        int deleted = 0;
        for (AttemptJournal.Entry entry : entries) {
            if (!isUnprepared(entry) || attemptOf(entry) >= attempt) {
                continue;
            }
            Optional<List<CommitRecord>> commits =
                    entry.notCommittedAt() < 0
                            ? Optional.empty()
                            : snapshot.commitsAfter(entry.notCommittedAt());
            if (commits.isEmpty()) {
                continue; // the log no longer tells: VACUUM's
            }
            Set<String> added = new HashSet<>();
            commits.get()
                    .forEach(c -> c.addedPaths().forEach(p -> added.add(FileReclaimer.name(p))));
            List<String> garbage =
                    entry.files().stream()
                            .filter(path -> !noted.contains(FileReclaimer.name(path)))
                            .filter(path -> !added.contains(FileReclaimer.name(path)))
                            .toList();
            deleted += reclaimer.reclaimNeverCommitted(snapshot, garbage);
            table.journal().remove(entry);
        }
        if (deleted > 0) {
            LOG.info(
                    "Deleted {} file(s) in {} that writers of an earlier attempt wrote and no"
                            + " checkpoint took.",
                    deleted,
                    table.location());
        }
        return deleted;
    }

    private static boolean isUnprepared(AttemptJournal.Entry entry) {
        return entry.owner().startsWith(UNPREPARED_PREFIX) && entry.owner().indexOf('a') > 0;
    }

    private static int attemptOf(AttemptJournal.Entry entry) {
        String owner = entry.owner();
        try {
            return Integer.parseInt(owner.substring(owner.indexOf('a') + 1));
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }
}
