/**
 * The merge run once per JVM on a throwaway local table when the first writer opens ({@link
 * io.deltalite.flink.internal.warmup.MergeWarmUp}), so that a fresh JVM's first checkpoint does not
 * pay for loading and compiling the merge and commit code.
 *
 * <p>It opens a Delta table of its own ({@code delta.table}) and drives the engine's writer and
 * committer ({@code merge.writer}, {@code merge.commit}) the way the sink does; nothing else uses
 * it but the sink's writer, and it never writes to the sink's table.
 */
package io.deltalite.flink.internal.warmup;
