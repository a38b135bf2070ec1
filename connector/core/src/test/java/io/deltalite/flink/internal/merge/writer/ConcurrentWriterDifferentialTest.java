package io.deltalite.flink.internal.merge.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.ForeignWriter;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.writer.UpsertDifferentialTest.Generator;
import io.deltalite.flink.internal.merge.writer.UpsertDifferentialTest.KeyDistribution;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The randomized differential test with another writer in the table: between the merge of a
 * checkpoint and its commit, the other writer appends rows (some with keys the checkpoint changes)
 * or compacts the table. The committer must merge the changed partitions again, so that after each
 * commit the table equals the committed rows of the other writer with the checkpoint's changes
 * applied on top.
 */
class ConcurrentWriterDifferentialTest {
    /** Files compacted per write mode over all sequences: in some, merges rewrite every file. */
    private static final Map<WriteMode, Long> COMPACTED =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Commits whose compaction the committer dropped because another writer changed its input. */
    private static final java.util.concurrent.atomic.AtomicLong DROPPED =
            new java.util.concurrent.atomic.AtomicLong();

    @org.junit.jupiter.api.AfterAll
    static void compactionRanInEveryWriteMode() {
        assertThat(DROPPED.get()).as("commits with a dropped compaction").isPositive();
        assertThat(COMPACTED.keySet()).hasSize(2);
        COMPACTED.forEach(
                (mode, files) -> assertThat(files).as("files compacted in %s", mode).isPositive());
    }

    private static final int CHECKPOINTS = 15;

    @TempDir Path dir;

    static Stream<Arguments> sequences() {
        return Stream.of(
                Arguments.of(WriteMode.COPY_ON_WRITE, KeyDistribution.HOT_KEYS, true, 2001L),
                Arguments.of(WriteMode.COPY_ON_WRITE, KeyDistribution.SMALL_DOMAIN, false, 2002L),
                Arguments.of(WriteMode.COPY_ON_WRITE, KeyDistribution.SEQUENTIAL, true, 2003L),
                Arguments.of(WriteMode.COPY_ON_WRITE, KeyDistribution.LARGE_SPARSE, false, 2004L),
                Arguments.of(WriteMode.DELETION_VECTORS, KeyDistribution.HOT_KEYS, true, 2005L),
                Arguments.of(
                        WriteMode.DELETION_VECTORS, KeyDistribution.SMALL_DOMAIN, false, 2006L),
                Arguments.of(WriteMode.DELETION_VECTORS, KeyDistribution.SEQUENTIAL, true, 2007L),
                Arguments.of(
                        WriteMode.DELETION_VECTORS, KeyDistribution.LARGE_SPARSE, false, 2008L));
    }

