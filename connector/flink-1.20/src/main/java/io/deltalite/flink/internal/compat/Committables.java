package io.deltalite.flink.internal.compat;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;

/**
 * The committable messages between writers, aggregator and committer, on Flink 1.20: the checkpoint
 * id is {@code getCheckpointIdOrEOI()} (1.20's {@code getCheckpointId()} is an {@code
 * OptionalLong}) and a summary still counts pending committables.
 */
@Internal
public final class Committables {
    private Committables() {}

    /** The checkpoint a message belongs to, or {@link CommittableMessage#EOI} at end of input. */
    public static long checkpointId(CommittableMessage<?> message) {
        return message.getCheckpointIdOrEOI();
    }

    /** A summary announcing {@code committables} committables of one subtask, none failed. */
    public static <T> CommittableSummary<T> summary(
            int subtaskId, int numberOfSubtasks, long checkpointId, int committables) {
        return new CommittableSummary<>(
                subtaskId, numberOfSubtasks, checkpointId, committables, 0, 0);
    }
}
