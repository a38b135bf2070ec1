/**
 * A Delta table opened for upserts ({@link io.deltalite.flink.internal.delta.table.DeltaTable}):
 * opening or creating it and the checks that refuse what the sink cannot honour, its snapshots and
 * their commits, reading its log (transaction ids, damage), schema changes, the data file store,
 * and the files deltalite keeps beside the data — deletion vector files, staged keys, the attempt
 * journal. It implements the engine's port, {@code merge.table}.
 *
 * <p>It may use {@code delta.fileio}, {@code delta.kernel}, {@code internal.parquet}, {@code
 * internal.storage} and the engine's {@code merge.table}, {@code merge.options}, {@code
 * merge.value} and {@code merge.schema}; never how the engine merges or commits.
 */
package io.deltalite.flink.internal.delta.table;
