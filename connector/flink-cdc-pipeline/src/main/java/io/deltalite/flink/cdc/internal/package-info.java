/**
 * deltalite at the end of a Flink CDC pipeline, on the Flink 1.20 line. From the pipeline's events
 * to Delta commits:
 *
 * <ul>
 *   <li>{@link io.deltalite.flink.cdc.internal.DeltaLiteDataSink} — what {@code type: deltalite}
 *       gives the pipeline: the event sink, the metadata applier, the hash function;
 *   <li>{@link io.deltalite.flink.cdc.internal.DeltaLiteMetadataApplier} — creates each table and
 *       changes its schema on the JobManager, through the path a starting sink takes ({@code
 *       DeltaTable.open});
 *   <li>{@link io.deltalite.flink.cdc.internal.KeyHashFunctionProvider} — routes every key to the
 *       writer that owns it;
 *   <li>{@link io.deltalite.flink.cdc.internal.DeltaLiteEventSink} — writer, aggregator, committer;
 *       {@link io.deltalite.flink.cdc.internal.DeltaLiteEventWriter} keeps one deltalite writer per
 *       table and follows schema changes; {@link
 *       io.deltalite.flink.cdc.internal.DeltaLiteEventCommitter} lands one commit per table per
 *       checkpoint.
 * </ul>
 *
 * <p>May use the core and the Flink 1.20 connector; Flink CDC's classes are provided by the
 * pipeline's runtime.
 */
package io.deltalite.flink.cdc.internal;
