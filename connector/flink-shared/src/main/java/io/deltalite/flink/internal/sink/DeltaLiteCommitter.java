package io.deltalite.flink.internal.sink;

import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.faults.FaultInjection;
import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.journal.LineageHeartbeat;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.writer.WriterThreads;
import io.deltalite.flink.sink.UpsertStats;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lands each checkpoint's committable as one Delta commit tagged with the transaction id {@code
 * (appId, checkpointId)}.
 *
 * <p>It assumes what Flink's committer operator guarantees: committables reach it only after their
 * checkpoint completed, in checkpoint order, and again after a restore if they were not
 * acknowledged. A committable whose transaction id the table already records is acknowledged as
 * already committed; anything else is committed by {@link CheckpointCommitter}, which merges
 * partitions again if another writer changed them. When its retries run out the job fails and the
 * committable is replayed after the restart.
 *
 * <p>The committer that receives the committables (subtask 0) refreshes the lineage's heartbeat
 * from its start until the checkpoint that ends the lineage is handled, then removes the lineage's
 * heartbeats: a maintenance pass takes the job for alive meanwhile, also when it has no input and
 * its writers finished.
 */
@Internal
final class DeltaLiteCommitter implements Committer<CheckpointResults> {
    private static final Logger LOG = LoggerFactory.getLogger(DeltaLiteCommitter.class);

    private final SinkConfig config;
    private final SinkMetrics metrics;
    private ExecutorService fileExecutor;
    private DeltaTable table;
    private CheckpointCommitter committer;

    private final String ownAppId;
    private final long restoredCheckpointId;

    /** The lineage's heartbeat, beaten by subtask 0 (which gets every committable); else null. */
    private final LineageHeartbeat heartbeat;

    /**
     * @param checkedUpTo the checkpoints up to which results are checked as restored ones are (see
     *     {@link SinkTopology#committer(SinkConfig, CommitterInitContext,
     *     org.apache.flink.metrics.MetricGroup, long)}), beyond those the job restored
     */
    DeltaLiteCommitter(
            SinkConfig config,
            CommitterInitContext context,
            org.apache.flink.metrics.MetricGroup metrics,
            long checkedUpTo) {
        this.config = config;
        this.metrics = new SinkMetrics(metrics);
        this.ownAppId = config.transactionAppId(context.getJobInfo().getJobId().toHexString());
        this.restoredCheckpointId =
                Math.max(context.getRestoredCheckpointId().orElse(0), checkedUpTo);
        if (context.getTaskInfo().getIndexOfThisSubtask() == 0) {
            DeltaTable table = table();
            heartbeat =
                    new LineageHeartbeat(
                            table.journal(),
                            table.location(),
                            ownAppId,
                            AttemptJournal.COMMITTER_PREFIX,
                            config.heartbeatInterval());
            heartbeat.start();
        } else {
            heartbeat = null;
        }
    }

    @Override
    public void commit(Collection<CommitRequest<CheckpointResults>> requests) {
        List<CommitRequest<CheckpointResults>> ordered = new ArrayList<>(requests);
        ordered.sort(Comparator.comparingLong(request -> request.getCommittable().checkpointId()));
        for (CommitRequest<CheckpointResults> request : ordered) {
            commit(request);
        }
    }

