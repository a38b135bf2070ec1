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
import org.apache.flink.core.io.SimpleVersionedSerializer;
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
 * <p><b>Once.</b> Each checkpoint goes to the committer at most once: Flink's committer refuses a
 * second summary of a checkpoint, and fails on every restart after. A second one would come from
 * writers run again after a restore: Flink's writer operator keeps no "ended" flag, so a writer
 * whose input had ended before the restored checkpoint R runs again, its input ends at once, and it
 * announces its end again — with nothing in it, numbered R+1 (or after a checkpoint it took part
 * in) — possibly after the others made R+1 complete and it went out. Such a late announcement of a
 * checkpoint already sent is dropped; late <i>changes</i> could no longer be committed in order, so
 * they fail the job loudly instead.
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
 * (the end of the input). Every bucket of another job's state is that job's — the state names the
 * job that wrote it — and receives nothing more but the rest of that job's messages an unaligned
 * checkpoint saved in flight: Flink replays those before anything new, their checkpoint ids are at
 * most the restored one, and one the state lacks gets a bucket of its own. Once a message of this
 * job arrives, they are emitted, as they are, in checkpoint order (the committer takes a checkpoint
 * at or below one it committed for the same app id as committed already), before anything of this
 * job. The writers known to have finished are kept only for the lineage they finished in.
 */
