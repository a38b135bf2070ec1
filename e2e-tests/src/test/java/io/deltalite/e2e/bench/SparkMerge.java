package io.deltalite.e2e.bench;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** The same change set applied with Spark 4.2 + Delta 4.4 {@code MERGE INTO}, local[2]. */
final class SparkMerge {
    private final SparkSession spark;
    private final StructType schema;

    SparkMerge(BenchTable.Keys keys) {
        spark = session();
        schema =
                new StructType()
                        .add(
                                "id",
                                keys == BenchTable.Keys.UUID
                                        ? DataTypes.StringType
                                        : DataTypes.LongType,
                                false)
                        .add("amount", DataTypes.LongType)
                        .add("note", DataTypes.StringType);
    }

    static SparkSession session() {
        return SparkSession.builder()
                .master("local[2]")
                .appName("bench-merge")
                .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                .config(
                        "spark.sql.catalog.spark_catalog",
                        "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .getOrCreate();
    }

    /**
     * Reads every column of every live row with Spark (an aggregate over all three, so no column is
     * pruned and a bare count cannot be answered from the log) and returns the row count.
     */
    static long scan(String table) {
        Row result =
                session()
                        .sql(
                                "SELECT count(*), sum(amount), max(length(note)), max(id) FROM delta.`"
                                        + table
                                        + "`")
                        .collectAsList()
                        .get(0);
        return result.getLong(0);
    }

    void merge(String table, List<Object[]> changes) {
        List<Row> rows = new ArrayList<>(changes.size());
        for (Object[] change : changes) {
            rows.add(RowFactory.create(change));
        }
        Dataset<Row> source = spark.createDataFrame(rows, schema);
        source.createOrReplaceTempView("changes");
        spark.sql(
                        "MERGE INTO delta.`"
                                + table
                                + "` t USING changes s ON t.id = s.id"
                                + " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
                .collectAsList();
    }
}
