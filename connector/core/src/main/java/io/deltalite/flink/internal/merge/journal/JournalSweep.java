package io.deltalite.flink.internal.merge.journal;

import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves the journal entries nobody else will, on behalf of a committer: files of checkpoints
 * that will never be committed, and re-merge outputs of committer attempts that died.
 *
 * <ul>
 *   <li><b>Orphaned checkpoints of this job.</b> After a failover, the checkpoints this job's
 *       writers prepared after the restored one may still complete elsewhere — an intermediate
 *       savepoint is not used for recovery, yet a new job may start from it — so "not committed"
 *       proves nothing. The proof is a later checkpoint of the same app id in the log: the table
 *       then refuses the earlier one forever ({@link FileReclaimer.Status#SKIPPED}). The sweep
 *       looks at the entries after the restored checkpoint once, and again once the job commits a
 *       checkpoint past the newest of them. The end-of-input checkpoint is never orphaned here; the
 *       lineage's close resolves it.
 *   <li><b>Committer entries</b> of any app id this committer commits: resolved as soon as the
 *       checkpoint is.
 * </ul>
 *
 * Writer entries of committed checkpoints are left to the writer holding the checkpoint: it may
 * still read their files.
 */
public final class JournalSweep {
    private static final Logger LOG = LoggerFactory.getLogger(JournalSweep.class);

    private final MergeTable table;
    private final FileReclaimer reclaimer;
    private final String ownAppId;
    private final long restoredCheckpointId;

    /** Per app id: sweep again once a checkpoint after this one is committed (MAX: never). */
    private final Map<String, Long> sweepAfter = new HashMap<>();

    /**
     * @param ownAppId the app id of the checkpoints this job prepares, or null
     * @param restoredCheckpointId the checkpoint this job restored, 0 for none
     */
    public JournalSweep(MergeTable table, String ownAppId, long restoredCheckpointId) {
        this.table = table;
        this.reclaimer = new FileReclaimer(table);
        this.ownAppId = ownAppId;
        this.restoredCheckpointId = restoredCheckpointId;
    }

    /** Called after checkpoint {@code checkpointId} of {@code appId} was resolved. */
    public void afterCommit(String appId, long checkpointId) {
        Long after = sweepAfter.get(appId);
        if (after != null && checkpointId <= after) {
            return;
        }
        List<AttemptJournal.Entry> entries = table.journal().entries(appId);
        if (entries.isEmpty()) {
            sweepAfter.put(appId, Long.MAX_VALUE);
            return;
        }
        TableSnapshot snapshot = table.latestSnapshot();
        long newestUnresolved = -1;
        int deleted = 0;
        for (AttemptJournal.Entry entry : entries) {
            boolean orphanCandidate =
                    appId.equals(ownAppId)
                            && !entry.isCommitters()
                            && entry.checkpointId() > restoredCheckpointId
                            && entry.checkpointId() != CheckpointResults.END_OF_INPUT
                            && (after == null || entry.checkpointId() <= after);
            if (!entry.isCommitters() && !orphanCandidate) {
                continue;
            }
            FileReclaimer.Landing landing =
                    reclaimer.find(snapshot, appId, entry.checkpointId(), entry.notCommittedAt());
            if (entry.isCommitters()) {
                if (landing.isResolved()) {
                    if (landing.status() != FileReclaimer.Status.UNKNOWN) {
                        deleted += reclaimer.reclaim(snapshot, landing, entry.files(), true);
                    }
                    table.journal().remove(entry);
                }
            } else if (landing.status() == FileReclaimer.Status.SKIPPED) {
                deleted += reclaimer.reclaim(snapshot, landing, entry.files(), true);
                table.journal().remove(entry);
            } else if (!landing.isResolved()) {
                newestUnresolved = Math.max(newestUnresolved, entry.checkpointId());
            }
        }
        sweepAfter.put(appId, newestUnresolved < 0 ? Long.MAX_VALUE : newestUnresolved);
        if (deleted > 0) {
            OptionalLong committed = snapshot.committedCheckpoint(appId);
            LOG.info(
                    "Deleted {} file(s) of checkpoints of app {} that were never committed (the"
                            + " table records checkpoint {}), in {}.",
                    deleted,
                    appId,
                    committed.isPresent() ? committed.getAsLong() : -1,
                    table.location());
        }
    }
}
