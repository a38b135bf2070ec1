/**
 * Finding the files that hold changed keys: pruning by the key statistics of the log, the exact
 * probe that decodes only the key columns of a file, and the per-file work on the writer's shared
 * file executor that bounds how many files are open at once.
 *
 * <p>It may use {@code merge.result} (for values widened to the current column types), {@code
 * merge.table}, {@code merge.value} and {@code merge.schema}.
 */
package io.deltalite.flink.internal.merge.probe;
