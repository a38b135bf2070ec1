package io.deltalite.flink.internal.merge.journal;

import io.deltalite.flink.internal.merge.maintenance.DeadLineageCleanup;
import io.deltalite.flink.internal.merge.table.CommitRecord;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, from the Delta log, which of the files deltalite wrote for a checkpoint may be deleted,
 * and deletes them. Every deletion of a file that left the writer that wrote it goes through here.
 *
 * <h2>Who may delete which file, when</h2>
 *
 * <table>
 *   <caption>deletion rules</caption>
 *   <tr><th>file</th><th>deleted by</th><th>when</th></tr>
 *   <tr><td>a writer's output no checkpoint holds yet (an early merge, a prepared result whose
 *       checkpoint was not taken)</td><td>that writer ({@link MergeWriter})</td><td>when a later
 *       merge of the same checkpoint replaces it, when the merge fails, when the writer closes
 *       before the end of its input</td></tr>
 *   <tr><td>a data file of a checkpoint a writer holds as pending</td><td>the writer holding it
 *       ({@link io.deltalite.flink.internal.merge.writer.PendingCheckpoints}), only if this job prepared it</td><td>once the log shows the
 *       checkpoint committed, if the commit did not add it (a re-merge replaced it)</td></tr>
 *   <tr><td>a staged key file of a pending checkpoint</td><td>the writer holding it, whichever job
 *       prepared it</td><td>once the log shows the checkpoint committed</td></tr>
 *   <tr><td>what a writer wrote and no checkpoint took, when its process died</td><td>the next
 *       start of the same writer subtask ({@link WriterJournal})</td><td>when it starts: one
 *       writer runs per subtask, so the earlier one is dead</td></tr>
 *   <tr><td>the files of this job's checkpoints that never completed (a failover)</td><td>the
 *       committer ({@link JournalSweep})</td><td>once the log records a later checkpoint of the
 *       same app id, which the table then refuses forever — "after the restored checkpoint" is not
 *       proof: an intermediate savepoint or a finished writer's end-of-input results may still be
 *       committed</td></tr>
 *   <tr><td>whatever this job's journal still lists at the end of its input</td><td>the committer
 *       of the lineage</td><td>after the end-of-input commit: no writer of it merges again</td></tr>
 *   <tr><td>a committer's re-merge output</td><td>the committer ({@link
 *       CheckpointCommitter})</td><td>once the version holding the checkpoint is known, if it
 *       does not add it</td></tr>
 *   <tr><td>anything of another job's checkpoints that never completed</td><td>no running job:
 *       another job may be alive (a job started from a savepoint of a running one) and commit them
 *       later; the maintenance pass ({@link DeadLineageCleanup})</td><td>once neither a note nor a
 *       commit of that job's lineage is younger than the retention period, as {@code VACUUM}
 *       ages files</td></tr>
 * </table>
 *
 * <p>Two rules hold for all of them. A file that some committed version references is never
 * deleted: a commit of checkpoint N adds only files written for N (re-merges write new files), so a
 * file of N that the version holding N did not add is referenced by no version; and as a last guard
 * nothing that any version since N was prepared added is deleted (read from the log since then,
 * never from a listing of the whole table). A file is deleted only where no reader can still need
 * it: the only reader of a pending checkpoint's data files is the writer that holds it (its view of
 * the partition), the only reader of staged keys is a committer re-merging that checkpoint, which
 * no committer does once it is committed. When the log no longer holds the version in question
 * (expired log files), nothing but staged keys is deleted; {@code VACUUM} reclaims the rest.
 */
public final class FileReclaimer {
    private static final Logger LOG = LoggerFactory.getLogger(FileReclaimer.class);

    /** Where a checkpoint stands in the log. */
    public enum Status {
        /** The latest version does not record the checkpoint (yet). */
        NOT_COMMITTED,
        /** A version records the checkpoint; its added files are known. */
        COMMITTED,
        /** A later checkpoint of the same app id is recorded and this one never had a version. */
        SKIPPED,
        /** The checkpoint is recorded, but the log no longer tells by which version. */
        UNKNOWN
    }

