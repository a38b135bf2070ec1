/**
 * What merges produce and carry to the committer (in Flink's committables and state): the result of
 * one partition and of one checkpoint, with its compactions and statistics, the fingerprint of the
 * live files it was planned against, how writers share a partition and how their results for it are
 * combined, the versioned binary form of results, and values brought to the table's current column
 * types.
 *
 * <p>It may use {@code merge.table}, {@code merge.value} and {@code merge.schema}; it holds no
 * logic of the merge itself.
 */
package io.deltalite.flink.internal.merge.result;
