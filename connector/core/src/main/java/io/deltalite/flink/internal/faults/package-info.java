/**
 * Where tests inject faults, to prove that the commit protocol and exactly-once survive them:
 * storage faults at a table's file access ({@link
 * io.deltalite.flink.internal.faults.StorageFaults}) and failure points in the sink's writer and
 * committer ({@link io.deltalite.flink.internal.faults.FaultInjection}). Nothing is armed in
 * production; each check costs one read of a field.
 *
 * <p>This room uses nothing of deltalite. Besides tests, only the hooks use it: {@code
 * delta.fileio}'s {@code FaultInjectingFileIO} and the sink's writer and committer.
 */
package io.deltalite.flink.internal.faults;
