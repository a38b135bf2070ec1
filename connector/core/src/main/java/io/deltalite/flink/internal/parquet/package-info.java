/**
 * Reading Parquet data files column by column with parquet-java, without Delta Kernel: today the
 * exact key probe ({@link io.deltalite.flink.internal.parquet.ParquetKeyScanner}), which decodes
 * only the match-key columns of a file and tests each value against the changed keys in primitive
 * hash tables, and the key index's read of every key of a file with its row position ({@link
 * io.deltalite.flink.internal.parquet.KeyIdentityReader}).
 *
 * <p>This room knows the Parquet format and the engine's value types ({@code internal.merge}); it
 * knows neither Kernel nor S3 nor Flink. Files come in as parquet-java {@code InputFile}s, which
 * {@code internal.delta} opens through the table's own file access (local disk or S3), so the reads
 * take the same path as Kernel's.
 */
package io.deltalite.flink.internal.parquet;
