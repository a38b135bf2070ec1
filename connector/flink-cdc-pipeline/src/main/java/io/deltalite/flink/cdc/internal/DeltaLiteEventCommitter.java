package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.sink.SinkTopology;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lands each table's committable of a checkpoint as one Delta commit, through the committer a sink
 * of that one table has ({@code DeltaLiteCommitter}: the transaction id {@code (app id, checkpoint
 * id)} of the table's log tells a replay from a new checkpoint): each table's checkpoints in
 * checkpoint order, up to {@code tables.parallel-merges} tables side by side. A checkpoint whose
 * commit fails half-way is replayed whole after the restart: the tables that have it already
 * acknowledge it, the others commit it.
 *
 * <p>The metadata applier changes tables while this committer runs. A table's committer opened the
 * table with the schema it had then, and refuses to commit to a table whose schema changed since;
 * this committer then opens the table again and commits the checkpoint once more — the files its
 * writers merged before the change stay readable after it (columns added, types widened, NOT NULL
 * relaxed: see {@link DeltaLiteEventWriter}) — as long as they still fit it: the checkpoints merged
 * before the change are checked as restored ones are, so that a table replaced or whose columns
 * were dropped meanwhile (by another writer) refuses them.
 */
final class DeltaLiteEventCommitter implements Committer<TableCommittable> {
    private static final Logger LOG = LoggerFactory.getLogger(DeltaLiteEventCommitter.class);

    private final PipelineSettings settings;
    private final CommitterInitContext context;

    /** Each table's committer, by location; tables commit side by side ({@link #commit}). */
    private final Map<String, Committer<CheckpointResults>> tables = new ConcurrentHashMap<>();

    /** Commits tables side by side. */
    private final TablesSideBySide sideBySide;

    DeltaLiteEventCommitter(PipelineSettings settings, CommitterInitContext context) {
        this.settings = settings;
        this.context = context;
        this.sideBySide = new TablesSideBySide(settings.tablesAtOnce(), "deltalite-table-commits");
    }

    @Override
    public void commit(Collection<CommitRequest<TableCommittable>> requests)
            throws IOException, InterruptedException {
        List<CommitRequest<TableCommittable>> ordered = new ArrayList<>(requests);
        ordered.sort(Comparator.comparingLong(request -> request.getCommittable().checkpointId()));
        // Each table's checkpoints in order; the tables side by side.
        Map<String, List<CommitRequest<TableCommittable>>> byTable = new LinkedHashMap<>();
        for (CommitRequest<TableCommittable> request : ordered) {
            byTable.computeIfAbsent(
                            request.getCommittable().table().location(),
                            location -> new ArrayList<>())
                    .add(request);
        }
        List<java.util.concurrent.Callable<List<Void>>> tasks = new ArrayList<>();
        for (List<CommitRequest<TableCommittable>> table : byTable.values()) {
            tasks.add(
                    () -> {
                        commitTable(table);
                        return List.of();
                    });
        }
        sideBySide.run(tasks);
    }

    /** One table's checkpoints, in checkpoint order. */
    private void commitTable(List<CommitRequest<TableCommittable>> requests)
            throws IOException, InterruptedException {
        long last = requests.get(requests.size() - 1).getCommittable().checkpointId();
        for (CommitRequest<TableCommittable> request : requests) {
            commit(request, last);
        }
    }

    /**
     * @param lastOfTable the last checkpoint of the table among those to commit now: each may have
     *     been merged before the table's schema changed
     */
    private void commit(CommitRequest<TableCommittable> request, long lastOfTable)
            throws IOException, InterruptedException {
        TableSpec table = request.getCommittable().table();
        TableRequest attempt = new TableRequest(request, false);
        committerOf(table, 0).commit(List.of(attempt));
        if (attempt.schemaChanged != null) {
            LOG.info(
                    "The schema of {} at {} changed since its committer opened it; opening it"
                            + " again to commit checkpoint {}: {}",
                    table.name(),
                    table.location(),
                    request.getCommittable().checkpointId(),
                    attempt.schemaChanged.getMessage());
            close(tables.remove(table.location()));
            // Checked as a restored checkpoint is: merged before the change, its files must still
            // fit the table (partitioning, columns), else it is refused, never committed blindly.
            committerOf(table, lastOfTable).commit(List.of(new TableRequest(request, true)));
        }
    }

    /**
     * @param checkedUpTo the checkpoints its committer checks as restored ones ({@link
     *     SinkTopology#committer})
     */
    private Committer<CheckpointResults> committerOf(TableSpec table, long checkedUpTo) {
        // Only this table's thread reaches its entry: tables commit apart, each in one thread.
        Committer<CheckpointResults> committer = tables.get(table.location());
        if (committer == null) {
            committer =
                    SinkTopology.committer(
                            table.config(settings),
                            context,
                            context.metricGroup().addGroup("table", table.name()),
                            checkedUpTo);
            tables.put(table.location(), committer);
        }
        return committer;
    }

    @Override
    public void close() throws Exception {
        try {
            // No table's commit may still run while its committer closes.
            sideBySide.close();
        } finally {
            for (Committer<CheckpointResults> committer : tables.values()) {
                close(committer);
            }
            tables.clear();
        }
    }

    private static void close(Committer<CheckpointResults> committer) {
        try {
            committer.close();
        } catch (Exception e) {
            LOG.warn("Could not close a table's committer: {}", e.toString());
        }
    }

    /**
     * The request of one table's committable, as the table's committer takes it; a refusal because
     * the table's schema changed is kept back on the first attempt, to open the table again.
     */
    private static final class TableRequest implements CommitRequest<CheckpointResults> {
        private final CommitRequest<TableCommittable> request;
        private final boolean lastAttempt;
        DeltaLiteSchemaMismatchException schemaChanged;

        TableRequest(CommitRequest<TableCommittable> request, boolean lastAttempt) {
            this.request = request;
            this.lastAttempt = lastAttempt;
        }

        @Override
        public CheckpointResults getCommittable() {
            return request.getCommittable().checkpointResults();
        }

        @Override
        public int getNumberOfRetries() {
            return request.getNumberOfRetries();
        }

        @Override
        public void signalFailedWithKnownReason(Throwable t) {
            if (!keptBack(t)) {
                request.signalFailedWithKnownReason(t);
            }
        }

        @Override
        public void signalFailedWithUnknownReason(Throwable t) {
            if (!keptBack(t)) {
                request.signalFailedWithUnknownReason(t);
            }
        }

        private boolean keptBack(Throwable t) {
            if (!lastAttempt && t instanceof DeltaLiteSchemaMismatchException mismatch) {
                schemaChanged = mismatch;
                return true;
            }
            return false;
        }

        @Override
        public void retryLater() {
            request.retryLater();
        }

        @Override
        public void updateAndRetryLater(CheckpointResults committable) {
            TableCommittable table = request.getCommittable();
            request.updateAndRetryLater(
                    new TableCommittable(
                            table.table(),
                            committable.checkpointId(),
                            new io.deltalite.flink.internal.sink.WriteResult(
                                    committable.appId(),
                                    committable.results(),
                                    committable.endsInput())));
        }

        @Override
        public void signalAlreadyCommitted() {
            request.signalAlreadyCommitted();
        }
    }
}
