import org.apache.spark.sql.SparkSession;

/**
 * Prints every row of the Delta table at args[0], read by Spark with delta-spark, as one JSON
 * object per line after "ROW " (Spark's JSON: a null column is left out). Run by the tests with
 * Java's source launcher on the class path of ../../../spark-reader.
 */
public class PrintDeltaTable {
    public static void main(String[] args) {
        SparkSession spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("deltalite-cdc-postgres-read")
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
        try {
            for (String row : spark.read().format("delta").load(args[0]).toJSON().collectAsList()) {
                System.out.println("ROW " + row);
            }
        } finally {
            spark.stop();
        }
    }
}
