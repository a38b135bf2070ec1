/**
 * The engine side of one sink writer ({@link
 * io.deltalite.flink.internal.merge.writer.MergeWriter}): it buffers changes, merges them partition
 * by partition, and remembers the checkpoints it prepared until the table shows them committed.
 *
 * <p>It may use every room of the engine below it — rewrite, index, compaction, probe, changes,
 * journal, result, options and the values — but not {@code merge.commit} or {@code
 * merge.maintenance}: writers and the committer meet only through results.
 */
package io.deltalite.flink.internal.merge.writer;
