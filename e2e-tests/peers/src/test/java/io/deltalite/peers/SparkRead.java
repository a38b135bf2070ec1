package io.deltalite.peers;

import java.math.BigDecimal;
import java.nio.file.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Spark with delta-spark, local[2], computing the table's count and checksum in SQL. */
final class SparkRead implements TableReader, AutoCloseable {
    /** {@link Changelog#checksumOf} summed in Spark SQL; {@code %s} is the table. */
    static final String CHECKSUM_SQL =
            "SELECT count(*), sum(CAST(id AS DECIMAL(38,0)) * 1000000007"
                    + " + CAST(amount AS DECIMAL(38,0)) * 31 + crc32(encode(note, 'UTF-8'))"
                    + " + crc32(encode(day, 'UTF-8')) * 7) FROM delta.`%s`";

    private final SparkSession spark =
            SparkSession.builder()
                    .master("local[2]")
                    .appName("deltalite-peers-read")
                    .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                    .config(
                            "spark.sql.catalog.spark_catalog",
                            "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                    .config("spark.ui.enabled", "false")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.sql.shuffle.partitions", "2")
                    .config("spark.databricks.delta.snapshotPartitions", "2")
                    .getOrCreate();

    @Override
    public Scanned scan(Path table) {
        Row result = spark.sql(String.format(CHECKSUM_SQL, table)).collectAsList().get(0);
        BigDecimal checksum = result.isNullAt(1) ? BigDecimal.ZERO : result.getDecimal(1);
        return new Scanned(result.getLong(0), checksum.toBigIntegerExact());
    }

    @Override
    public Shape shape(Path table) {
        Row detail = spark.sql("DESCRIBE DETAIL delta.`" + table + "`").select("numFiles").first();
        return new Shape(detail.getLong(0), -1);
    }

    @Override
    public void close() {
        spark.stop();
    }
}
