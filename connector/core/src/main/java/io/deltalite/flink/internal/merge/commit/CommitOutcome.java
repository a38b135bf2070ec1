package io.deltalite.flink.internal.merge.commit;

import io.deltalite.flink.sink.UpsertStats;

/**
 * How a checkpoint's commit ended.
 *
 * @param status what happened
 * @param version the Delta version created, or -1 when no commit was made
 * @param stats the committed changes, with {@link UpsertStats#version()} set
 * @param attempts commit attempts made (1 when nobody interfered)
 * @param remergedPartitions partitions merged again because another writer changed them
 */
public record CommitOutcome(
        Status status, long version, UpsertStats stats, int attempts, int remergedPartitions) {

    public enum Status {
        /** A new Delta version holds the checkpoint. */
        COMMITTED,
        /** The table already records this checkpoint for the application id. */
        ALREADY_COMMITTED,
        /** The checkpoint changed nothing, so no Delta version was created. */
        NOTHING_TO_COMMIT
    }
}
