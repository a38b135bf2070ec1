package io.deltalite.e2e;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Spark with delta-spark, in local mode, as an independent Delta engine: the oracle for MERGE
 * semantics and a second reader and writer of deltalite's tables. One session per test JVM.
 */
public final class SparkDelta {
    private static SparkSession session;

    private SparkDelta() {}

    public static synchronized SparkSession session() {
        if (session == null) {
            session =
                    SparkSession.builder()
                            .master("local[2]")
                            .appName("deltalite-e2e")
                            .config(
                                    "spark.sql.extensions",
                                    "io.delta.sql.DeltaSparkSessionExtension")
                            .config(
                                    "spark.sql.catalog.spark_catalog",
                                    "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                            .config("spark.ui.enabled", "false")
                            .config("spark.driver.bindAddress", "127.0.0.1")
                            .config("spark.driver.host", "127.0.0.1")
                            .config("spark.sql.shuffle.partitions", "2")
                            .config("spark.default.parallelism", "2")
                            // Delta rebuilds a snapshot's state with 50 tasks and VACUUM lists
                            // files with up to 10000 by default: far too many for the small
                            // tables of the tests on a small machine (5-10x slower).
                            .config("spark.databricks.delta.snapshotPartitions", "2")
                            .config("spark.sql.sources.parallelPartitionDiscovery.parallelism", "2")
                            .config("spark.sql.session.timeZone", "UTC")
                            // The tests' tables hold tens to thousands of rows: compiling
                            // generated code for every query costs more CPU than it saves.
                            .config("spark.sql.codegen.wholeStage", "false")
                            .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
                            .config(
                                    "spark.databricks.delta.retentionDurationCheck.enabled",
                                    "false")
                            .getOrCreate();
            Runtime.getRuntime().addShutdownHook(new Thread(session::stop));
        }
        return session;
    }

    public static List<Row> sql(String statement) {
        return session().sql(statement).collectAsList();
    }

    /** Every row of a Delta table at a path, as Java lists of column values. */
    static List<List<Object>> rows(String path) {
        return query("SELECT * FROM delta.`" + path + "`");
    }

    /** The rows of a query, as Java lists of column values. */
    static List<List<Object>> query(String query) {
        List<List<Object>> rows = new ArrayList<>();
        for (Row row : sql(query)) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < row.length(); i++) {
                values.add(row.get(i));
            }
            rows.add(values);
        }
        return rows;
    }
}
