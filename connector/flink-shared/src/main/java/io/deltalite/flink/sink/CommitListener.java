package io.deltalite.flink.sink;

import java.io.Serializable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Told about every checkpoint the sink commits, in the committer task (on a cluster, in a
 * TaskManager). It must be quick and must not throw; use it for progress reports or bookkeeping,
 * not to change the table.
 */
@PublicEvolving
@FunctionalInterface
public interface CommitListener extends Serializable {

    /**
     * @param checkpointId the Flink checkpoint that was committed
     * @param stats what the commit did; {@link UpsertStats#version()} is the new Delta version
     * @param durationMillis time from the start of the commit to its landing
     */
    void committed(long checkpointId, UpsertStats stats, long durationMillis);
}
