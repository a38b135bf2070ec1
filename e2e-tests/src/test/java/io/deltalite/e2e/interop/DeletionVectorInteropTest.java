package io.deltalite.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.e2e.SparkDelta;
import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deletion vectors written by deltalite and by Spark on the same files: Spark's DELETE, UPDATE,
 * MERGE, OPTIMIZE and VACUUM after deltalite, deltalite after each of them, and both engines (and
 * Kernel) read the table as the model says after every step.
 */
class DeletionVectorInteropTest {
    private static final TableDefinition ITEMS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(ValueType.Kind.INT), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of("delta.enableDeletionVectors", "true"));

    /** {@link #ITEMS} as Spark's {@code CREATE TABLE} makes it, with a nullable key column. */
    private static final TableDefinition SPARK_ITEMS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), true),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(ValueType.Kind.INT), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of("delta.enableDeletionVectors", "true"));

    /** Spark writes a checksum file for each version it commits unless this is false. */
    private static final String WRITE_CHECKSUMS =
            "spark.databricks.delta.writeChecksumFile.enabled";

    /**
     * Spark checks the checksum of the version a write starts from against the table's state (and
     * fails on a mismatch, {@code spark.databricks.delta.checksum.mismatch.fatal} being true by
     * default) when this is true; by default it skips that check.
     */
    private static final String VERIFY_CHECKSUMS =
            "spark.databricks.delta.incremental.commit.verify";

    /**
     * Without compaction, which would fold full tiers of these files instead of marking; with the
     * key index from the first merge, validated at every merge against the exact probe: Spark's
     * DELETE, UPDATE, MERGE, OPTIMIZE and VACUUM between two commits of one writer are each a way
     * its index could go stale.
     */
    private static final MergeOptions VECTORS =
            MergeOptions.DEFAULTS
                    .withWriteMode(WriteMode.DELETION_VECTORS)
                    .withCompaction(
                            io.deltalite.flink.internal.merge.options.CompactionOptions.DISABLED)
                    .withKeyIndex(
                            io.deltalite.flink.internal.merge.options.KeyIndexOptions.DEFAULTS
                                    .withMode(io.deltalite.flink.sink.KeyIndexMode.ON)
                                    .withValidate(true));

    @TempDir Path dir;

    /** The model: amount by id; the day of an id is fixed ({@code "d" + id % 2}). */
    private final Map<Long, Integer> model = new TreeMap<>();

    private String table;

    @Test
    void sparkAndDeltaliteTakeTurnsOnFilesWithDeletionVectors() {
        table = dir.resolve("items").toString();
        try (UpsertHarness deltalite = UpsertHarness.open(table, ITEMS, VECTORS)) {
            for (long id = 0; id < 2000; id++) {
                upsert(deltalite, id, 0);
            }
            deltalite.commit();
            for (long id = 0; id < 2000; id += 97) {
                upsert(deltalite, id, 1);
            }
            deltalite.delete(5L, "d1", null);
            model.remove(5L);
            UpsertStats marked = deltalite.commit().stats();
            assertThat(marked.deletionVectorsWritten()).isEqualTo(2);
            assertThat(marked.rowsCopied()).isZero();
            check("after deltalite marked rows");

            // Spark on files whose vectors deltalite wrote: its vectors extend ours.
            SparkDelta.sql("DELETE FROM delta.`" + table + "` WHERE id % 100 = 3");
            model.keySet().removeIf(id -> id % 100 == 3);
            check("after Spark's DELETE");
            SparkDelta.sql("UPDATE delta.`" + table + "` SET amount = 2 WHERE id % 50 = 7");
            model.replaceAll((id, amount) -> id % 50 == 7 ? 2 : amount);
            check("after Spark's UPDATE");
            SparkDelta.sql(
                    "MERGE INTO delta.`"
                            + table
                            + "` t USING (SELECT id, CONCAT('d', CAST(id % 2 AS STRING)) AS day,"
                            + " 3 AS amount FROM range(1990, 2010)) s ON t.id = s.id"
                            + " WHEN MATCHED THEN UPDATE SET amount = s.amount"
                            + " WHEN NOT MATCHED THEN INSERT *");
            for (long id = 1990; id < 2010; id++) {
                model.put(id, 3);
            }
            check("after Spark's MERGE");

            // deltalite on files whose vectors Spark wrote.
            for (long id = 1; id < 2010; id += 61) {
                upsert(deltalite, id, 4);
            }
            deltalite.delete(1993L, "d1", null);
            model.remove(1993L);
            UpsertStats afterSpark = deltalite.commit().stats();
            assertThat(afterSpark.deletionVectorsWritten()).isPositive();
            check("after deltalite followed Spark");

            SparkDelta.sql("OPTIMIZE delta.`" + table + "`");
            check("after Spark's OPTIMIZE");
            for (long id = 2; id < 2010; id += 89) {
                upsert(deltalite, id, 5);
            }
            assertThat(deltalite.commit().stats().deletionVectorsWritten()).isPositive();
            check("after deltalite followed OPTIMIZE");

            SparkDelta.sql("VACUUM delta.`" + table + "` RETAIN 0 HOURS");
            check("after Spark's VACUUM");
            assertThat(DeltaHistory.missingReferencedFiles(Path.of(table))).isEmpty();
            for (long id = 3; id < 2010; id += 71) {
                upsert(deltalite, id, 6);
            }
            deltalite.commit();
            check("after deltalite followed VACUUM");
        }
    }

    /**
     * A fold of a tier of small marked files joins their row groups into a new file that comes with
     * a deletion vector in the same commit (an {@code add} with a vector and no {@code remove} of
     * its path). Spark and Kernel read it, Spark's DELETE and UPDATE extend its vector, deltalite
     * marks it again after them, and Spark's OPTIMIZE rewrites it.
     */
    @Test
    void aFoldThatJoinsSmallFilesAddsAFileWithAVectorThatSparkReadsAndChanges() {
        table = dir.resolve("items").toString();
        MergeOptions folding =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.DELETION_VECTORS)
                        .withKeyIndex(VECTORS.keyIndex());
        try (UpsertHarness deltalite = UpsertHarness.open(table, ITEMS, folding)) {
            long joinedAt = -1;
            for (int checkpoint = 0; checkpoint < 6 && joinedAt < 0; checkpoint++) {
                for (long id = checkpoint * 40L; id < checkpoint * 40L + 40; id++) {
                    upsert(deltalite, id, checkpoint);
                }
                for (long id = 3; id < checkpoint * 40L; id += 37) {
                    upsert(deltalite, id, 100 + checkpoint);
                }
                long version = deltalite.commit().version();
                if (!newFilesWithVectors(version).isEmpty()) {
                    joinedAt = version;
                }
            }
            assertThat(joinedAt).as("a commit that added a joined file with a vector").isPositive();
            check("after deltalite joined a tier");

            SparkDelta.sql("DELETE FROM delta.`" + table + "` WHERE id % 10 = 1");
            model.keySet().removeIf(id -> id % 10 == 1);
            check("after Spark's DELETE on the joined files");
            SparkDelta.sql("UPDATE delta.`" + table + "` SET amount = 7 WHERE id % 10 = 2");
            model.replaceAll((id, amount) -> id % 10 == 2 ? 7 : amount);
            check("after Spark's UPDATE on the joined files");

            for (long id = 0; id < 240; id += 13) {
                upsert(deltalite, id, 8);
            }
            deltalite.commit();
            check("after deltalite marked the joined files again");

            SparkDelta.sql("OPTIMIZE delta.`" + table + "`");
            check("after Spark's OPTIMIZE");
            for (long id = 5; id < 240; id += 11) {
                upsert(deltalite, id, 9);
            }
            deltalite.commit();
            check("after deltalite followed OPTIMIZE");
            assertThat(DeltaHistory.missingReferencedFiles(Path.of(table))).isEmpty();
        }
    }

    /** The paths of files version {@code version} adds with a vector without removing them. */
    private List<String> newFilesWithVectors(long version) {
        List<String> removed = new ArrayList<>();
        List<String> added = new ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode action :
                DeltaHistory.actions(Path.of(table), version)) {
            if (action.has("remove")) {
                removed.add(action.get("remove").get("path").asText());
            } else if (action.has("add") && action.get("add").hasNonNull("deletionVector")) {
                added.add(action.get("add").get("path").asText());
            }
        }
        added.removeAll(removed);
        return added;
    }

    /**
     * A table another writer made without checksum files (Spark with them turned off here; delta-rs
     * writes none): deltalite's commit giving a file a deletion vector writes the checksum of its
     * version, and Spark, validating the checksum before it writes, accepts it.
     */
    @Test
    void aDeletionVectorCommitOnATableWithoutChecksumsLeavesAChecksumSparkValidates()
            throws IOException {
        table = dir.resolve("items").toString();
        SparkSession spark = SparkDelta.session();
        spark.conf().set(WRITE_CHECKSUMS, "false");
        try {
            SparkDelta.sql(
                    "CREATE TABLE delta.`"
                            + table
                            + "` (id BIGINT, day STRING, amount INT) USING delta"
                            + " PARTITIONED BY (day)"
                            + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
            SparkDelta.sql(
                    "INSERT INTO delta.`"
                            + table
                            + "` SELECT id, CONCAT('d', CAST(id % 2 AS STRING)), 0"
                            + " FROM range(0, 20)");
        } finally {
            spark.conf().unset(WRITE_CHECKSUMS);
        }
        assertThat(checksumFiles(table)).as("checksum files of the table Spark wrote").isEmpty();
        for (long id = 0; id < 20; id++) {
            model.put(id, 0);
        }
        try (UpsertHarness deltalite = UpsertHarness.open(table, SPARK_ITEMS, VECTORS)) {
            upsert(deltalite, 3L, 1);
            upsert(deltalite, 21L, 1);
            deltalite.delete(4L, "d0", null);
            model.remove(4L);
            assertThat(deltalite.commit().stats().deletionVectorsWritten()).isEqualTo(2);
        }
        long version = KernelTableReader.latestVersion(table);
        assertThat(checksumFiles(table))
                .as("checksum files after deltalite's commit")
                .containsExactly(String.format("%020d.crc", version));

        // Validation is on: a checksum that does not match the table fails Spark's write.
        Path corrupt = dir.resolve("corrupt");
        copyTree(Path.of(table), corrupt);
        Path corruptChecksum = corrupt.resolve(String.format("_delta_log/%020d.crc", version));
        Files.writeString(
                corruptChecksum,
                Files.readString(corruptChecksum)
                        .replaceFirst("\"numFiles\":(\\d+)", "\"numFiles\":1$1"));
        assertThatThrownBy(() -> deleteValidatingChecksums(corrupt.toString(), 5))
                .hasMessageContaining("failed integrity checks")
                .hasMessageContaining("Number of files");

        deleteValidatingChecksums(table, 5);
        model.remove(5L);
        check("after Spark validated deltalite's checksum");
    }

    /** Spark's DELETE of one id, checking the checksum of the version it reads before and after. */
    private static void deleteValidatingChecksums(String path, long id) {
        SparkSession spark = SparkDelta.session();
        spark.conf().set(VERIFY_CHECKSUMS, "true");
        try {
            SparkDelta.sql("DELETE FROM delta.`" + path + "` WHERE id = " + id);
        } finally {
            spark.conf().unset(VERIFY_CHECKSUMS);
        }
    }

    /** The table's Delta checksum files ({@code <version>.crc}), not Hadoop's hidden ones. */
    private static List<String> checksumFiles(String path) throws IOException {
        try (Stream<Path> log = Files.list(Path.of(path, "_delta_log"))) {
            return log.map(file -> file.getFileName().toString())
                    .filter(name -> name.matches("\\d{20}\\.crc"))
                    .sorted()
                    .toList();
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Files.copy(file, to.resolve(from.relativize(file).toString()));
            }
        }
    }

    private void upsert(UpsertHarness deltalite, long id, int amount) {
        deltalite.upsert(id, "d" + id % 2, amount);
        model.put(id, amount);
    }

    private void check(String when) {
        List<Object[]> rows = new ArrayList<>();
        model.forEach((id, amount) -> rows.add(new Object[] {id, "d" + id % 2, amount}));
        List<String> expected = Rows.sorted(rows);
        assertThat(Rows.sorted(SparkRows.readTable(table)))
                .as("Spark reads, %s", when)
                .isEqualTo(expected);
        assertThat(Rows.sorted(KernelTableReader.readAll(table)))
                .as("Kernel reads, %s", when)
                .isEqualTo(expected);
        assertThat(SparkDelta.sql("SELECT count(*) FROM delta.`" + table + "`").get(0).getLong(0))
                .as("Spark's count(*), %s", when)
                .isEqualTo(model.size());
        // Data skipping still works on files with vectors (their bounds are kept, not tight):
        // a point query reads only the files whose id range holds the id.
        long id = 1999;
        org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> point =
                SparkDelta.session().read().format("delta").load(table).where("id = " + id);
        assertThat(point.collectAsList())
                .as("rows of id %d, %s", id, when)
                .hasSize(model.containsKey(id) ? 1 : 0);
        assertThat(filesRead(point))
                .as("files Spark read for id %d, %s", id, when)
                .isEqualTo(filesWhoseRangeHolds(id));
    }

    /** Live files whose statistics say their id range holds {@code id}. */
    private long filesWhoseRangeHolds(long id) {
        long count = 0;
        for (KernelTableReader.LiveFile file : KernelTableReader.liveFiles(table).values()) {
            com.fasterxml.jackson.databind.JsonNode stats = readJson(file.stats());
            if (stats.get("minValues").get("id").asLong() <= id
                    && id <= stats.get("maxValues").get("id").asLong()) {
                count++;
            }
        }
        return count;
    }

    private static com.fasterxml.jackson.databind.JsonNode readJson(String json) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The files the scans of an executed query read, from Spark's scan metrics. */
    private static long filesRead(org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> query) {
        long[] files = {0};
        query.queryExecution()
                .executedPlan()
                .foreach(
                        new scala.runtime.AbstractFunction1<
                                org.apache.spark.sql.execution.SparkPlan,
                                scala.runtime.BoxedUnit>() {
                            @Override
                            public scala.runtime.BoxedUnit apply(
                                    org.apache.spark.sql.execution.SparkPlan node) {
                                if (node
                                        instanceof
                                        org.apache.spark.sql.execution.FileSourceScanExec scan) {
                                    files[0] += scan.metrics().get("numFiles").get().value();
                                }
                                return scala.runtime.BoxedUnit.UNIT;
                            }
                        });
        return files[0];
    }
}
