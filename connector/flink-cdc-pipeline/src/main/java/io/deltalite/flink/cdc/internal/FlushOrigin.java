package io.deltalite.flink.cdc.internal;

/**
 * Tells apart the two callers of a pipeline writer's {@code flush(false)}. Flink's sink writer
 * operator calls it in {@code prepareSnapshotPreBarrier}, right before the checkpoint's {@code
 * prepareCommit()}, which merges what is buffered anyway — as the checkpoint's last merge, which
 * also compacts. Flink CDC's sink operator calls it for a {@code FlushEvent}, before a schema
 * change is applied: then the writer must merge what it buffered at once ({@link
 * DeltaLiteEventWriter}).
 *
 * <p>Should either operator call it differently one day, the worst is safe: a checkpoint whose
 * merges ran early and did not compact, or a schema change that finds changes still buffered, whose
 * merge the changed table refuses — the job restarts and the changes are replayed.
 */
final class FlushOrigin {
    private FlushOrigin() {}

    /** Whether the running flush is Flink's, right before a checkpoint. */
    static boolean isCheckpoint() {
        return StackWalker.getInstance()
                .walk(
                        frames ->
                                frames.anyMatch(
                                        frame ->
                                                frame.getMethodName()
                                                        .equals("prepareSnapshotPreBarrier")));
    }
}
