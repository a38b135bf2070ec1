package io.deltalite.e2e.parity;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/**
 * One scenario of the differential parity suite: the same batches applied by deltalite (one
 * checkpoint commit per batch, as the sink makes them) and by Spark's MERGE (one MERGE per batch),
 * with the tables compared after every batch. deltalite writes three tables, one copy-on-write, one
 * with deletion vectors, and one with deletion vectors by four writers distributed by key ({@link
 * KeyedWriters}), so every scenario checks both write modes and the shared partitions against the
 * same MERGE. Each writer keeps a key index from its first merge and validates it against the exact
 * probe at every merge ({@code key-index = on}, {@code key-index.validate}).
 *
 * <p>The comparison is of logical content: the schema and partition columns as Spark sees them, and
 * the multiset of rows, read by two independent readers (Spark, and Kernel through {@link
 * KernelTableReader}); see {@link #assertSameContent()}. Kernel reads every table after every
 * batch; Spark reads deltalite's tables after the batches {@link ParitySample} picks, always after
 * the first and the last.
 */
final class DifferentialRun implements AutoCloseable {
    private static final int DIFFERENCES_SHOWN = 12;

    private final String scenario;
    private final String deltalitePath;
    private final UpsertHarness deltalite;
    private final String vectorsPath;
    private final UpsertHarness vectors;
    private final String keyedPath;
    private final KeyedWriters keyed;
    private final SparkMergeOracle merge;
    private final StructType mergeSchema;
    private final ParitySample sample;
    private int batches;
    private int sparkReadThrough;
    private boolean failed;
    private long vectorsWritten;

    private DifferentialRun(
            String scenario,
            String deltalitePath,
            UpsertHarness deltalite,
            String vectorsPath,
            UpsertHarness vectors,
            String keyedPath,
            KeyedWriters keyed,
            SparkMergeOracle merge) {
        this.keyedPath = keyedPath;
        this.keyed = keyed;
        this.scenario = scenario;
        this.deltalitePath = deltalitePath;
        this.deltalite = deltalite;
        this.vectorsPath = vectorsPath;
        this.vectors = vectors;
        this.merge = merge;
        this.sample = ParitySample.of(scenario);
        this.mergeSchema = SparkDelta.session().read().format("delta").load(merge.path()).schema();
    }

    /**
     * Creates both tables under {@code dir}: deltalite's from {@code table}, the MERGE table with
     * Spark's {@code CREATE TABLE} of the same columns and partitioning.
     */
    static DifferentialRun start(
            String scenario, Path dir, TableDefinition table, MergeOptions scenarioOptions) {
        // Every writer indexes its keys from the first merge and validates the index against the
        // exact probe at every merge: a stale index fails the run where it went wrong.
        MergeOptions options =
                scenarioOptions.withKeyIndex(
                        scenarioOptions.keyIndex().withMode(KeyIndexMode.ON).withValidate(true));
        String deltalitePath = dir.resolve("deltalite").toString();
        UpsertHarness deltalite =
                UpsertHarness.open(
                        deltalitePath, table, options.withWriteMode(WriteMode.COPY_ON_WRITE));
        Map<String, String> properties = new HashMap<>(table.tableProperties());
        properties.put("delta.enableDeletionVectors", "true");
        String vectorsPath = dir.resolve("deltalite-dv").toString();
        TableDefinition withVectors =
                new TableDefinition(
                        table.columns(), table.primaryKey(), table.partitionColumns(), properties);
        // The default threshold sends mostly-rewritten files to copy-on-write; keep vectors on
        // every file but an entirely deleted one. No file of these small tables is small to
        // compaction (whose full tiers the merge folds instead of marking), but worn files are
        // still compacted.
        MergeOptions vectorOptions =
                options.withWriteMode(WriteMode.DELETION_VECTORS)
                        .withDeletionVectorRewriteThreshold(1.0)
                        .withCompaction(
                                new io.deltalite.flink.internal.merge.options.CompactionOptions(
                                        true,
                                        1,
                                        options.compaction().maxBytesPerCheckpoint(),
                                        options.compaction().deletedRowsThreshold()));
        UpsertHarness vectors = UpsertHarness.open(vectorsPath, withVectors, vectorOptions);
        String keyedPath = dir.resolve("deltalite-keyed").toString();
        KeyedWriters keyed = new KeyedWriters(keyedPath, withVectors, vectorOptions, 4);
        SparkMergeOracle merge =
                SparkMergeOracle.create(dir.resolve("spark-merge").toString(), table);
        return new DifferentialRun(
                scenario, deltalitePath, deltalite, vectorsPath, vectors, keyedPath, keyed, merge);
    }