    /**
     * Where a checkpoint landed.
     *
     * @param status see {@link Status}
     * @param version the version holding the checkpoint when {@link Status#COMMITTED}, else -1
     * @param addedNames names of the files that version added, when {@link Status#COMMITTED}
     * @param since the versions after the checkpoint's {@code notCommittedAt}, as far as the
     *     snapshot it was found in (empty when unknown): the only versions that can reference a
     *     file written for the checkpoint
     */
    public record Landing(
            Status status, long version, Set<String> addedNames, List<CommitRecord> since) {
        public Landing {
            addedNames = Set.copyOf(addedNames);
            since = List.copyOf(since);
        }

        static final Landing NOT_COMMITTED =
                new Landing(Status.NOT_COMMITTED, -1, Set.of(), List.of());
        static final Landing UNKNOWN = new Landing(Status.UNKNOWN, -1, Set.of(), List.of());

        /** Committed by a commit this process made, which added {@code addedNames}. */
        public static Landing committedHere(Set<String> addedNames) {
            return new Landing(Status.COMMITTED, -1, addedNames, List.of());
        }

        /** Whether the checkpoint is decided: it will never be committed (again). */
        public boolean isResolved() {
            return status != Status.NOT_COMMITTED;
        }

        public boolean added(String path) {
            return addedNames.contains(name(path));
        }

        /** Names of the files any version of {@link #since()}, or the landing version, added. */
        Set<String> namesAddedSince() {
            Set<String> names = new HashSet<>(addedNames);
            since.forEach(commit -> commit.addedPaths().forEach(path -> names.add(name(path))));
            return names;
        }
    }

    private final MergeTable table;

    public FileReclaimer(MergeTable table) {
        this.table = table;
    }

    /**
     * Finds the version holding checkpoint {@code checkpointId} of {@code appId}. Checkpoints of
     * one app id are committed in order, each in a version of its own, so the first version after
     * {@code notCommittedAt} that records the app id at {@code checkpointId} or later is the one.
     *
     * @param notCommittedAt a version at which the checkpoint was not committed, or -1 if unknown
     */
    public Landing find(
            TableSnapshot snapshot, String appId, long checkpointId, long notCommittedAt) {
        OptionalLong committed = snapshot.committedCheckpoint(appId);
        if (committed.isEmpty() || committed.getAsLong() < checkpointId) {
            return Landing.NOT_COMMITTED;
        }
        if (notCommittedAt < 0) {
            return Landing.UNKNOWN;
        }
        Optional<List<CommitRecord>> commits = snapshot.commitsAfter(notCommittedAt);
        if (commits.isEmpty()) {
            return Landing.UNKNOWN;
        }
        for (CommitRecord commit : commits.get()) {
            OptionalLong recorded = commit.transaction(appId);
            if (recorded.isPresent() && recorded.getAsLong() >= checkpointId) {
                if (recorded.getAsLong() > checkpointId) {
                    return new Landing(Status.SKIPPED, -1, Set.of(), commits.get());
                }
                Set<String> names = new HashSet<>();
                commit.addedPaths().forEach(path -> names.add(name(path)));
                return new Landing(Status.COMMITTED, commit.version(), names, commits.get());
            }
        }
        return Landing.UNKNOWN;
    }

    /**
     * Deletes the files of a resolved checkpoint that no version references: staged key files
     * always, data files only when {@code mayDeleteDataFiles} (this job wrote them and no other
     * reader holds them) and the landing says the commit did not add them.
     *
     * @return how many files were deleted
     */
    public int reclaim(
            TableSnapshot snapshot,
            Landing landing,
            Collection<String> files,
            boolean mayDeleteDataFiles) {
        return delete(reclaimable(snapshot, landing, files, mayDeleteDataFiles));
    }

    /** The files {@link #reclaim} deletes, without deleting them. */
    public List<String> reclaimable(
            TableSnapshot snapshot,
            Landing landing,
            Collection<String> files,
            boolean mayDeleteDataFiles) {
        if (!landing.isResolved()) {
            throw new IllegalStateException("the checkpoint may still be committed");
        }
        List<String> candidates = new ArrayList<>();
        for (String path : files) {
            if (table.files().isStagedKeyFile(path)) {
                candidates.add(path);
            } else if (mayDeleteDataFiles
                    && (landing.status() == Status.SKIPPED
                            || (landing.status() == Status.COMMITTED && !landing.added(path)))) {
                candidates.add(path);
            }
        }
        return unlessAdded(snapshot, candidates, landing);
    }