@Internal
public final class CommitAggregator<T, C> extends AbstractStreamOperator<CommittableMessage<C>>
        implements OneInputStreamOperator<CommittableMessage<T>, CommittableMessage<C>>,
                BoundedOneInput {
    private static final long serialVersionUID = 1L;

    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(CommitAggregator.class);

    /**
     * What the aggregator reads of a writer's committable {@code T}, and how it assembles the
     * committables {@code C} of a checkpoint from them.
     */
    public interface Assembly<T, C> extends java.io.Serializable {
        /** The transaction app id of the checkpoints the job {@code jobId} prepares. */
        String transactionAppId(String jobId);

        /** The write result inside {@code committable}. */
        WriteResult writeResult(T committable);

        /**
         * The committables of checkpoint {@code checkpointId} of app {@code appId}, from its
         * writers' {@code committables}: none when they changed nothing and do not end the input.
         */
        List<C> assemble(String appId, long checkpointId, List<T> committables, boolean endsInput);

        /**
         * How the aggregator keeps writers' committables in its state. Its version is the layout
         * version of the state, which counted summaries without naming their subtasks at 1.
         */
        SimpleVersionedSerializer<T> serializer();
    }

    /** One committable per checkpoint: {@link CheckpointResults}, for one table. */
    static final class OneTable implements Assembly<WriteResult, CheckpointResults> {
        private static final long serialVersionUID = 1L;
        private final SinkConfig config;

        OneTable(SinkConfig config) {
            this.config = config;
        }

        @Override
        public String transactionAppId(String jobId) {
            return config.transactionAppId(jobId);
        }

        @Override
        public WriteResult writeResult(WriteResult committable) {
            return committable;
        }

        @Override
        public List<CheckpointResults> assemble(
                String appId,
                long checkpointId,
                List<WriteResult> committables,
                boolean endsInput) {
            List<PartitionWriteResult> results = new ArrayList<>();
            committables.forEach(result -> results.addAll(result.results()));
            if (results.isEmpty() && !endsInput) {
                return List.of();
            }
            return List.of(new CheckpointResults(appId, checkpointId, results, endsInput));
        }

        @Override
        public SimpleVersionedSerializer<WriteResult> serializer() {
            return new Serializers.WriteResultSerializer();
        }
    }

    private final Assembly<T, C> assembly;
    private transient SimpleVersionedSerializer<T> results;
    private transient String ownAppId;
    private transient TreeMap<Long, Bucket<T>> buckets;
    private transient List<Map.Entry<Long, Bucket<T>>> otherLineages;

    /**
     * The app id of the job whose snapshot this operator restored, or null (no restore, or state of
     * a release that did not name it).
     */
    private transient String stateLineage;

    /** Whether a message of a checkpoint after the restored one arrived: nothing replays after. */
    private transient boolean replayOver;

    private transient long restoredCheckpointId;

    /** Writer subtasks that sent their end-of-input results; they send nothing after. */
    private transient java.util.Set<Integer> finishedSubtasks;

    /** The checkpoint of the latest end-of-input results received, 0 for none. */
    private transient long lastEndingCheckpoint;

    /**
     * The latest checkpoint of this job's lineage handed to the committer (or passed over with
     * nothing to commit), kept in state; 0 for none. Checkpoints go out in order, so a bucket at or
     * below it is a late announcement.
     */
    private transient long lastSent;

    /** The number of writers when {@link #finishedSubtasks} was noted, -1 when unknown. */
    private transient int finishedAtParallelism = -1;

    private transient ListState<byte[]> state;
    private transient ListState<byte[]> finishedState;

    public CommitAggregator(Assembly<T, C> assembly) {
        this.assembly = assembly;
    }

    /** The aggregator of a sink of one table. */
    static CommitAggregator<WriteResult, CheckpointResults> ofOneTable(SinkConfig config) {
        return new CommitAggregator<>(new OneTable(config));
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        results = assembly.serializer();
        ownAppId =
                assembly.transactionAppId(
                        getRuntimeContext().getJobInfo().getJobId().toHexString());
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
        finishedState =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "deltalite-aggregator-finished-writers",
                                        BytePrimitiveArraySerializer.INSTANCE));
        for (byte[] serialized : finishedState.get()) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                String lineage = in.readUTF();
                stateLineage = lineage;
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
                    // Added later still: the last checkpoint sent. What was sent before the
                    // snapshot reaches the committer, through its state or as data in flight.
                    if (in.available() >= Long.BYTES) {
                        lastSent = Math.max(lastSent, in.readLong());
                    }
                }
            }
        }
        // Read after the finished writers, which name the job that wrote this state.
        for (byte[] serialized : state.get()) {
            restore(serialized);
        }
    }

    @Override
    public void processElement(StreamRecord<CommittableMessage<T>> element) throws IOException {
        CommittableMessage<T> message = element.getValue();
        long checkpointId = Committables.checkpointId(message);
        // Until a message of a checkpoint after the restored one arrives, Flink may be replaying
        // the aggregator's saved input (an unaligned checkpoint): a message of a checkpoint whose
        // other part came back in state belongs with it.
        boolean replay = !replayOver && checkpointId <= restoredCheckpointId;
        replayOver |= !replay;
        Bucket<T> restored = replay ? otherLineageBucket(checkpointId) : null;
        if (restored == null && replay && restoredFromAnotherJob()) {
            // Data in flight of the job the state came from, of a checkpoint its state lacks.
            restored = new Bucket<>();
            otherLineages.add(Map.entry(checkpointId, restored));
        }
        if (restored != null) {
            restored.add(message);
            return;
        }
        buckets.computeIfAbsent(checkpointId, id -> new Bucket<>()).add(message);
        if (message instanceof CommittableSummary<T> summary) {
            forgetFinishedUnlessAt(summary.getNumberOfSubtasks());
            if (checkpointId == CommittableMessage.EOI) {
                finishedSubtasks.add(summary.getSubtaskId());
            }
        } else if (message instanceof CommittableWithLineage<T> result) {
            if (assembly.writeResult(result.getCommittable()).endOfInput()) {
                // With checkpoints, Flink sends a writer's last results with a checkpoint id
                // (not as end of input): the writer says so itself.
                finishedSubtasks.add(result.getSubtaskId());
                lastEndingCheckpoint = Math.max(lastEndingCheckpoint, checkpointId);
            }
        }
        if (!replay) {
            // A message of this job: whatever was saved in flight came before it.
            emitCompleted();
        }
    }

    /** Whether the restored state is another job's (a start from its savepoint or checkpoint). */
    private boolean restoredFromAnotherJob() {
        return stateLineage != null && !stateLineage.equals(ownAppId);
    }

    /**
     * The restored, not yet emitted bucket of another lineage for {@code checkpointId}, or null.
     */
    private Bucket<T> otherLineageBucket(long checkpointId) {
        for (Map.Entry<Long, Bucket<T>> restored : otherLineages) {
            if (restored.getKey() == checkpointId) {
                return restored.getValue();
            }
        }
        return null;
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
        for (Map.Entry<Long, Bucket<T>> entry : buckets.entrySet()) {
            if (entry.getValue().isComplete(finishedSubtasks)) {
                lastComplete = entry.getKey();
            }
        }
        if (lastComplete == null) {
            return;
        }
        while (!buckets.isEmpty() && buckets.firstKey() <= lastComplete) {
            Map.Entry<Long, Bucket<T>> first = buckets.pollFirstEntry();
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
        List<T> adopted = new ArrayList<>();
        // In checkpoint order: the committer takes a checkpoint at or below one it committed for
        // the same app id as committed already.
        otherLineages.sort(Map.Entry.comparingByKey());
        for (Map.Entry<Long, Bucket<T>> restored : otherLineages) {
            if (restored.getKey() == CommittableMessage.EOI) {
                adopted.addAll(restored.getValue().results);
            } else {
                emit(restored.getKey(), restored.getValue());
            }
        }
        otherLineages.clear();
        List<C> committables =
                adopted.isEmpty()
                        ? List.of()
                        : assembly.assemble(ownAppId, restoredCheckpointId, adopted, false);
        if (!committables.isEmpty()) {
            LOG.info(
                    "Committing the end-of-input results of the job this one was restored from"
                            + " as checkpoint {} of app {}.",
                    restoredCheckpointId,
                    ownAppId);
            output(restoredCheckpointId, committables);
        }
    }

    @Override
    public void endInput() {
        emitOtherLineages();
        while (!buckets.isEmpty()) {
            Map.Entry<Long, Bucket<T>> first = buckets.pollFirstEntry();
            emit(first.getKey(), first.getValue());
        }
    }

    private void emit(long checkpointId, Bucket<T> bucket) {
        String appId = null;
        for (T committable : bucket.results) {
            WriteResult result = assembly.writeResult(committable);
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
        if (appId == null) {
            return;
        }
        if (appId.equals(ownAppId)) {
            if (checkpointId <= lastSent) {
                dropLate(checkpointId, bucket);
                return;
            }
            lastSent = checkpointId;
        }
        output(checkpointId, assembly.assemble(appId, checkpointId, bucket.results, endsInput));
    }

    /**
     * Drops a bucket of a checkpoint that already went out (see "Once" above): an empty end of
     * input repeated by a writer run again after a restore. Anything with changes fails the job.
     */
    private void dropLate(long checkpointId, Bucket<T> bucket) {
        for (T committable : bucket.results) {
            WriteResult result = assembly.writeResult(committable);
            if (!result.results().isEmpty()) {
                throw new IllegalStateException(
                        "Writer subtask(s) "
                                + bucket.reported
                                + " of the sink sent changes of checkpoint "
                                + checkpointId
                                + " (app id "
                                + result.appId()
                                + ") after the sink had handed that checkpoint, or a later one, to"
                                + " its committer: they can no longer be committed in order."
                                + " Nothing of them is visible; the job restarts from its last"
                                + " completed checkpoint. If this repeats, report it with this"
                                + " message.");
            }
        }
        LOG.info(
                "Writer subtask(s) {} announced again, as checkpoint {}, the end of the input"
                        + " they had reached before the restore of checkpoint {}; checkpoint {}"
                        + " already went to the committer, so the announcement is dropped.",
                bucket.reported,
                checkpointId,
                restoredCheckpointId,
                checkpointId);
    }

    private void output(long checkpointId, List<C> committables) {
        if (committables.isEmpty()) {
            return;
        }
        output.collect(
                new StreamRecord<>(
                        Committables.<C>summary(0, 1, checkpointId, committables.size())));
        for (C committable : committables) {
            output.collect(
                    new StreamRecord<>(new CommittableWithLineage<>(committable, checkpointId, 0)));
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<byte[]> serialized = new ArrayList<>();
        for (Map.Entry<Long, Bucket<T>> entry : buckets.entrySet()) {
            serialized.add(serialize(entry.getKey(), entry.getValue(), false));
        }
        for (Map.Entry<Long, Bucket<T>> restored : otherLineages) {
            serialized.add(serialize(restored.getKey(), restored.getValue(), true));
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
            out.writeLong(lastSent);
        }
        finishedState.update(List.of(finished.toByteArray()));
    }

    /**
     * @param earlier whether the bucket is of the job whose state this job restored (added later,
     *     after the results: a bucket whose results were still in flight cannot tell by them)
     */
    private byte[] serialize(long checkpointId, Bucket<T> bucket, boolean earlier)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(results.getVersion());
            out.writeLong(checkpointId);
            out.writeInt(bucket.expectedSubtasks);
            out.writeInt(bucket.reported.size());
            for (int subtask : bucket.reported) {
                out.writeInt(subtask);
            }
            out.writeInt(bucket.expectedResults);
            out.writeInt(bucket.results.size());
            for (T result : bucket.results) {
                byte[] data = results.serialize(result);
                out.writeInt(data.length);
                out.write(data);
            }
            out.writeBoolean(earlier);
        }
        return bytes.toByteArray();
    }

    private void restore(byte[] serialized) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            int version = in.readInt();
            long checkpointId = in.readLong();
            Bucket<T> bucket = new Bucket<>();
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
                bucket.results.add(results.deserialize(version, data));
            }
            String lineage =
                    bucket.results.isEmpty()
                            ? null
                            : assembly.writeResult(bucket.results.get(0)).appId();
            boolean earlier = in.available() > 0 && in.readBoolean();
            // Every bucket of another job's state is that job's, also one whose results were still
            // in flight (an unaligned checkpoint): Flink replays them into it. So is one this job
            // had restored from another and kept, after a failover of this job.
            if (!earlier
                    && !restoredFromAnotherJob()
                    && (lineage == null || lineage.equals(ownAppId))) {
                buckets.put(checkpointId, bucket);
            } else {
                otherLineages.add(Map.entry(checkpointId, bucket));
            }
        }
    }

    /** The messages of one checkpoint received so far. */
    private static final class Bucket<T> {
        int expectedSubtasks = -1;
        final java.util.Set<Integer> reported = new java.util.TreeSet<>();
        int expectedResults;
        final List<T> results = new ArrayList<>();

        /** Adds a writer's summary or result of this checkpoint. */
        void add(CommittableMessage<T> message) {
            if (message instanceof CommittableSummary<T> summary) {
                expectedSubtasks = summary.getNumberOfSubtasks();
                reported.add(summary.getSubtaskId());
                expectedResults += summary.getNumberOfCommittables();
            } else if (message instanceof CommittableWithLineage<T> result) {
                results.add(result.getCommittable());
            }
        }

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
