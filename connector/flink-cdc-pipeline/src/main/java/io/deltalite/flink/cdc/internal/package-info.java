/**
 * deltalite at the end of a Flink CDC pipeline (issue 34), on the Flink 1.20 line: today the {@link
 * io.deltalite.flink.cdc.internal.DeltaLiteMetadataApplier}, which creates a pipeline's Delta
 * tables and changes their schemas through the same path a starting sink takes ({@code
 * DeltaTable.open}), and {@link io.deltalite.flink.cdc.internal.TableLocations}, where each table
 * lives. May use the core and the Flink 1.20 connector; Flink CDC's classes are provided by the
 * pipeline's runtime. The event sink (one Delta commit per table per checkpoint) and the {@code
 * DataSinkFactory} that names {@code type: deltalite} come next.
 */
package io.deltalite.flink.cdc.internal;
