/**
 * Conversions between the merge engine's values and Delta Kernel's: schemas and column types,
 * column vectors and batches in both directions, partition values as the log writes them, the
 * statistics of a file, Kernel's iterators, and {@link
 * io.deltalite.flink.internal.delta.kernel.KernelInternals}, the one class that uses Kernel's
 * internal API.
 *
 * <p>It may use Kernel and {@code merge.table}, {@code merge.value} and {@code merge.schema};
 * nothing of storage, file access or the table.
 */
package io.deltalite.flink.internal.delta.kernel;
