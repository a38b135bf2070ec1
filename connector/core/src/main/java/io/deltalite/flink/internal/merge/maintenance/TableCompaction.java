package io.deltalite.flink.internal.merge.maintenance;

import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.compaction.PartitionCompactor;
import io.deltalite.flink.internal.merge.journal.FileReclaimer;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.Compaction;
import io.deltalite.flink.internal.merge.result.LiveSetFingerprint;
import io.deltalite.flink.internal.merge.result.MergeStats;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.UpsertStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A one-off compaction pass over a whole table — for a table that is already fragmented (written
 * before inline compaction, or by another tool). Each round packs the small files of every
 * partition into bins of up to the target file size, and rewrites worn files, reading at most
 * {@code compaction.max-bytes-per-checkpoint}; it lands as one Delta commit of app id {@link
 * #APP_ID} through the {@link CheckpointCommitter}, so the same rules hold as for the sink's own
 * compactions: a compaction whose files another writer changed meanwhile is dropped, never
 * committed. Rounds go on until a round finds nothing to do.
 *
 * <p>Its output files are noted in the journal before the commit, and deleted once the log shows
 * that the commit did not take them; a pass that dies before that leaves a note the next pass
 * resolves.
 */
public final class TableCompaction {
    private static final Logger LOG = LoggerFactory.getLogger(TableCompaction.class);

    /** The Delta transaction application id of the pass's commits. */
    public static final String APP_ID = "deltalite-compaction";

    /** Names this pass's journal entries: passes never share one, even when they overlap. */
    private final String owner = "p" + java.util.UUID.randomUUID().toString().substring(0, 8);

    /** Rounds in a row whose compactions were all dropped after which the pass gives up. */
    private static final int MAX_FRUITLESS_ROUNDS = 3;

    private final MergeTable table;
    private final MergeOptions options;
    private final PartitionCompactor compactor;
    private final CheckpointCommitter committer;
    private final FileReclaimer reclaimer;

    public TableCompaction(MergeTable table, MergeOptions options) {
        this.table = table;
        this.options = options;
        this.compactor = new PartitionCompactor(table, options);
        this.committer =
                new CheckpointCommitter(table, new PartitionMerger(table, options, null), options);
        this.reclaimer = new FileReclaimer(table);
    }

    /** Compacts the table until nothing is left to compact; the sum of what its commits did. */
    public UpsertStats run() {
        resolveEarlierPasses();
        UpsertStats total = UpsertStats.EMPTY;
        int fruitless = 0;
        long lastVersion = -1;
        while (fruitless < MAX_FRUITLESS_ROUNDS) {
            TableSnapshot snapshot = table.latestSnapshot();
            long checkpointId = snapshot.committedCheckpoint(APP_ID).orElse(0) + 1;
            List<PartitionWriteResult> results = plan(snapshot);
            if (results.isEmpty()) {
                break;
            }
            List<String> written = new ArrayList<>();
            results.forEach(result -> written.addAll(result.writtenPaths()));
            AttemptJournal.Entry entry =
                    new AttemptJournal.Entry(
                            APP_ID, checkpointId, owner, snapshot.version(), written);
            table.journal().record(entry);
            CommitOutcome outcome =
                    committer.commit(new CheckpointResults(APP_ID, checkpointId, results));
            resolveOwn(entry);
            if (outcome.stats().filesCompacted() == 0) {
                fruitless++;
            } else {
                fruitless = 0;
                LOG.info(
                        "Compacted {} file(s) ({} bytes) of table {} into {} in version {}.",
                        outcome.stats().filesCompacted(),
                        outcome.stats().bytesCompacted(),
                        table.location(),
                        outcome.stats().filesAdded(),
                        outcome.version());
            }
            total = total.plus(outcome.stats());
            if (outcome.version() >= 0) {
                lastVersion = outcome.version();
            }
        }
        long live = 0;
        long small = 0;
        for (List<DataFile> files : table.latestSnapshot().allLiveFiles().values()) {
            live += files.size();
            small += compactor.countSmall(files);
        }
        return MergeStats.withFileCounts(total, live, small).withVersion(lastVersion);
    }

    /** One result per partition with something to compact, within one round's budget. */
    private List<PartitionWriteResult> plan(TableSnapshot snapshot) {
        PartitionCompactor.Budget budget =
                new PartitionCompactor.Budget(options.compaction().maxBytesPerCheckpoint());
        List<PartitionWriteResult> results = new ArrayList<>();
        // In random order: every partition gets a share of the budget over the rounds.
        List<Map.Entry<PartitionValues, List<DataFile>>> partitions =
                new ArrayList<>(snapshot.allLiveFiles().entrySet());
        java.util.Collections.shuffle(partitions);
        for (Map.Entry<PartitionValues, List<DataFile>> partition : partitions) {
            List<DataFile> files = partition.getValue();
            Compaction compaction =
                    compactor.compact(
                            partition.getKey(), files, budget, PartitionCompactor.Policy.PACK);
            if (compaction.isEmpty()) {
                continue;
            }
            long liveAfter =
                    files.size() - compaction.inputs().size() + compaction.outputs().size();
            long smallAfter =
                    compactor.countSmall(files)
                            - compactor.countSmall(compaction.inputs())
                            + compactor.countSmall(compaction.outputs());
            results.add(
                    new PartitionWriteResult(
                                    partition.getKey(),
                                    snapshot.version(),
                                    LiveSetFingerprint.of(files),
                                    List.of(),
                                    List.of(),
                                    List.of(),
                                    DeletedKeys.NONE,
                                    new UpsertStats(
                                            -1,
                                            1,
                                            0,
                                            0,
                                            files.size(),
                                            0,
                                            0,
                                            0,
                                            0,
                                            0,
                                            0,
                                            0,
                                            0,
                                            0,
                                            0))
                            .withCompaction(compaction, liveAfter, smallAfter));
        }
        return results;
    }

    /**
     * After this pass's commit call returned: deletes the outputs the commit did not take. If the
     * checkpoint is not in the log, nothing will ever commit these results (only this pass holds
     * them, and it is done with them).
     */
    private void resolveOwn(AttemptJournal.Entry entry) {
        TableSnapshot snapshot = table.latestSnapshot();
        FileReclaimer.Landing landing =
                reclaimer.find(snapshot, APP_ID, entry.checkpointId(), entry.notCommittedAt());
        if (!landing.isResolved()) {
            reclaimer.reclaimNeverCommitted(snapshot, entry.notCommittedAt(), entry.files());
            table.journal().remove(entry.withoutFiles());
        } else {
            resolve(snapshot, landing, entry);
        }
    }

    /**
     * Resolves the notes that passes which died left behind, once a later commit under {@link
     * #APP_ID} shows which files their checkpoint id took. A note of a pass that may still run (its
     * checkpoint not in the log yet) is left alone.
     */
    private void resolveEarlierPasses() {
        TableSnapshot snapshot = table.latestSnapshot();
        for (AttemptJournal.Entry entry : table.journal().entries(APP_ID)) {
            FileReclaimer.Landing landing =
                    reclaimer.find(snapshot, APP_ID, entry.checkpointId(), entry.notCommittedAt());
            if (landing.isResolved()) {
                resolve(snapshot, landing, entry);
            }
        }
    }

    private void resolve(
            TableSnapshot snapshot, FileReclaimer.Landing landing, AttemptJournal.Entry entry) {
        if (landing.status() != FileReclaimer.Status.UNKNOWN) {
            reclaimer.reclaim(snapshot, landing, entry.files(), true);
        }
        // UNKNOWN: the log no longer says which version took them; VACUUM decides.
        table.journal().remove(entry.withoutFiles());
    }
}
