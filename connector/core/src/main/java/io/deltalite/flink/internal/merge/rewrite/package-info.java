/**
 * The merge of one partition ({@link io.deltalite.flink.internal.merge.rewrite.PartitionMerger}):
 * the upserted rows go to new files; the live files that hold a changed key are found (statistics,
 * probe or key index) and either rewritten without those rows or marked in their deletion vectors;
 * and a result is merged again against a newer snapshot when someone else changed the partition.
 *
 * <p>It may use {@code merge.index}, {@code merge.probe}, {@code merge.compaction}, {@code
 * merge.changes}, {@code merge.result}, {@code merge.options} and the rooms below them; not the
 * writer, the journal or the committer.
 */
package io.deltalite.flink.internal.merge.rewrite;
