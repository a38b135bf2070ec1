package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.internal.deletionvectors.Base85Codec;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.DeletionVectorRef;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deletion vectors deltalite writes: their bytes are Delta's (golden vectors from Kernel's test
 * tables), Kernel's own reader applies them, the log actions follow the protocol, and the merge
 * marks, extends, rewrites or removes files as the write mode and threshold say.
 */
class DeletionVectorWriteTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Kernel's basic-dv-no-checkpoint table: a DV file deleting rows 0 and 1. */
    private static final String GOLDEN_FILE =
            "01"
                    + "00000024"
                    + "d1d33964"
                    + "0100000000000000"
                    + "00000000"
                    + "3a300000"
                    + "01000000"
                    + "00000100"
                    + "10000000"
                    + "0000"
                    + "0100"
                    + "e2be924e";

    private static final List<ValueType.Field> COLUMNS =
            List.of(
                    new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                    new ValueType.Field("v", ValueType.of(Kind.STRING), true));

    private static final TableDefinition WITH_VECTORS =
            new TableDefinition(
                    COLUMNS,
                    List.of("id"),
                    List.of(),
                    Map.of("delta.enableDeletionVectors", "true"));

    private static final TableDefinition WITHOUT_VECTORS =
            new TableDefinition(COLUMNS, List.of("id"), List.of(), Map.of());

    /** Without compaction, which would fold full tiers of these tiny files instead of marking. */
    private static final MergeOptions VECTORS =
            MergeOptions.DEFAULTS
                    .withWriteMode(WriteMode.DELETION_VECTORS)
                    .withCompaction(
                            io.deltalite.flink.internal.merge.options.CompactionOptions.DISABLED);

    @TempDir Path dir;

    @Test
    void theGoldenVectorOfKernelsTestTableDecodesToItsRowsAndIsWhatWeWrite() throws IOException {
        byte[] golden = HexFormat.of().parseHex(GOLDEN_FILE);
        byte[] bitmapData = java.util.Arrays.copyOfRange(golden, 5, 5 + 36);
        DeletionVector decoded = DeletionVector.deserialize(bitmapData);
        assertThat(decoded.cardinality()).isEqualTo(2);
        assertThat(decoded.contains(0) && decoded.contains(1)).isTrue();
        assertThat(DeletionVector.of(1, 0).serialize()).isEqualTo(bitmapData);

        DeletionVectorFiles files =
                new DeletionVectorFiles(
                        dir.toUri().toString(), new HadoopFileIO(new Configuration()));
        DeletionVectorFiles.Writer writer = files.newFile();
        DeletionVectorRef ref = writer.add(DeletionVector.of(0, 1));
        writer.close();
        assertThat(ref.offset()).isEqualTo(1);
        assertThat(ref.sizeInBytes()).isEqualTo(36);
        assertThat(ref.cardinality()).isEqualTo(2);
        try (Stream<Path> written = Files.list(dir)) {
            Path file =
                    written.filter(p -> p.getFileName().toString().startsWith("deletion_vector_"))
                            .findFirst()
                            .orElseThrow();
            assertThat(Files.readAllBytes(file)).isEqualTo(golden);
        }

        // The golden descriptor's id is a UUID in the Z85 form deltalite writes, without prefix.
        java.util.UUID id = Base85Codec.decodeUUID("IjB3V2d3#qUP%s94R0WF");
        assertThat(KernelInternals.encodeUuid(id)).isEqualTo("IjB3V2d3#qUP%s94R0WF");
        String path = files.path(new DeletionVectorRef("u", "IjB3V2d3#qUP%s94R0WF", 1, 36, 2));
        assertThat(Path.of(java.net.URI.create(path)))
                .isEqualTo(dir.resolve("deletion_vector_" + id + ".bin"));
    }

    @Test
    void anUpdateMarksTheOldRowsAndKernelReadsTheTableRight() throws IOException {
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS)) {
            Map<Long, String> model = new TreeMap<>();
            for (long id = 0; id < 100; id++) {
                harness.upsert(id, "v0");
                model.put(id, "v0");
            }
            harness.commit();
            String dataFile = onlyLiveFile();

            harness.upsert(7L, "v1");
            harness.upsert(42L, "v1");
            harness.delete(50L, null);
            model.put(7L, "v1");
            model.put(42L, "v1");
            model.remove(50L);
            UpsertStats stats = harness.commit().stats();
            assertThat(stats.deletionVectorsWritten()).isEqualTo(1);
            assertThat(stats.rowsCopied()).isZero();
            assertThat(stats.rowsUpdated()).isEqualTo(2);
            assertThat(stats.rowsDeleted()).isEqualTo(1);
            assertThat(stats.filesRemoved()).isEqualTo(1);
            // The upsert file and the data file back with its vector.
            assertThat(stats.filesAdded()).isEqualTo(2);
            assertThat(stats.deletionVectorBytes()).isPositive();
            assertThat(readSorted()).isEqualTo(expected(model));

            JsonNode add = lastAddOf(dataFile);
            JsonNode vector = add.get("deletionVector");
            assertThat(vector.get("storageType").asText()).isEqualTo("u");
            assertThat(vector.get("cardinality").asLong()).isEqualTo(3);
            JsonNode fileStats = JSON.readTree(add.get("stats").asText());
            assertThat(fileStats.get("numRecords").asLong()).isEqualTo(100);
            assertThat(fileStats.get("tightBounds").asBoolean()).isFalse();
            assertThat(fileStats.get("minValues").get("id").asLong()).isZero();
            JsonNode remove = lastRemoveOf(dataFile);
            assertThat(remove.has("deletionVector") && !remove.get("deletionVector").isNull())
                    .isFalse();

            // The next checkpoint unions with the vector the file has.
            harness.upsert(8L, "v2");
            model.put(8L, "v2");
            harness.commit();
            assertThat(lastAddOf(dataFile).get("deletionVector").get("cardinality").asLong())
                    .isEqualTo(4);
            assertThat(lastRemoveOf(dataFile).get("deletionVector").get("cardinality").asLong())
                    .isEqualTo(3);
            assertThat(readSorted()).isEqualTo(expected(model));
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
            assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
        }
    }

    @Test
    void aFileMostlyDeletedIsRewrittenAndAFileAllDeletedIsRemoved() {
        MergeOptions options = VECTORS.withDeletionVectorRewriteThreshold(0.3);
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), WITH_VECTORS, options)) {
            Map<Long, String> model = new TreeMap<>();
            for (long id = 0; id < 10; id++) {
                harness.upsert(id, "v0");
                model.put(id, "v0");
            }
            harness.commit();
            for (long id = 0; id < 4; id++) {
                harness.upsert(id, "v1");
                model.put(id, "v1");
            }
            UpsertStats rewritten = harness.commit().stats();
            assertThat(rewritten.deletionVectorsWritten()).isZero();
            assertThat(rewritten.rowsCopied()).isEqualTo(6);
            assertThat(readSorted()).isEqualTo(expected(model));

            // Now two files: the upsert file of ids 0-3 and the survivors 4-9. Delete 0-3.
            for (long id = 0; id < 4; id++) {
                harness.delete(id, null);
                model.remove(id);
            }
            UpsertStats removed = harness.commit().stats();
            assertThat(removed.filesRemoved()).isEqualTo(1);
            assertThat(removed.filesAdded()).isZero();
            assertThat(removed.deletionVectorsWritten()).isZero();
            assertThat(removed.rowsDeleted()).isEqualTo(4);
            assertThat(readSorted()).isEqualTo(expected(model));
        }
    }

    /**
     * Files that pass the rewrite threshold in the same merge — as the large files of a table under
     * evenly spread updates do — are rewritten a few per merge, the rest marked until a later merge
     * takes them: rewriting them all at once made one checkpoint read a good part of the table.
     */
    @Test
    void filesThatPassTheRewriteThresholdTogetherAreRewrittenOnePerSmallMerge() {
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS)) {
            Map<Long, String> model = new TreeMap<>();
            // Four files of 100 rows: ids 100f .. 100f + 99.
            for (long file = 0; file < 4; file++) {
                for (long id = 100 * file; id < 100 * file + 100; id++) {
                    harness.upsert(id, "v0");
                    model.put(id, "v0");
                }
                harness.commit();
            }
            // 45 % of each file deleted: marked.
            UpsertStats marked = updateInEachFile(harness, model, 100, 0, 45, "v1");
            assertThat(marked.deletionVectorsWritten()).isEqualTo(4);
            assertThat(marked.rowsCopied()).isZero();

            // 6 rows more of each: all four pass half. Their rewrites would read 400 rows for 24
            // deleted ones; the allowance (4 per deleted row) takes the first file only.
            UpsertStats passed = updateInEachFile(harness, model, 100, 45, 51, "v2");
            assertThat(passed.rowsCopied()).isEqualTo(49);
            assertThat(passed.deletionVectorsWritten()).isEqualTo(3);
            assertThat(readSorted()).isEqualTo(expected(model));

            // Each later merge touching them takes the next one (and marks the row it changes in
            // the files the earlier ones wrote: three vectors each time).
            for (int merge = 0; merge < 3; merge++) {
                UpsertStats next =
                        updateInEachFile(harness, model, 100, 51 + merge, 52 + merge, "v3");
                assertThat(next.rowsCopied()).as("merge %d", merge).isEqualTo(48 - merge);
                assertThat(next.deletionVectorsWritten()).isEqualTo(3);
                assertThat(readSorted()).isEqualTo(expected(model));
            }
        }
    }

    /**
     * Worn files small enough are rewritten together, while what their rewrites read stays within
     * twice {@code 1 / threshold} rows per row the merge deletes.
     */
    @Test
    void wornFilesAreRewrittenTogetherWhileTheirReadsStayInProportionToTheDeletes() {
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS)) {
            Map<Long, String> model = new TreeMap<>();
            for (long file = 0; file < 4; file++) {
                for (long id = 10 * file; id < 10 * file + 10; id++) {
                    harness.upsert(id, "v0");
                    model.put(id, "v0");
                }
                harness.commit();
            }
            assertThat(updateInEachFile(harness, model, 10, 0, 4, "v1").deletionVectorsWritten())
                    .isEqualTo(4);

            // All four pass half with 8 rows deleted: an allowance of 2 / 0.5 * 8 = 32 rows read
            // takes three files of 10 (copying 4 rows each); the fourth is marked.
            UpsertStats passed = updateInEachFile(harness, model, 10, 4, 6, "v2");
            assertThat(passed.rowsCopied()).isEqualTo(12);
            assertThat(passed.deletionVectorsWritten()).isEqualTo(1);
            assertThat(readSorted()).isEqualTo(expected(model));
        }
    }

    /**
     * A large file that passes the rewrite threshold is not read whole in one merge: each merge
     * that touches it moves the survivors of a few of its row groups to a new file (and marks those
     * row groups deleted), as many as the merge's allowance of rows read pays for, until nothing of
     * the file is left and it is removed. Each of its rows is copied once, and the table stays
     * right (with the key index cross-checked by the exact probe in every merge).
     */
    @Test
    void aWornFileOfManyRowGroupsIsMovedAFewRowGroupsPerMerge() throws Exception {
        MergeOptions smallRowGroups =
                VECTORS.withRowGroupSizeBytes(2048)
                        .withKeyIndex(
                                io.deltalite.flink.internal.merge.options.KeyIndexOptions.DEFAULTS
                                        .withValidate(true));
        int rows = 4000;
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), WITH_VECTORS, smallRowGroups)) {
            Map<Long, String> model = new TreeMap<>();
            for (long id = 0; id < rows; id++) {
                harness.upsert(id, "v0");
                model.put(id, "v0");
            }
            harness.commit();
            String worn =
                    KernelTableReader.liveFiles(dir.toString()).values().iterator().next().path();
            int groups = rowGroups(worn);
            assertThat(groups).as("row groups of the bulk file").isGreaterThanOrEqualTo(8);

            // Every other row: half of the file deleted, spread over all its row groups.
            UpsertStats marked = updateEvery(harness, model, rows, 2, 0, "v1");
            assertThat(marked.rowsCopied()).isZero();
            // One row in 50 more passes half: 80 rows deleted, an allowance of 2 / 0.5 * 80 = 320
            // rows read, about a row group of the 4,000 — not the whole file.
            UpsertStats passed = updateEvery(harness, model, rows, 50, 1, "v2");
            assertThat(passed.rowsCopied()).isPositive().isLessThanOrEqualTo(rows / groups + 320);
            assertThat(readSorted()).isEqualTo(expected(model));
            assertThat(livePaths()).contains(worn);

            long copied = passed.rowsCopied();
            int merges = 1;
            int offset = 3;
            while (livePaths().contains(worn)) {
                assertThat(merges)
                        .as("merges that moved part of the worn file")
                        .isLessThan(groups + 2);
                UpsertStats next = updateEvery(harness, model, rows, 50, offset, "v3");
                offset += 2;
                assertThat(next.rowsCopied()).isLessThanOrEqualTo(rows / groups + 320);
                copied += next.rowsCopied();
                merges++;
                assertThat(readSorted()).isEqualTo(expected(model));
            }
            assertThat(merges).isGreaterThan(2);
            // Each row of the worn file that was live when its row group moved was copied once.
            assertThat(copied).isLessThanOrEqualTo(rows / 2);
        }
    }

    /** Updates every {@code step}-th id from {@code offset} below {@code rows}, and commits. */
    private static UpsertStats updateEvery(
            UpsertHarness harness,
            Map<Long, String> model,
            int rows,
            int step,
            int offset,
            String value) {
        for (long id = offset; id < rows; id += step) {
            harness.upsert(id, value);
            model.put(id, value);
        }
        return harness.commit().stats();
    }

    private java.util.Set<String> livePaths() {
        java.util.Set<String> paths = new java.util.HashSet<>();
        KernelTableReader.liveFiles(dir.toString())
                .values()
                .forEach(file -> paths.add(file.path()));
        return paths;
    }

    private static int rowGroups(String path) throws Exception {
        try (org.apache.parquet.hadoop.ParquetFileReader reader =
                org.apache.parquet.hadoop.ParquetFileReader.open(
                        new org.apache.parquet.io.LocalInputFile(
                                java.nio.file.Path.of(java.net.URI.create(path))))) {
            return reader.getFooter().getBlocks().size();
        }
    }

    /**
     * Updates the rows {@code from} (inclusive) to {@code to} of each of four files of {@code
     * rowsPerFile} rows, the ids {@code rowsPerFile * f} on, and commits.
     */
    private static UpsertStats updateInEachFile(
            UpsertHarness harness,
            Map<Long, String> model,
            int rowsPerFile,
            int from,
            int to,
            String value) {
        for (long file = 0; file < 4; file++) {
            for (long id = rowsPerFile * file + from; id < rowsPerFile * file + to; id++) {
                harness.upsert(id, value);
                model.put(id, value);
            }
        }
        return harness.commit().stats();
    }

    @Test
    void aKeyChangedInTwoEarlyMergesOfOneCheckpointLeavesOneVectorAndNoStrayFile() {
        Map<Long, String> model = new TreeMap<>();
        try (UpsertHarness load = UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS)) {
            for (long id = 0; id < 1000; id++) {
                load.upsert(id, "v0");
                model.put(id, "v0");
            }
            load.commit();
        }
        assertThat(KernelTableReader.liveFiles(dir.toString())).hasSize(1);
        // A tiny buffer: every few changes are merged early, each round marking the one file
        // again and writing a vector file that the next round's vector replaces.
        MergeOptions options = VECTORS.withMaxBufferedBytes(2048);
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), WITH_VECTORS, options)) {
            for (long id = 0; id < 1000; id += 7) {
                harness.upsert(id, "v1");
                model.put(id, "v1");
            }
            harness.delete(500L, null);
            model.remove(500L);
            CommitOutcome outcome = harness.commit();
            assertThat(outcome.stats().rowsCopied()).isZero();
            assertThat(outcome.stats().deletionVectorsWritten()).isEqualTo(1);
            assertThat(readSorted()).isEqualTo(expected(model));
            // Checked before this writer merges again: the replaced vector files of the earlier
            // rounds are gone already, not left for a later checkpoint to find.
            assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
        }
    }

    /**
     * A survivor file of a checkpoint not committed yet is not the table's: if that checkpoint is
     * merged again at commit (another writer changed the partition) the survivor is dropped and
     * deleted. A later checkpoint must rewrite it, not give it a vector.
     */
    @Test
    void aSurvivorOfAPendingCheckpointIsRewrittenNotMarked() {
        Map<Long, String> model = new TreeMap<>();
        try (UpsertHarness first = UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS);
                UpsertHarness other =
                        UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS, "other")) {
            for (long id = 0; id < 100; id++) {
                first.upsert(id, "v0");
                model.put(id, "v0");
            }
            first.commit();
            // 60 % of the file changes: over the threshold, so it is rewritten into a survivor.
            for (long id = 0; id < 60; id++) {
                first.upsert(id, "v1");
                model.put(id, "v1");
            }
            List<PartitionWriteResult> checkpointN = first.prepare();
            long n = first.lastCheckpoint();
            assertThat(checkpointN.get(0).survivorFiles()).hasSize(1);
            // Checkpoint N+1 changes a row of that survivor while N is still pending.
            first.upsert(90L, "v2");
            model.put(90L, "v2");
            List<PartitionWriteResult> checkpointN1 = first.prepare();
            long n1 = first.lastCheckpoint();
            assertThat(checkpointN1.get(0).vectorFiles())
                    .as("files of a pending checkpoint's survivors given a vector")
                    .isEmpty();
            // Another writer changes the partition: N is merged again, its survivor dropped.
            other.upsert(500L, "other");
            model.put(500L, "other");
            other.commit();
            assertThat(first.commitPrepared(n, checkpointN).remergedPartitions()).isEqualTo(1);
            // N+2 merges while N+1 is pending, then everything lands.
            first.upsert(91L, "v3");
            model.put(91L, "v3");
            List<PartitionWriteResult> checkpointN2 = first.prepare();
            first.commitPrepared(n1, checkpointN1);
            first.commitPrepared(first.lastCheckpoint(), checkpointN2);
            assertThat(readSorted()).isEqualTo(expected(model));
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
        }
    }

    @Test
    void anotherWritersVectorOnTheSameFileIsUnitedWithOursAtCommit() {
        try (UpsertHarness first = UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS);
                UpsertHarness second =
                        UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS, "other")) {
            Map<Long, String> model = new TreeMap<>();
            for (long id = 0; id < 100; id++) {
                first.upsert(id, "v0");
                model.put(id, "v0");
            }
            first.commit();
            first.upsert(10L, "first");
            List<PartitionWriteResult> prepared = first.prepare();
            second.upsert(20L, "second");
            second.commit();
            CommitOutcome outcome = first.commitPrepared(first.lastCheckpoint(), prepared);
            assertThat(outcome.remergedPartitions()).isEqualTo(1);
            model.put(10L, "first");
            model.put(20L, "second");
            assertThat(readSorted()).isEqualTo(expected(model));
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
            // The writer learns of its commit at its next checkpoint and deletes what the
            // commit did not take: the deletion vector file of its first plan.
            first.commit();
            assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
        }
    }

    @Test
    void aVectorAnotherWriterStoredInlineIsExtended() throws IOException {
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS)) {
            for (long id = 0; id < 10; id++) {
                harness.upsert(id, "v0");
            }
            harness.commit();
        }
        // Spark-style inline vector deleting rows 3 and 4, then deltalite updates id 5.
        DeletionVectorCommits.deleteRowsInline(dir, "{}", 3, 4);
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS)) {
            harness.upsert(5L, "v1");
            harness.upsert(4L, "back");
            UpsertStats stats = harness.commit().stats();
            assertThat(stats.deletionVectorsWritten()).isEqualTo(1);
            assertThat(stats.rowsUpdated()).isEqualTo(1);
            assertThat(stats.rowsInserted()).isEqualTo(1);
        }
        Map<Long, String> model = new TreeMap<>();
        for (long id = 0; id < 10; id++) {
            model.put(id, "v0");
        }
        model.remove(3L);
        model.put(4L, "back");
        model.put(5L, "v1");
        assertThat(readSorted()).isEqualTo(expected(model));
    }

    /**
     * Tables other writers made (delta-rs, a log written by hand) usually have no {@code .crc}
     * files, so Kernel computes the checksum of the next commit by replaying the log. A table of
     * few files, some with a vector and some without, is what that replay could not write.
     */
    @Test
    void aDeletionVectorCommitOnATableWithoutChecksumsWritesItsChecksum() throws IOException {
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS)) {
            for (long id = 0; id < 10; id++) {
                harness.upsert(id, "v0");
            }
            harness.commit();
        }
        deleteChecksums();
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), WITH_VECTORS, VECTORS)) {
            harness.upsert(3L, "v1");
            harness.delete(4L, null);
            UpsertStats stats = harness.commit().stats();
            assertThat(stats.deletionVectorsWritten()).isEqualTo(1);
        }
        assertChecksumOfLatestVersionMatchesTheTable();
    }

    /** The same, with the vector another writer's and the commit deltalite's copy-on-write. */
    @Test
    void aCopyOnWriteCommitBesideAnotherWritersVectorOnATableWithoutChecksumsWritesItsChecksum()
            throws IOException {
        MergeOptions copyOnWrite = VECTORS.withWriteMode(WriteMode.COPY_ON_WRITE);
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), WITH_VECTORS, copyOnWrite)) {
            for (long id = 0; id < 10; id++) {
                harness.upsert(id, "v0");
            }
            harness.commit();
        }
        deleteChecksums();
        DeletionVectorCommits.deleteRowsInline(dir, "{}", 3);
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), WITH_VECTORS, copyOnWrite)) {
            harness.upsert(20L, "new");
            harness.commit();
        }
        assertChecksumOfLatestVersionMatchesTheTable();
    }

    private void assertChecksumOfLatestVersionMatchesTheTable() throws IOException {
        long version = KernelTableReader.latestVersion(dir.toString());
        Path checksum = dir.resolve(String.format("_delta_log/%020d.crc", version));
        assertThat(checksum).as("checksum of version %d", version).exists();
        JsonNode crc = JSON.readTree(Files.readString(checksum));
        Map<String, KernelTableReader.LiveFile> live = KernelTableReader.liveFiles(dir.toString());
        assertThat(DeltaHistory.liveAdds(dir)).hasSameSizeAs(live.values());
        assertThat(crc.get("numFiles").asLong()).isEqualTo(live.size());
        assertThat(crc.get("tableSizeBytes").asLong())
                .isEqualTo(
                        live.values().stream().mapToLong(KernelTableReader.LiveFile::size).sum());
        assertThat(crc.get("numMetadata").asLong()).isEqualTo(1);
        assertThat(crc.get("numProtocol").asLong()).isEqualTo(1);
        assertThat(
                        crc.get("metadata")
                                .get("configuration")
                                .get("delta.enableDeletionVectors")
                                .asText())
                .isEqualTo("true");
        assertThat(crc.get("protocol").get("readerFeatures").toString())
                .contains("deletionVectors");
        long vectors = 0;
        long deletedRows = 0;
        for (JsonNode add : DeltaHistory.liveAdds(dir)) {
            if (add.hasNonNull("deletionVector")) {
                vectors++;
                deletedRows += add.get("deletionVector").get("cardinality").asLong();
            }
        }
        assertThat(vectors).as("live files with a vector").isPositive();
        assertThat(crc.get("numDeletionVectorsOpt").asLong()).isEqualTo(vectors);
        assertThat(crc.get("numDeletedRecordsOpt").asLong()).isEqualTo(deletedRows);
    }

    private void deleteChecksums() throws IOException {
        try (Stream<Path> log = Files.list(dir.resolve("_delta_log"))) {
            for (Path file : log.filter(p -> p.toString().endsWith(".crc")).toList()) {
                Files.delete(file);
            }
        }
    }

    @Test
    void autoModeMergesCopyOnWriteOnATableWithoutVectorsAndDeletionVectorModeRefusesIt() {
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), WITHOUT_VECTORS, MergeOptions.DEFAULTS)) {
            for (long id = 0; id < 10; id++) {
                harness.upsert(id, "v0");
            }
            harness.commit();
            harness.upsert(3L, "v1");
            UpsertStats stats = harness.commit().stats();
            assertThat(stats.deletionVectorsWritten()).isZero();
            assertThat(stats.rowsCopied()).isEqualTo(9);
        }
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), WITHOUT_VECTORS, VECTORS)) {
            harness.upsert(4L, "v1");
            assertThatThrownBy(harness::prepare)
                    .hasMessageContaining("write-mode 'deletion-vectors'")
                    .hasMessageContaining("delta.enableDeletionVectors")
                    .hasMessageContaining(dir.toString());
        }
    }

    @Test
    void copyOnWriteModeRewritesEvenWhenTheTableAllowsVectors() {
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(),
                        WITH_VECTORS,
                        MergeOptions.DEFAULTS.withWriteMode(WriteMode.COPY_ON_WRITE))) {
            for (long id = 0; id < 10; id++) {
                harness.upsert(id, "v0");
            }
            harness.commit();
            harness.upsert(3L, "v1");
            UpsertStats stats = harness.commit().stats();
            assertThat(stats.deletionVectorsWritten()).isZero();
            assertThat(stats.rowsCopied()).isEqualTo(9);
        }
    }

    private String onlyLiveFile() {
        Map<String, KernelTableReader.LiveFile> files = KernelTableReader.liveFiles(dir.toString());
        assertThat(files).hasSize(1);
        return files.values().iterator().next().logPath();
    }

    private JsonNode lastAddOf(String logPath) throws IOException {
        return lastAction("add", logPath);
    }

    private JsonNode lastRemoveOf(String logPath) throws IOException {
        return lastAction("remove", logPath);
    }

    private JsonNode lastAction(String kind, String logPath) {
        JsonNode last = null;
        for (JsonNode action : DeltaHistory.actions(dir)) {
            if (action.has(kind) && action.get(kind).get("path").asText().equals(logPath)) {
                last = action.get(kind);
            }
        }
        assertThat(last).as("%s action of %s", kind, logPath).isNotNull();
        return last;
    }

    private List<String> readSorted() {
        return Rows.sorted(KernelTableReader.readAll(dir.toString()));
    }

    private static List<String> expected(Map<Long, String> model) {
        List<Object[]> rows = new ArrayList<>();
        model.forEach((id, v) -> rows.add(new Object[] {id, v}));
        return Rows.sorted(rows);
    }
}
