/**
 * Rewriting the committed files of a partition into fewer, larger ones without changing a row:
 * which files to pick, and the merge of their sorted runs into new files.
 *
 * <p>It may use {@code merge.options}, {@code merge.result}, {@code merge.table}, {@code
 * merge.value} and {@code merge.schema}. The one-off pass over a whole table, which commits, is in
 * {@code merge.maintenance}.
 */
package io.deltalite.flink.internal.merge.compaction;
