/**
 * The table as the merge engine sees it — the port that {@code internal.delta} implements: a table
 * and its snapshots, the commit of the next version and what the log recorded, the store of data
 * files (batches read, files probed for changed keys, keys staged, deletion vectors written), the
 * attempt journal, and the errors a store raises.
 *
 * <p>It may use {@code merge.value} and {@code merge.schema}; it knows nothing of Delta Kernel,
 * storage or Flink, and nothing of how the engine merges.
 */
package io.deltalite.flink.internal.merge.table;
