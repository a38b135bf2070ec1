package io.deltalite.flink.internal.merge.journal;

import io.deltalite.flink.internal.merge.result.PendingCheckpoint;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One writer subtask's notes in the attempt journal, so that no file it writes is ever lost track
 * of, even if the process dies:
 *
 * <ul>
 *   <li>after each merge, the files of the checkpoint in progress are noted as <em>unprepared</em>
 *       (owner {@code u<subtask>-<nonce>}, the nonce new with each start of the writer): they
 *       belong to no checkpoint yet;
 *   <li>when a checkpoint takes them, they are noted under it (owner {@code w<subtask>-<nonce>},
 *       the same nonce) before the unprepared note is removed. The nonce keeps every start's note
 *       apart: a restarted writer may prepare a checkpoint id that an earlier start prepared too
 *       (Flink numbers the results at the end of the input after the last checkpoint the writer
 *       saw, which after a failover is the restored one), and a note of the same name would replace
 *       the earlier start's, whose files would then be lost track of. The earlier start's note is
 *       resolved like any other: once the table holds its checkpoint id or a later one;
 *   <li>when a writer starts, it deletes what an earlier start of the same subtask left unprepared
 *       — that one is dead, one writer runs per subtask — and writer 0 also what subtasks beyond
 *       the current parallelism left: files no checkpoint noted and no version added, which nothing
 *       can commit any more. Other subtasks' notes are theirs: a writer that finished (its results
 *       wait for the end of the job) may be alive while this one restarts.
 *   <li>at the end of the input, the committer of the lineage resolves the notes left (in batch
 *       mode no checkpoint ever takes the files).
 * </ul>
 */
public final class WriterJournal {
    private static final Logger LOG = LoggerFactory.getLogger(WriterJournal.class);
    static final String UNPREPARED_PREFIX = "u";

    private final MergeTable table;
    private final String appId;
    private final int subtask;
    private final int parallelism;
    private final String owner;
    private final String preparedOwner;
    private List<String> unprepared = List.of();

    /**
     * @param parallelism the number of writer subtasks
     */
    public WriterJournal(MergeTable table, String appId, int subtask, int parallelism) {
        this.table = table;
        this.appId = appId;
        this.subtask = subtask;
        this.parallelism = parallelism;
        String nonce = java.util.UUID.randomUUID().toString().substring(0, 8);
        this.owner = UNPREPARED_PREFIX + subtask + "-" + nonce;
        this.preparedOwner = AttemptJournal.writer(subtask) + "-" + nonce;
    }

    /** The owner of the notes of the checkpoints this start of the writer prepares. */
    public String preparedOwner() {
        return preparedOwner;
    }

    /** Notes the files of the checkpoint in progress (replacing the previous note). */
    public void noteUnprepared(List<String> files, long notCommittedAt) {
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
    public void notePrepared(PendingCheckpoint checkpoint) {
        table.journal().record(checkpoint.journalEntry());
        forgetUnprepared();
    }

    public void forgetUnprepared() {
        if (!unprepared.isEmpty()) {
            table.journal().remove(unpreparedEntry(-1, List.of()));
            unprepared = List.of();
        }
    }

    private AttemptJournal.Entry unpreparedEntry(long notCommittedAt, List<String> files) {
        return new AttemptJournal.Entry(appId, 0, owner, notCommittedAt, files);
    }

    /**
     * Deletes the files that an earlier start of this writer subtask (and, for subtask 0, of
     * subtasks beyond the parallelism) noted as unprepared and that no checkpoint noted, no version
     * added and no version holds live: that writer died before a checkpoint took them. Called by
     * each writer when it starts.
     *
     * @return the number of files deleted
     */
    public int cleanUpEarlierStarts() {
        List<AttemptJournal.Entry> dead = new ArrayList<>();
        List<AttemptJournal.Entry> entries = table.journal().entries(appId);
        for (AttemptJournal.Entry entry : entries) {
            int of = subtaskOf(entry);
            if (of >= 0
                    && !entry.owner().equals(owner)
                    && (of == subtask || (subtask == 0 && of >= parallelism))) {
                dead.add(entry);
            }
        }
        if (dead.isEmpty()) {
            return 0;
        }
        TableSnapshot snapshot = table.latestSnapshot();
        int deleted = 0;
        for (AttemptJournal.Entry entry : dead) {
            deleted += reclaimUnprepared(table, snapshot, entry, entries, null);
            table.journal().remove(entry);
        }
        if (deleted > 0) {
            LOG.info(
                    "Deleted {} file(s) in {} that an earlier start of writer {} wrote and no"
                            + " checkpoint took.",
                    deleted,
                    table.location(),
                    subtask);
        }
        return deleted;
    }

    /**
     * Deletes the files of an unprepared note that nothing references: not noted by a checkpoint
     * (among {@code entries}), not added by any version since the note was made, not added by
     * {@code kept}. Nothing is deleted when the log no longer tells.
     *
     * @param kept a landing whose added files stay (the lineage's last commit), or null
     * @return the number of files deleted
     */
    public static int reclaimUnprepared(
            MergeTable table,
            TableSnapshot snapshot,
            AttemptJournal.Entry entry,
            List<AttemptJournal.Entry> entries,
            FileReclaimer.Landing kept) {
        // Whatever a version since the note added stays: the log no longer telling, all stays.
        return new FileReclaimer(table)
                .reclaimNeverCommitted(
                        snapshot, entry.notCommittedAt(), untaken(entry, entries, kept));
    }

    /**
     * The files of an unprepared note that no checkpoint took: not noted by a checkpoint (among
     * {@code entries}) and not added by {@code kept}. Whether a version added them is for {@link
     * FileReclaimer} to check.
     *
     * @param kept a landing whose added files stay (the lineage's last commit), or null
     */
    public static List<String> untaken(
            AttemptJournal.Entry entry,
            List<AttemptJournal.Entry> entries,
            FileReclaimer.Landing kept) {
        Set<String> noted = new HashSet<>();
        for (AttemptJournal.Entry other : entries) {
            if (!isUnprepared(other)) {
                other.files().forEach(path -> noted.add(FileReclaimer.name(path)));
            }
        }
        return entry.files().stream()
                .filter(path -> !noted.contains(FileReclaimer.name(path)))
                .filter(path -> kept == null || !kept.added(path))
                .toList();
    }

    public static boolean isUnprepared(AttemptJournal.Entry entry) {
        return subtaskOf(entry) >= 0;
    }

    /** The subtask of an unprepared note ({@code u<subtask>-<nonce>}), else -1. */
    private static int subtaskOf(AttemptJournal.Entry entry) {
        String name = entry.owner();
        int dash = name.indexOf('-');
        if (!name.startsWith(UNPREPARED_PREFIX) || dash < 2) {
            return -1;
        }
        try {
            return Integer.parseInt(name.substring(UNPREPARED_PREFIX.length(), dash));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