    /**
     * Whether some data file among {@code files} is referenced by no version according to {@code
     * landing} — a file left for its writer to delete, or for {@code VACUUM}.
     */
    public boolean leavesDataFiles(Landing landing, Collection<String> files) {
        for (String path : files) {
            if (table.files().isStagedKeyFile(path)) {
                continue;
            }
            if (landing.status() != Status.COMMITTED || !landing.added(path)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Deletes the files of a checkpoint that can never be committed, except any that a version
     * after {@code notCommittedAt} added. Nothing is deleted when the log no longer holds those
     * versions.
     *
     * @param notCommittedAt a version at which the files' checkpoint was not committed, or -1
     * @return how many files were deleted
     */
    public int reclaimNeverCommitted(
            TableSnapshot snapshot, long notCommittedAt, Collection<String> files) {
        Optional<List<CommitRecord>> since =
                notCommittedAt < 0 ? Optional.empty() : snapshot.commitsAfter(notCommittedAt);
        if (since.isEmpty()) {
            return 0; // the log no longer tells: VACUUM's
        }
        return delete(
                unlessAdded(
                        snapshot,
                        new ArrayList<>(files),
                        new Landing(Status.SKIPPED, -1, Set.of(), since.get())));
    }

    /**
     * The files of a checkpoint of a dead lineage, which nothing will commit, that may be deleted:
     * its staged key files, which no version ever references, and its data files except any that a
     * version after {@code notCommittedAt} added. When the log no longer holds those versions, the
     * data files stay for {@code VACUUM}.
     *
     * @param notCommittedAt a version at which the files' checkpoint was not committed, or -1
     */
    public List<String> abandoned(
            TableSnapshot snapshot, long notCommittedAt, Collection<String> files) {
        Optional<List<CommitRecord>> since =
                notCommittedAt < 0 ? Optional.empty() : snapshot.commitsAfter(notCommittedAt);
        List<String> candidates = new ArrayList<>();
        for (String path : files) {
            if (since.isPresent() || table.files().isStagedKeyFile(path)) {
                candidates.add(path);
            }
        }
        return unlessAdded(
                snapshot,
                candidates,
                new Landing(Status.SKIPPED, -1, Set.of(), since.orElse(List.of())));
    }

    /**
     * The last guard: {@code candidates} without any data or deletion vector file that a version of
     * {@code landing} (after the checkpoint's {@code notCommittedAt}) added.
     *
     * <p>No earlier version can reference them: only the commit of their own checkpoint adds the
     * files written for it, and the checkpoint was not committed at {@code notCommittedAt}. So
     * reading the log written since the checkpoint was prepared is enough to catch a version that
     * added one anyway (another job committing the same files, a protocol bug) — cleanup costs what
     * it cleans, not what the table holds: it never lists the table's live files.
     */
    private List<String> unlessAdded(
            TableSnapshot snapshot, List<String> candidates, Landing landing) {
        if (candidates.isEmpty()) {
            return List.of();
        }
        Set<String> added = null;
        List<String> deletable = new ArrayList<>();
        for (String path : candidates) {
            if (!table.files().isStagedKeyFile(path)) {
                if (added == null) {
                    added = landing.namesAddedSince();
                }
                if (added.contains(name(path))) {
                    LOG.warn(
                            "Not deleting {} of table {}: a version up to {} added it.",
                            path,
                            table.location(),
                            snapshot.version());
                    continue;
                }
            }
            deletable.add(path);
        }
        return deletable;
    }

    /**
     * Deletes files that {@link #reclaimable} or {@link #abandoned} found deletable.
     *
     * @return how many files were deleted
     */
    public int delete(Collection<String> deletable) {
        deletable.forEach(path -> table.files().deleteUncommitted(DataFile.atPath(path)));
        return deletable.size();
    }

    /** The last segment of a path: data file names are unique (they embed a random UUID). */
    public static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
