/**
 * The key index: for each partition a writer merges, where each key's rows are, so that a
 * checkpoint finds the rows it replaces without reading the table. It is a function of the
 * partition's live files and is rebuilt from them, never a second truth.
 *
 * <p>It may use {@code merge.probe} (to read files in parallel), {@code merge.options}, {@code
 * merge.table}, {@code merge.value} and {@code merge.schema}.
 */
package io.deltalite.flink.internal.merge.index;
