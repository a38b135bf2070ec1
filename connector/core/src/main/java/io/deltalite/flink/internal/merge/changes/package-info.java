/**
 * What a writer received before it merges: the change buffer of one writer, which checks each row
 * against the table's shape on the way in and keeps to a heap budget, and the changes of one
 * partition in one checkpoint (the last change per key).
 *
 * <p>It may use {@code merge.table}, {@code merge.value} and {@code merge.schema}.
 */
package io.deltalite.flink.internal.merge.changes;
