/**
 * Passes over a whole table outside any job's checkpoints, behind the public {@code
 * DeltaLiteCompaction} and {@code DeltaLiteMaintenance}: a one-off compaction that commits through
 * the committer, and the cleanup of what dead lineages left in a table.
 *
 * <p>The top room of the engine: it may use every other room of {@code internal.merge}, and no room
 * uses it.
 */
package io.deltalite.flink.internal.merge.maintenance;