    @ParameterizedTest(name = "{0}, {1}, partitioned={2}, seed={3}")
    @MethodSource("sequences")
    void tableEqualsModelAfterEveryCommitDespiteAnotherWriter(
            WriteMode mode, KeyDistribution distribution, boolean partitioned, long seed) {
        Random random = new Random(seed);
        TableDefinition definition = UpsertDifferentialTest.definition(partitioned, mode);
        Generator generator = new Generator(distribution, random, partitioned);
        Map<List<Object>, Object[]> committed = new HashMap<>();
        long foreignId = -1;
        int interferences = 0;
        long vectorsWritten = 0;
        long compactionsDropped = 0;
        long filesCompacted = 0;
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(),
                        definition,
                        // Files keep their vectors however many rows die: re-merges must unite.
                        UpsertDifferentialTest.randomOptions(random, mode)
                                .withDeletionVectorRewriteThreshold(1.0))) {
            int checkpoint = 0;
            while (checkpoint < CHECKPOINTS) {
                int pipelined = random.nextInt(3) == 0 ? 2 : 1;
                List<List<PartitionWriteResult>> prepared = new ArrayList<>();
                List<Long> checkpointIds = new ArrayList<>();
                List<Map<List<Object>, Object[]>> changes = new ArrayList<>();
                for (int i = 0; i < pipelined; i++) {
                    generator.applyChanges(harness, 1 + random.nextInt(checkpoint < 2 ? 300 : 100));
                    prepared.add(harness.prepare());
                    checkpointIds.add(harness.lastCheckpoint());
                    changes.add(generator.drainChanges());
                }
                boolean interfered = false;
                for (int i = 0; i < pipelined; i++) {
                    if (checkpoint > 0 && random.nextInt(3) == 0) {
                        interfered = true;
                        interferences++;
                        if (!partitioned && random.nextInt(3) == 0) {
                            ForeignWriter.compact(dir.toString(), definition.toSchema());
                        } else {
                            foreignId =
                                    appendForeignRows(
                                            definition.toSchema(),
                                            random,
                                            generator,
                                            changes.get(i),
                                            committed,
                                            foreignId);
                        }
                    }
                    long planned = 0;
                    for (PartitionWriteResult result : prepared.get(i)) {
                        planned += result.compaction().inputs().size();
                    }
                    CommitOutcome outcome =
                            harness.commitPrepared(checkpointIds.get(i), prepared.get(i));
                    vectorsWritten += outcome.stats().deletionVectorsWritten();
                    filesCompacted += outcome.stats().filesCompacted();
                    if (outcome.stats().filesCompacted() < planned) {
                        compactionsDropped++;
                    }
                    assertThat(outcome.status())
                            .isNotEqualTo(CommitOutcome.Status.ALREADY_COMMITTED);
                    if (!interfered) {
                        assertThat(outcome.remergedPartitions()).isZero();
                    }
                    changes.get(i)
                            .forEach(
                                    (identity, row) -> {
                                        if (row == null) {
                                            committed.remove(identity);
                                        } else {
                                            committed.put(identity, row);
                                        }
                                    });
                    assertThat(Rows.sorted(harness.read()))
                            .as("table after checkpoint %d", checkpointIds.get(i))
                            .isEqualTo(Rows.sorted(committed.values()));
                    checkpoint++;
                }
            }
        }
        assertThat(interferences).isPositive();
        COMPACTED.merge(mode, filesCompacted, Long::sum);
        DROPPED.addAndGet(compactionsDropped);
        System.out.printf(
                "%s %s partitioned=%s: %d files compacted, compaction dropped in %d commits%n",
                mode, distribution, partitioned, filesCompacted, compactionsDropped);
        assertThat(vectorsWritten > 0).isEqualTo(mode == WriteMode.DELETION_VECTORS);
    }

    /**
     * Appends a few rows as another writer: some with an identity the next commit changes (it must
     * win over them), some with ids of their own (they must stay).
     *
     * @return the next id of the other writer's own rows
     */
    private long appendForeignRows(
            TableSchema schema,
            Random random,
            Generator generator,
            Map<List<Object>, Object[]> nextCommit,
            Map<List<Object>, Object[]> committed,
            long foreignId) {
        List<List<Object>> changed = new ArrayList<>(nextCommit.keySet());
        Map<String, List<Object[]>> byRegion = new LinkedHashMap<>();
        int rows = 1 + random.nextInt(4);
        for (int i = 0; i < rows; i++) {
            long id;
            String region;
            if (!changed.isEmpty() && random.nextBoolean()) {
                List<Object> identity = changed.get(random.nextInt(changed.size()));
                id = (Long) identity.get(identity.size() - 1);
                region =
                        identity.size() == 2
                                ? (String) identity.get(0)
                                : UpsertDifferentialTest.REGIONS.get(
                                        random.nextInt(UpsertDifferentialTest.REGIONS.size()));
            } else {
                id = foreignId--;
                region =
                        UpsertDifferentialTest.REGIONS.get(
                                random.nextInt(UpsertDifferentialTest.REGIONS.size()));
            }
            Object[] row = {id, region, -1, "foreign"};
            if (committed.containsKey(generator.identity(id, region))
                    && !nextCommit.containsKey(generator.identity(id, region))) {
                continue;
            }
            byRegion.computeIfAbsent(
                            schema.isPartitioned() ? region : "", unused -> new ArrayList<>())
                    .add(row);
            committed.put(generator.identity(id, region), row);
        }
        byRegion.forEach(
                (region, regionRows) ->
                        ForeignWriter.append(
                                dir.toString(),
                                schema,
                                schema.isPartitioned()
                                        ? new PartitionValues(Arrays.asList((Object) region))
                                        : PartitionValues.UNPARTITIONED,
                                regionRows,
                                random.nextBoolean()
                                        ? ForeignWriter.Statistics.EXACT
                                        : ForeignWriter.Statistics.NONE));
        return foreignId;
    }
}