    static DifferentialRun start(String scenario, Path dir, TableDefinition table) {
        return start(scenario, dir, table, MergeOptions.DEFAULTS);
    }

    /** Applies every batch in turn, comparing the tables after each. */
    void applyAll(List<List<Change>> batches) {
        for (List<Change> batch : batches) {
            apply(batch);
        }
    }

    /**
     * Applies {@code batch} to every table and asserts that they hold the same content.
     *
     * @return how deltalite's copy-on-write commit ended
     */
    CommitOutcome apply(List<Change> batch) {
        failed = true;
        batches++;
        for (Change change : batch) {
            for (UpsertHarness harness : List.of(deltalite, vectors)) {
                if (change.isDelete()) {
                    harness.delete(change.row().clone());
                } else {
                    harness.upsert(change.row().clone());
                }
            }
            if (change.isDelete()) {
                keyed.delete(change.row().clone());
            } else {
                keyed.upsert(change.row().clone());
            }
        }
        CommitOutcome outcome = deltalite.commit();
        CommitOutcome vectorOutcome = vectors.commit();
        assertThat(keyed.commit().status())
                .as("%s: commit of the writers distributed by key", scenario)
                .isEqualTo(outcome.status());
        assertThat(vectorOutcome.status())
                .as("%s: deletion-vector commit", scenario)
                .isEqualTo(outcome.status());
        vectorsWritten += vectorOutcome.stats().deletionVectorsWritten();
        merge.apply(batch);
        assertSameContent();
        failed = false;
        return outcome;
    }

    /** The copy-on-write table. */
    String deltalitePath() {
        return deltalitePath;
    }

    /** Deletion vectors written into the deletion-vector table so far. */
    long vectorsWritten() {
        return vectorsWritten;
    }

    /**
     * Asserts that the tables have the same content. The rows of the MERGE table read by Kernel are
     * the reference; deltalite's tables are read by Kernel, and by Spark after the batches the
     * sample picks. After the first batch also the partition columns and the MERGE table read by
     * Spark are compared; each new table version costs Spark a log replay, so later batches leave
     * these out.
     */
    void assertSameContent() {
        String when = scenario + ", after batch " + batches + " (" + ParitySample.describe() + ")";
        List<String> reference = Rows.sorted(KernelTableReader.readAll(merge.path()));
        assertThat(differences(reference, Rows.sorted(KernelTableReader.readAll(deltalitePath))))
                .as(
                        "%s: rows of deltalite's table (read by Kernel) that differ from the MERGE"
                                + " table's (%d rows)",
                        when, reference.size())
                .isEmpty();
        assertThat(differences(reference, Rows.sorted(KernelTableReader.readAll(vectorsPath))))
                .as(
                        "%s: rows of deltalite's deletion-vector table (read by Kernel) that"
                                + " differ from the MERGE table's (%d rows)",
                        when, reference.size())
                .isEmpty();
        assertThat(differences(reference, Rows.sorted(KernelTableReader.readAll(keyedPath))))
                .as(
                        "%s: rows of the table four writers distributed by key wrote (read by"
                                + " Kernel) that differ from the MERGE table's (%d rows)",
                        when, reference.size())
                .isEmpty();
        if (sample.sparkReadsAfter(batches)) {
            assertSparkReadsTheSame(reference, when);
        }
        if (batches == 1) {
            assertThat(differences(reference, Rows.sorted(SparkRows.readTable(keyedPath))))
                    .as(
                            "%s: rows of the table four writers distributed by key wrote (read by"
                                    + " Spark) that differ from the MERGE table's (%d rows)",
                            when, reference.size())
                    .isEmpty();
            assertThat(partitionColumns(deltalitePath))
                    .as("%s: partition columns of deltalite's table vs the MERGE table's", when)
                    .isEqualTo(partitionColumns(merge.path()));
            assertThat(differences(reference, Rows.sorted(SparkRows.readTable(merge.path()))))
                    .as(
                            "%s: the MERGE table read by Spark differs from the same table read"
                                    + " by Kernel (a disagreement of the readers, not of the"
                                    + " writers)",
                            when)
                    .isEmpty();
        }
    }

