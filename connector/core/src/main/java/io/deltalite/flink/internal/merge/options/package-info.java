/**
 * The knobs of the merge engine, parsed and checked once: {@link
 * io.deltalite.flink.internal.merge.options.MergeOptions} and the compaction and key-index options
 * it holds.
 *
 * <p>Records only; this room uses no other room, so that every room (and {@code internal.delta},
 * which reads them from the sink's configuration) can take them.
 */
package io.deltalite.flink.internal.merge.options;
