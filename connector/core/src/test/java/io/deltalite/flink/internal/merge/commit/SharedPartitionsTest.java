package io.deltalite.flink.internal.merge.commit;

import static io.deltalite.flink.testing.WriterCheckpoints.JOB;
import static io.deltalite.flink.testing.WriterCheckpoints.checkpoint;
import static io.deltalite.flink.testing.WriterCheckpoints.committer;
import static io.deltalite.flink.testing.WriterCheckpoints.prepare;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several writers change one partition in one checkpoint, each with its own keys (distribution
 * {@code key}): the committer lands their results as one version — one deletion vector per file,
 * the union of theirs — or merges the partition again when they cannot compose.
 */
class SharedPartitionsTest {

    private static final TableDefinition ITEMS =
            new TableDefinition(
                    TestDefinitions.ITEMS.columns(),
                    TestDefinitions.ITEMS.primaryKey(),
                    TestDefinitions.ITEMS.partitionColumns(),
                    Map.of("delta.enableDeletionVectors", "true"));

    private static final KeyGroups LOWER = new KeyGroups("0000000a", 0, 63, 128);
    private static final KeyGroups UPPER = new KeyGroups("0000000a", 64, 127, 128);

    @TempDir Path dir;

    @Test
    void twoWritersMarkingRowsOfOneFileLandOneVectorWithTheUnionOfTheirRows() {
        DeltaTable table = open(MergeOptions.DEFAULTS);
        seed(table, 100);
        String seeded = onlyLiveFile();
        MergeWriter lower = writer(table, MergeOptions.DEFAULTS, 0, LOWER);
        MergeWriter upper = writer(table, MergeOptions.DEFAULTS, 1, UPPER);
        for (long id : new long[] {1, 2, 3}) {
            lower.delete(new Object[] {id, null});
        }
        upper.delete(new Object[] {50L, null});
        upper.upsert(new Object[] {60L, "new"});

        List<PartitionWriteResult> results = new ArrayList<>(prepare(lower, 1));
        results.addAll(prepare(upper, 1));
        // Both marked the seeded file, which holds keys of both (it has no key range).
        for (PartitionWriteResult result : results) {
            assertThat(result.vectorFiles()).hasSize(1);
        }
        CommitOutcome outcome =
                committer(table, MergeOptions.DEFAULTS).commit(checkpoint(1, results));

        assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
        assertThat(outcome.remergedPartitions()).isZero();
        List<JsonNode> adds = new ArrayList<>();
        List<JsonNode> removes = new ArrayList<>();
        for (JsonNode action : DeltaHistory.actions(dir, outcome.version())) {
            if (action.has("add") && seeded.endsWith(action.get("add").get("path").asText())) {
                adds.add(action.get("add"));
            }
            if (action.has("remove")
                    && seeded.endsWith(action.get("remove").get("path").asText())) {
                removes.add(action.get("remove"));
            }
        }
        assertThat(removes).hasSize(1);
        assertThat(adds).as("one add of the marked file").hasSize(1);
        assertThat(adds.get(0).get("deletionVector").get("cardinality").asLong())
                .as("rows of both writers")
                .isEqualTo(5);
        List<Object[]> expected = new ArrayList<>();
        LongStream.range(0, 100)
                .filter(id -> id != 1 && id != 2 && id != 3 && id != 50)
                .forEach(id -> expected.add(new Object[] {id, id == 60 ? "new" : "v" + id}));
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(expected));
    }

    @Test
    void twoWritersRewritingOneFileAreMergedAgainAndLoseNothing() {
        MergeOptions copyOnWrite = MergeOptions.DEFAULTS.withWriteMode(WriteMode.COPY_ON_WRITE);
        DeltaTable table = open(copyOnWrite);
        seed(table, 100);
        MergeWriter lower = writer(table, copyOnWrite, 0, LOWER);
        MergeWriter upper = writer(table, copyOnWrite, 1, UPPER);
        lower.upsert(new Object[] {7L, "lower"});
        upper.delete(new Object[] {8L, null});

        List<PartitionWriteResult> results = new ArrayList<>(prepare(lower, 1));
        results.addAll(prepare(upper, 1));
        // Each rewrote the seeded file without its own key: together they would bring back the
        // other's row.
        assertThat(results).allSatisfy(result -> assertThat(result.removedFiles()).hasSize(1));
        CommitOutcome outcome = committer(table, copyOnWrite).commit(checkpoint(1, results));

        assertThat(outcome.remergedPartitions()).isEqualTo(1);
        List<Object[]> expected = new ArrayList<>();
        LongStream.range(0, 100)
                .filter(id -> id != 8)
                .forEach(id -> expected.add(new Object[] {id, id == 7 ? "lower" : "v" + id}));
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(expected));
    }

    @Test
    void aCommitFromOutsideTheJobAfterTheWritersPlannedMakesTheCommitterMergeAgain() {
        DeltaTable table = open(MergeOptions.DEFAULTS);
        seed(table, 10);
        MergeWriter lower = writer(table, MergeOptions.DEFAULTS, 0, LOWER);
        MergeWriter upper = writer(table, MergeOptions.DEFAULTS, 1, UPPER);
        lower.delete(new Object[] {3L, null});
        upper.upsert(new Object[] {20L, "upper"});
        List<PartitionWriteResult> results = new ArrayList<>(prepare(lower, 1));
        results.addAll(prepare(upper, 1));
        // Another job writes key 3 again after the writers planned: the checkpoint's delete must
        // still win, which only a merge against the new files can do.
        MergeWriter outsider =
                new MergeWriter(table, MergeOptions.DEFAULTS, "outsider", 0, 1, 1, null);
        outsider.upsert(new Object[] {3L, "outsider"});
        List<PartitionWriteResult> outside = outsider.prepare();
        outsider.prepared(1);
        committer(table, MergeOptions.DEFAULTS)
                .commit(new CheckpointResults("outsider", 1, outside));

        CommitOutcome outcome =
                committer(table, MergeOptions.DEFAULTS).commit(checkpoint(1, results));

        assertThat(outcome.remergedPartitions()).isEqualTo(1);
        List<Object[]> expected = new ArrayList<>();
        LongStream.range(0, 10)
                .filter(id -> id != 3)
                .forEach(id -> expected.add(new Object[] {id, "v" + id}));
        expected.add(new Object[] {20L, "upper"});
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(expected));
    }

    @Test
    void filesOfAnotherWritersKeysAreNotProbedAndOwnFilesAreRewrittenByTheirWriter() {
        // Without the key index: what this test counts is the exact probe's reading.
        MergeOptions probed =
                MergeOptions.DEFAULTS.withKeyIndex(
                        io.deltalite.flink.internal.merge.options.KeyIndexOptions.DEFAULTS.withMode(
                                io.deltalite.flink.sink.KeyIndexMode.OFF));
        DeltaTable table = open(probed);
        MergeWriter lower = writer(table, probed, 0, LOWER);
        MergeWriter upper = writer(table, probed, 1, UPPER);
        // Interleaved keys: the statistics of both writers' files cover every key.
        for (long id = 0; id < 100; id++) {
            (id % 2 == 0 ? lower : upper).upsert(new Object[] {id, "v" + id});
        }
        List<PartitionWriteResult> first = new ArrayList<>(prepare(lower, 1));
        first.addAll(prepare(upper, 1));
        committer(table, MergeOptions.DEFAULTS).commit(checkpoint(1, first));
        assertThat(KernelTableReader.liveFiles(dir.toString()).keySet())
                .hasSize(2)
                .anySatisfy(path -> assertThat(path).contains("/" + LOWER.folder() + "/"))
                .anySatisfy(path -> assertThat(path).contains("/" + UPPER.folder() + "/"));

        lower.upsert(new Object[] {10L, "again"});
        List<PartitionWriteResult> second = prepare(lower, 2);

        assertThat(second).hasSize(1);
        assertThat(second.get(0).stats().filesProbed())
                .as("only the writer's own file is read")
                .isEqualTo(1);
        CommitOutcome outcome =
                committer(table, MergeOptions.DEFAULTS).commit(checkpoint(2, second));
        assertThat(outcome.remergedPartitions()).isZero();
        assertThat(KernelTableReader.readAll(dir.toString()))
                .hasSize(100)
                .anySatisfy(row -> assertThat(row).containsExactly(10L, "again"));
    }

    /**
     * A later job keys its records otherwise (another primary key, other input types, no key at
     * all): the key ranges of the files the earlier one wrote say nothing about its keys, so their
     * files are shared to it, never another writer's — or it would write a second row of a key.
     */
    @Test
    void filesOfWritersThatHashedKeysOtherwiseAreSharedNotForeign() {
        DeltaTable table = open(MergeOptions.DEFAULTS);
        MergeWriter earlier =
                writer(table, MergeOptions.DEFAULTS, 0, new KeyGroups("0000aaaa", 0, 63, 128));
        earlier.upsert(new Object[] {1L, "earlier"});
        committer(table, MergeOptions.DEFAULTS).commit(checkpoint(1, prepare(earlier, 1)));

        MergeWriter later =
                writer(table, MergeOptions.DEFAULTS, 1, new KeyGroups("0000bbbb", 64, 127, 128));
        later.upsert(new Object[] {1L, "later"});
        committer(table, MergeOptions.DEFAULTS).commit(checkpoint(2, prepare(later, 2)));

        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "later"})));
    }

    /** A shared file that deletes wore out is compacted, by one of the writers only. */
    @Test
    void aWornSharedFileIsCompactedByExactlyOneWriter() {
        DeltaTable table = open(MergeOptions.DEFAULTS);
        seed(table, 100);
        MergeWriter lower = writer(table, MergeOptions.DEFAULTS, 0, LOWER);
        MergeWriter upper = writer(table, MergeOptions.DEFAULTS, 1, UPPER);
        for (long id = 0; id < 30; id++) {
            lower.delete(new Object[] {id, null});
        }
        committer(table, MergeOptions.DEFAULTS).commit(checkpoint(1, prepare(lower, 1)));

        // Keys outside the seeded file: neither writer touches it, both may compact.
        lower.upsert(new Object[] {1_000L, "lower"});
        upper.upsert(new Object[] {1_001L, "upper"});
        List<PartitionWriteResult> results = new ArrayList<>(prepare(lower, 2));
        results.addAll(prepare(upper, 2));
        CommitOutcome outcome =
                committer(table, MergeOptions.DEFAULTS).commit(checkpoint(2, results));

        assertThat(results.stream().filter(result -> !result.compaction().isEmpty()))
                .as("results that compact the worn shared file")
                .hasSize(1);
        assertThat(outcome.remergedPartitions()).isZero();
        assertThat(DeltaHistory.compactedFiles(dir)).isEqualTo(1);
        List<Object[]> expected = new ArrayList<>();
        LongStream.range(30, 100).forEach(id -> expected.add(new Object[] {id, "v" + id}));
        expected.add(new Object[] {1_000L, "lower"});
        expected.add(new Object[] {1_001L, "upper"});
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(expected));
    }

    private DeltaTable open(MergeOptions options) {
        return DeltaTable.open(dir.toString(), Map.of(), options, ITEMS, true);
    }

    /** Rows {@code 0..count-1} in one file, written by a writer of whole partitions. */
    private void seed(DeltaTable table, int count) {
        MergeWriter seeder = new MergeWriter(table, MergeOptions.DEFAULTS, "seed", 1, null);
        for (long id = 0; id < count; id++) {
            seeder.upsert(new Object[] {id, "v" + id});
        }
        List<PartitionWriteResult> results = seeder.prepare();
        seeder.prepared(1);
        committer(table, MergeOptions.DEFAULTS).commit(new CheckpointResults("seed", 1, results));
    }

    private String onlyLiveFile() {
        assertThat(KernelTableReader.liveFiles(dir.toString())).hasSize(1);
        return KernelTableReader.liveFiles(dir.toString()).keySet().iterator().next();
    }

    private static MergeWriter writer(
            DeltaTable table, MergeOptions options, int subtask, KeyGroups keys) {
        return new MergeWriter(table, options, JOB, subtask, 2, 1, null, WriterShare.keysIn(keys));
    }
}
