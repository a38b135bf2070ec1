package io.deltalite.flink.sink;

import org.apache.flink.annotation.PublicEvolving;

/**
 * The codec of the column chunks of the Parquet files the sink writes. Every codec here is read by
 * Spark, Trino, delta-rs and Delta Kernel.
 *
 * <ul>
 *   <li>{@link #ZSTD} (the default): the smallest files at about the write and read speed of {@link
 *       #SNAPPY} (measured in BENCHMARKS.md); the default of Iceberg and Paimon too.
 *   <li>{@link #SNAPPY}: Spark's historical default; larger files, fastest to write.
 *   <li>{@link #GZIP}: small files, slow to write.
 *   <li>{@link #LZ4_RAW}: fast, larger files than zstd.
 *   <li>{@link #UNCOMPRESSED}: what versions before 0.1 wrote.
 * </ul>
 */
@PublicEvolving
public enum ParquetCompression {
    ZSTD("zstd"),
    SNAPPY("snappy"),
    GZIP("gzip"),
    LZ4_RAW("lz4_raw"),
    UNCOMPRESSED("uncompressed");

    private final String text;

    ParquetCompression(String text) {
        this.text = text;
    }

    /** The option's value, as written in a configuration: {@code zstd}, {@code snappy}, … */
    @Override
    public String toString() {
        return text;
    }
}