    private void commit(CommitRequest<CheckpointResults> request) {
        CheckpointResults committable = request.getCommittable();
        long started = System.nanoTime();
        CommitOutcome outcome;
        FaultInjection.at(FaultInjection.Point.BEFORE_COMMIT, config.location());
        boolean endsLineage = committable.endsInput() && ownAppId.equals(committable.appId());
        if (endsLineage && heartbeat != null) {
            // No heartbeat of this job may outlive the lineage's end.
            heartbeat.stop();
        }
        try {
            outcome = committer().commit(committable);
        } catch (UncheckedIOException e) {
            restartHeartbeatIf(endsLineage);
            LOG.warn(
                    "Commit of checkpoint {} to {} failed on storage; retrying: {}",
                    committable.checkpointId(),
                    config.location(),
                    e.toString());
            request.retryLater();
            return;
        } catch (DeltaLiteException e) {
            restartHeartbeatIf(endsLineage);
            request.signalFailedWithUnknownReason(e);
            return;
        } catch (RuntimeException e) {
            restartHeartbeatIf(endsLineage);
            throw e;
        }
        if (endsLineage) {
            removeHeartbeats();
        }
        FaultInjection.at(FaultInjection.Point.AFTER_COMMIT, config.location());
        long millis = (System.nanoTime() - started) / 1_000_000;
        switch (outcome.status()) {
            case ALREADY_COMMITTED -> {
                LOG.info(
                        "Checkpoint {} of app {} is already committed to {}; skipping it.",
                        committable.checkpointId(),
                        committable.appId(),
                        config.location());
                request.signalAlreadyCommitted();
            }
            case NOTHING_TO_COMMIT ->
                    LOG.info(
                            "Checkpoint {} changed nothing in {}; no Delta commit.",
                            committable.checkpointId(),
                            config.location());
            case COMMITTED -> {
                metrics.committed(outcome.stats(), millis);
                notifyListener(committable.checkpointId(), outcome.stats(), millis);
                LOG.info(
                        "Committed checkpoint {} to {} as version {} in {} ms ({} attempt(s), {}"
                                + " partition(s) re-merged): {}",
                        committable.checkpointId(),
                        config.location(),
                        outcome.version(),
                        millis,
                        outcome.attempts(),
                        outcome.remergedPartitions(),
                        describe(outcome.stats()));
            }
        }
    }

    /** Once the lineage ended: best effort, like the rest of its cleanup. */
    private void removeHeartbeats() {
        try {
            table.journal().removeHeartbeats(ownAppId, Long.MAX_VALUE);
            table.journal().removeLineage(ownAppId);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not remove the heartbeats of the finished job from {}: {}. A"
                            + " maintenance pass removes them once they are older than its"
                            + " retention.",
                    config.location(),
                    e.toString());
        }
    }

    /** After the end of the lineage failed to commit: the job goes on, and beats on. */
    private void restartHeartbeatIf(boolean endsLineage) {
        if (endsLineage && heartbeat != null) {
            heartbeat.start();
        }
    }

    private void notifyListener(long checkpointId, UpsertStats stats, long millis) {
        if (config.commitListener() == null) {
            return;
        }
        try {
            config.commitListener().committed(checkpointId, stats, millis);
        } catch (RuntimeException e) {
            LOG.warn("The commit listener failed on checkpoint {}; ignoring it.", checkpointId, e);
        }
    }

    static String describe(UpsertStats stats) {
        return "partitions="
                + stats.partitionsTouched()
                + " files +"
                + stats.filesAdded()
                + " -"
                + stats.filesRemoved()
                + " kept="
                + stats.filesCarriedOver()
                + " probed="
                + stats.filesProbed()
                + " rows inserted="
                + stats.rowsInserted()
                + " updated="
                + stats.rowsUpdated()
                + " deleted="
                + stats.rowsDeleted()
                + " copied="
                + stats.rowsCopied()
                + " source="
                + stats.sourceRows()
                + " nullKey="
                + stats.nullKeyRows()
                + " bytesWritten="
                + stats.bytesWritten()
                + " deletionVectors="
                + stats.deletionVectorsWritten()
                + " ("
                + stats.deletionVectorBytes()
                + " bytes)";
    }

    private DeltaTable table() {
        if (table == null) {
            table =
                    DeltaTable.open(
                            config.location(),
                            config.storage(),
                            config.mergeOptions(),
                            config.definition(),
                            true);
        }
        return table;
    }

    private CheckpointCommitter committer() {
        if (committer == null) {
            DeltaTable table = table();
            fileExecutor =
                    Executors.newFixedThreadPool(
                            config.mergeOptions().maxParallelFiles(),
                            WriterThreads.daemon(
                                    WriterThreads.prefix("commit-files", table.location())));
            committer =
                    new CheckpointCommitter(
                            table,
                            new PartitionMerger(table, config.mergeOptions(), fileExecutor),
                            config.mergeOptions(),
                            ownAppId,
                            restoredCheckpointId);
        }
        return committer;
    }

    @Override
    public void close() {
        if (heartbeat != null) {
            heartbeat.stop();
        }
        if (fileExecutor != null) {
            fileExecutor.shutdownNow();
        }
    }
}