    /**
     * Asserts that Spark reads deltalite's copy-on-write and deletion-vector tables as the
     * reference rows, with the MERGE table's schema, and counts the deletion-vector table's rows
     * from its log alone.
     */
    private void assertSparkReadsTheSame(List<String> reference, String when) {
        sparkReadThrough = batches;
        Dataset<Row> deltaliteBySpark =
                SparkDelta.session().read().format("delta").load(deltalitePath);
        assertThat(deltaliteBySpark.schema())
                .as(
                        "%s: schema of deltalite's table vs the MERGE table's, as Spark sees them",
                        when)
                .isEqualTo(mergeSchema);
        assertThat(differences(reference, Rows.sorted(SparkRows.collect(deltaliteBySpark))))
                .as(
                        "%s: rows of deltalite's table (read by Spark) that differ from the MERGE"
                                + " table's (%d rows)",
                        when, reference.size())
                .isEmpty();
        Dataset<Row> vectorsBySpark = SparkDelta.session().read().format("delta").load(vectorsPath);
        assertThat(differences(reference, Rows.sorted(SparkRows.collect(vectorsBySpark))))
                .as(
                        "%s: rows of deltalite's deletion-vector table (read by Spark) that differ"
                                + " from the MERGE table's (%d rows)",
                        when, reference.size())
                .isEmpty();
        // Spark answers a bare count from the log: numRecords minus the vectors' cardinality.
        assertThat(
                        SparkDelta.sql("SELECT count(*) FROM delta.`" + vectorsPath + "`")
                                .get(0)
                                .getLong(0))
                .as("%s: count(*) of the deletion-vector table, by Spark", when)
                .isEqualTo(reference.size());
    }

    /** The rows in which two sorted multisets differ, at most a dozen of each kind, described. */
    static List<String> differences(List<String> expected, List<String> actual) {
        Map<String, Integer> counts = new HashMap<>();
        expected.forEach(row -> counts.merge(row, 1, Integer::sum));
        actual.forEach(row -> counts.merge(row, -1, Integer::sum));
        List<String> missing = new ArrayList<>();
        List<String> extra = new ArrayList<>();
        for (String row : expected) {
            if (counts.getOrDefault(row, 0) > 0) {
                missing.add(row);
                counts.merge(row, -1, Integer::sum);
            }
        }
        for (String row : actual) {
            if (counts.getOrDefault(row, 0) < 0) {
                extra.add(row);
                counts.merge(row, 1, Integer::sum);
            }
        }
        List<String> described = new ArrayList<>();
        missing.stream().limit(DIFFERENCES_SHOWN).forEach(row -> described.add("missing: " + row));
        if (missing.size() > DIFFERENCES_SHOWN) {
            described.add("... " + (missing.size() - DIFFERENCES_SHOWN) + " more missing");
        }
        extra.stream().limit(DIFFERENCES_SHOWN).forEach(row -> described.add("extra:   " + row));
        if (extra.size() > DIFFERENCES_SHOWN) {
            described.add("... " + (extra.size() - DIFFERENCES_SHOWN) + " more extra");
        }
        return described;
    }

    private static List<Object> partitionColumns(String path) {
        Row detail = SparkDelta.sql("DESCRIBE DETAIL delta.`" + path + "`").get(0);
        return new ArrayList<>(detail.getList(detail.fieldIndex("partitionColumns")));
    }

    /**
     * Closes the writers; if Spark has not read deltalite's tables after the last batch, it reads
     * them now (a scenario that failed before has no last batch to check).
     */
    @Override
    public void close() {
        try {
            if (batches > sparkReadThrough && !failed) {
                assertSparkReadsTheSame(
                        Rows.sorted(KernelTableReader.readAll(merge.path())),
                        scenario
                                + ", after the last batch, "
                                + batches
                                + " ("
                                + ParitySample.describe()
                                + ")");
            }
        } finally {
            deltalite.close();
            vectors.close();
            keyed.close();
        }
    }
}
