/**
 * Kernel's file access to a table, per storage: local disks and HDFS publish a file by an atomic
 * link or rename, S3 by conditional puts; every file is forced before it is published and published
 * only when written to its end; Kernel's engine and Parquet handler over that access; and the one
 * hook where tests inject storage faults ({@link
 * io.deltalite.flink.internal.delta.fileio.FaultInjectingFileIO}).
 *
 * <p>It may use {@code delta.kernel}, {@code internal.storage} (S3) and {@code internal.faults}; it
 * knows nothing of the merge engine or of the table's log.
 */
package io.deltalite.flink.internal.delta.fileio;
