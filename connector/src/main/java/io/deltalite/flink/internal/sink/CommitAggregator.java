package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.merge.CheckpointResults;
import io.deltalite.flink.internal.merge.PartitionWriteResult;
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
 * <p>A checkpoint is complete when a summary arrived from every writer subtask and as many results
 * as the summaries announce. Results of incomplete checkpoints are kept in state.
 */
@Internal
final class CommitAggregator extends AbstractStreamOperator<CommittableMessage<CheckpointResults>>
        implements OneInputStreamOperator<
                        CommittableMessage<WriteResult>, CommittableMessage<CheckpointResults>>,
                BoundedOneInput {
    private static final long serialVersionUID = 1L;

    private static final Serializers.WriteResultSerializer RESULTS =
            new Serializers.WriteResultSerializer();
    private transient TreeMap<Long, Bucket> buckets;
    private transient ListState<byte[]> state;

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        buckets = new TreeMap<>();
        state =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "deltalite-aggregator-buckets",
                                        BytePrimitiveArraySerializer.INSTANCE));
        for (byte[] serialized : state.get()) {
            restore(serialized);
        }
    }

    @Override
    public void processElement(StreamRecord<CommittableMessage<WriteResult>> element)
            throws IOException {
        CommittableMessage<WriteResult> message = element.getValue();
        Bucket bucket = buckets.computeIfAbsent(message.getCheckpointId(), id -> new Bucket());
        if (message instanceof CommittableSummary<WriteResult> summary) {
            bucket.expectedSubtasks = summary.getNumberOfSubtasks();
            bucket.summaries++;
            bucket.expectedResults += summary.getNumberOfCommittables();
        } else if (message instanceof CommittableWithLineage<WriteResult> result) {
            bucket.results.add(result.getCommittable());
        }
        if (bucket.isComplete()) {
            emit(message.getCheckpointId(), buckets.remove(message.getCheckpointId()));
        }
    }

    @Override
    public void endInput() {
        for (Map.Entry<Long, Bucket> entry : buckets.entrySet()) {
            emit(entry.getKey(), entry.getValue());
        }
        buckets.clear();
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
        if (results.isEmpty()) {
            return;
        }
        output.collect(new StreamRecord<>(new CommittableSummary<>(0, 1, checkpointId, 1, 0)));
        output.collect(
                new StreamRecord<>(
                        new CommittableWithLineage<>(
                                new CheckpointResults(appId, checkpointId, results),
                                checkpointId,
                                0)));
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<byte[]> serialized = new ArrayList<>();
        for (Map.Entry<Long, Bucket> entry : buckets.entrySet()) {
            serialized.add(serialize(entry.getKey(), entry.getValue()));
        }
        state.update(serialized);
    }

    private byte[] serialize(long checkpointId, Bucket bucket) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(Serializers.WriteResultSerializer.VERSION);
            out.writeLong(checkpointId);
            out.writeInt(bucket.expectedSubtasks);
            out.writeInt(bucket.summaries);
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
            bucket.summaries = in.readInt();
            bucket.expectedResults = in.readInt();
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                byte[] data = new byte[in.readInt()];
                in.readFully(data);
                bucket.results.add(RESULTS.deserialize(version, data));
            }
            buckets.put(checkpointId, bucket);
        }
    }

    /** The messages of one checkpoint received so far. */
    private static final class Bucket {
        int expectedSubtasks = -1;
        int summaries;
        int expectedResults;
        final List<WriteResult> results = new ArrayList<>();

        boolean isComplete() {
            return expectedSubtasks > 0
                    && summaries >= expectedSubtasks
                    && results.size() >= expectedResults;
        }
    }
}
