package io.deltalite.flink.sink;

/**
 * The codec of the column chunks of the Parquet files the sink writes — data files and the Delta
 * log's checkpoints. zstd, snappy and gzip are read by every current Delta reader (Spark 3.2 and
 * later, Trino, delta-rs, Delta Kernel); lz4_raw needs a Parquet 1.13 reader (Spark 3.5 and later):
 * a table with it cannot be read at all by older ones, since its log checkpoints use it too.
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
