package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.compat.Committables;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Collects the write results of all writer subtasks for a checkpoint into one committable, so that
 * the committer lands each checkpoint as one Delta commit. Runs with parallelism 1.
 *
 * <p>A checkpoint is complete when a summary arrived from every writer subtask (but those that
 * reached the end of their input, which send nothing more) and as many results as the summaries
 * announce. Results of incomplete checkpoints are kept in state.
 *
 * <p><b>Order.</b> Committables leave in checkpoint order, and none is held back behind a later
 * one: when checkpoint M is complete, every earlier checkpoint still here is emitted first, as it
 * is. Such an earlier checkpoint N is one that some writers prepared and others skipped (it expired
 * or was declined and tolerated): every writer sent its messages for M, and the messages of one
 * writer arrive in order, so nothing more of N can come. The writers that prepared N count on it
 * being committed before M — they drop N from their view once the table records M.
 *
 * <p><b>Lineages.</b> After a restore into a new job, buckets restored from state belong to the job
 * that prepared them, and new messages to this job's lineage; even their checkpoint ids can collide
 * (the end of the input). Restored buckets of another lineage receive nothing more: they are
 * emitted, as they are, before anything of this job. The writers known to have finished are kept
 * only for the lineage they finished in.
 */
@Internal
final class CommitAggregator extends AbstractStreamOperator<CommittableMessage<CheckpointResults>>
        implements OneInputStreamOperator<
                        CommittableMessage<WriteResult>, CommittableMessage<CheckpointResults>>,
                BoundedOneInput {
    private static final long serialVersionUID = 1L;

    private static final Serializers.WriteResultSerializer RESULTS =
            new Serializers.WriteResultSerializer();
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(CommitAggregator.class);

    private final SinkConfig config;
    private transient String ownAppId;
    private transient TreeMap<Long, Bucket> buckets;
    private transient List<Map.Entry<Long, Bucket>> otherLineages;
    private transient long restoredCheckpointId;

    /** Writer subtasks that sent their end-of-input results; they send nothing after. */
    private transient java.util.Set<Integer> finishedSubtasks;

    /** The checkpoint of the latest end-of-input results received, 0 for none. */
    private transient long lastEndingCheckpoint;

    /** The number of writers when {@link #finishedSubtasks} was noted, -1 when unknown. */
    private transient int finishedAtParallelism = -1;

    private transient ListState<byte[]> state;
    private transient ListState<byte[]> finishedState;

    CommitAggregator(SinkConfig config) {
        this.config = config;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        ownAppId =
                config.transactionAppId(getRuntimeContext().getJobInfo().getJobId().toHexString());
        restoredCheckpointId = context.getRestoredCheckpointId().orElse(0);
        buckets = new TreeMap<>();
        otherLineages = new ArrayList<>();
        finishedSubtasks = new java.util.HashSet<>();
        state =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "deltalite-aggregator-buckets",
                                        BytePrimitiveArraySerializer.INSTANCE));
        for (byte[] serialized : state.get()) {
            restore(serialized);
        }
        finishedState =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "deltalite-aggregator-finished-writers",
                                        BytePrimitiveArraySerializer.INSTANCE));
        for (byte[] serialized : finishedState.get()) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                String lineage = in.readUTF();
                int count = in.readInt();
                for (int i = 0; i < count; i++) {
                    int subtask = in.readInt();
                    if (lineage.equals(ownAppId)) {
                        finishedSubtasks.add(subtask);
                    }
                }
                // Added later: the checkpoint of the last end-of-input result seen, and the
                // writers' parallelism then.
                if (in.available() >= Long.BYTES + Integer.BYTES && lineage.equals(ownAppId)) {
                    lastEndingCheckpoint = Math.max(lastEndingCheckpoint, in.readLong());
                    finishedAtParallelism = in.readInt();
                }
            }
        }
    }

    @Override
    public void processElement(StreamRecord<CommittableMessage<WriteResult>> element)
            throws IOException {
        CommittableMessage<WriteResult> message = element.getValue();
        long checkpointId = Committables.checkpointId(message);
        Bucket bucket = buckets.computeIfAbsent(checkpointId, id -> new Bucket());
        if (message instanceof CommittableSummary<WriteResult> summary) {
            bucket.expectedSubtasks = summary.getNumberOfSubtasks();
            forgetFinishedUnlessAt(summary.getNumberOfSubtasks());
            bucket.reported.add(summary.getSubtaskId());
            bucket.expectedResults += summary.getNumberOfCommittables();
            if (checkpointId == CommittableMessage.EOI) {
                finishedSubtasks.add(summary.getSubtaskId());
            }
        } else if (message instanceof CommittableWithLineage<WriteResult> result) {
            bucket.results.add(result.getCommittable());
            if (result.getCommittable().endOfInput()) {
                // With checkpoints, Flink sends a writer's last results with a checkpoint id
                // (not as end of input): the writer says so itself.
                finishedSubtasks.add(result.getSubtaskId());
                lastEndingCheckpoint = Math.max(lastEndingCheckpoint, checkpointId);
            }
        }
        emitCompleted();
    }

    /**
     * Forgets the writers known to have finished when the writers are now {@code parallelism}
     * others: after a restore at another parallelism subtask numbers name other writers, and a
     * writer that had finished may have been given input again.
     */
    private void forgetFinishedUnlessAt(int parallelism) {
        if (finishedAtParallelism != parallelism) {
            if (finishedAtParallelism > 0 && !finishedSubtasks.isEmpty()) {
                LOG.info(
                        "The sink's writers are {} now, were {}: forgetting which had finished.",
                        parallelism,
                        finishedAtParallelism);
                finishedSubtasks.clear();
                lastEndingCheckpoint = 0;
            }
            finishedAtParallelism = parallelism;
        }
    }

    /** Emits, in order, every checkpoint up to the last complete one. */
    private void emitCompleted() {
        emitOtherLineages();
        Long lastComplete = null;
        for (Map.Entry<Long, Bucket> entry : buckets.entrySet()) {
            if (entry.getValue().isComplete(finishedSubtasks)) {
                lastComplete = entry.getKey();
            }
        }
        if (lastComplete == null) {
            return;
        }
        while (!buckets.isEmpty() && buckets.firstKey() <= lastComplete) {
            Map.Entry<Long, Bucket> first = buckets.pollFirstEntry();
            if (!first.getKey().equals(lastComplete)
                    && !first.getValue().isComplete(finishedSubtasks)) {
                LOG.warn(
                        "Checkpoint {} did not complete on every writer (it expired or was"
                                + " declined); committing the results of the {} writer(s) that"
                                + " prepared it before checkpoint {}.",
                        first.getKey(),
                        first.getValue().reported.size(),
                        lastComplete);
            }
            emit(first.getKey(), first.getValue());
        }
    }

    /** Restored checkpoints of the job this one was started from go first. */
    private void emitOtherLineages() {
        List<PartitionWriteResult> adopted = new ArrayList<>();
        for (Map.Entry<Long, Bucket> restored : otherLineages) {
            if (restored.getKey() == CommittableMessage.EOI) {
                restored.getValue().results.forEach(result -> adopted.addAll(result.results()));
            } else {
                emit(restored.getKey(), restored.getValue());
            }
        }
        otherLineages.clear();
        if (!adopted.isEmpty()) {
            LOG.info(
                    "Committing the end-of-input results of the job this one was restored from"
                            + " as checkpoint {} of app {}.",
                    restoredCheckpointId,
                    ownAppId);
            output(
                    restoredCheckpointId,
                    new CheckpointResults(ownAppId, restoredCheckpointId, adopted));
        }
    }

    @Override
    public void endInput() {
        emitOtherLineages();
        while (!buckets.isEmpty()) {
            Map.Entry<Long, Bucket> first = buckets.pollFirstEntry();
            emit(first.getKey(), first.getValue());
        }
    }

    private void emit(long checkpointId, Bucket bucket) {
        List<PartitionWriteResult> results = new ArrayList<>();
        String appId = null;
        for (WriteResult result : bucket.results) {
            results.addAll(result.results());
            if (appId == null) {
                appId = result.appId();
            } else if (!appId.equals(result.appId())) {
                throw new IllegalStateException(
                        "writer subtasks prepared checkpoint "
                                + checkpointId
                                + " under different app ids: "
                                + appId
                                + ", "
                                + result.appId());
            }
        }
        // The inputs end with the checkpoint that holds the last writer's last results (writers
        // may end in different checkpoints); even an empty one goes out, to close the lineage.
        boolean endsInput =
                checkpointId == CommittableMessage.EOI
                        || (bucket.expectedSubtasks > 0
                                && finishedSubtasks.size() >= bucket.expectedSubtasks
                                && checkpointId >= lastEndingCheckpoint);
        if (appId == null || (results.isEmpty() && !endsInput)) {
            return;
        }
        output(checkpointId, new CheckpointResults(appId, checkpointId, results, endsInput));
    }

    private void output(long checkpointId, CheckpointResults committable) {
        output.collect(new StreamRecord<>(Committables.summary(0, 1, checkpointId, 1)));
        output.collect(
                new StreamRecord<>(new CommittableWithLineage<>(committable, checkpointId, 0)));
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<byte[]> serialized = new ArrayList<>();
        for (Map.Entry<Long, Bucket> entry : buckets.entrySet()) {
            serialized.add(serialize(entry.getKey(), entry.getValue()));
        }
        for (Map.Entry<Long, Bucket> restored : otherLineages) {
            serialized.add(serialize(restored.getKey(), restored.getValue()));
        }
        state.update(serialized);
        ByteArrayOutputStream finished = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(finished)) {
            out.writeUTF(ownAppId);
            out.writeInt(finishedSubtasks.size());
            for (int subtask : finishedSubtasks) {
                out.writeInt(subtask);
            }
            out.writeLong(lastEndingCheckpoint);
            out.writeInt(finishedAtParallelism);
        }
        finishedState.update(List.of(finished.toByteArray()));
    }

    private byte[] serialize(long checkpointId, Bucket bucket) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(Serializers.WriteResultSerializer.VERSION);
            out.writeLong(checkpointId);
            out.writeInt(bucket.expectedSubtasks);
            out.writeInt(bucket.reported.size());
            for (int subtask : bucket.reported) {
                out.writeInt(subtask);
            }
            out.writeInt(bucket.expectedResults);
            out.writeInt(bucket.results.size());
            for (WriteResult result : bucket.results) {
                byte[] data = RESULTS.serialize(result);
                out.writeInt(data.length);
                out.write(data);
            }
        }
        return bytes.toByteArray();
    }

    private void restore(byte[] serialized) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            int version = in.readInt();
            long checkpointId = in.readLong();
            Bucket bucket = new Bucket();
            bucket.expectedSubtasks = in.readInt();
            int reported = in.readInt();
            for (int i = 0; i < reported; i++) {
                // The first layout counted summaries without naming their subtasks.
                bucket.reported.add(version >= 2 ? in.readInt() : i);
            }
            bucket.expectedResults = in.readInt();
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                byte[] data = new byte[in.readInt()];
                in.readFully(data);
                bucket.results.add(RESULTS.deserialize(version, data));
            }
            String lineage = bucket.results.isEmpty() ? null : bucket.results.get(0).appId();
            if (lineage == null || lineage.equals(ownAppId)) {
                buckets.put(checkpointId, bucket);
            } else {
                otherLineages.add(Map.entry(checkpointId, bucket));
            }
        }
    }

    /** The messages of one checkpoint received so far. */
    private static final class Bucket {
        int expectedSubtasks = -1;
        final java.util.Set<Integer> reported = new java.util.TreeSet<>();
        int expectedResults;
        final List<WriteResult> results = new ArrayList<>();

        /**
         * Whether every writer subtask reported this checkpoint or finished without it: a subtask
         * that sent its end-of-input results sends nothing more, and what it sent before arrived
         * before them.
         *
         * @param finished writer subtasks that sent their end-of-input results
         */
        boolean isComplete(java.util.Set<Integer> finished) {
            if (expectedSubtasks <= 0 || results.size() < expectedResults) {
                return false;
            }
            for (int subtask = 0; subtask < expectedSubtasks; subtask++) {
                if (!reported.contains(subtask) && !finished.contains(subtask)) {
                    return false;
                }
            }
            return true;
        }
    }
}
