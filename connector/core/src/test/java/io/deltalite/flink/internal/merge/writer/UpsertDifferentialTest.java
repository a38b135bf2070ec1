package io.deltalite.flink.internal.merge.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.BuildSample;
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
 * Long random sequences of upserts and deletes, applied by the engine to a real table and to an
 * in-memory model in which each change simply replaces or removes the row of its key. After every
 * commit the table read back must equal the model.
 *
 * <p>The sequences vary the key distribution, move keys between partitions, merge early when the
 * change buffer is small, and sometimes prepare the next checkpoint before the previous one is
 * committed, so the writer plans against its own pending results.
 */
class UpsertDifferentialTest {
    /** Files compacted per write mode over all sequences: in some, merges rewrite every file. */
    private static final Map<WriteMode, Long> COMPACTED =
            new java.util.concurrent.ConcurrentHashMap<>();

    @org.junit.jupiter.api.AfterAll
    static void compactionRanInEveryWriteMode() {
        assertThat(COMPACTED.keySet()).hasSize(2);
        COMPACTED.forEach(
                (mode, files) -> assertThat(files).as("files compacted in %s", mode).isPositive());
    }

    private static final int CHECKPOINTS = 25;

    static final TableDefinition EVENTS_BY_REGION = definition(true);
    static final TableDefinition EVENTS = definition(false);
    static final List<String> REGIONS = Arrays.asList("eu", "us", "apac", null);

    @TempDir Path dir;

    /** How the keys of the changes are drawn. */
    enum KeyDistribution {
        /** A few dozen keys, changed again and again, often several times per checkpoint. */
        SMALL_DOMAIN,
        /** Keys spread over a huge range; some changes hit keys seen before. */
        LARGE_SPARSE,
        /** Most changes hit a handful of hot keys, the rest a wide range. */
        HOT_KEYS,
        /** Keys arrive in increasing order; updates and deletes hit recent keys. */
        SEQUENTIAL
    }

    /**
     * Each write mode with each key distribution, on a partitioned or an unpartitioned table: which
     * of the two rotates with the build's sample ({@link BuildSample}; {@code -Dtests.all=true}
     * runs all sixteen sequences). A sequence's seed depends only on its three parameters (1000 to
     * 1015).
     */
    static Stream<Arguments> sequences() {
        List<Object[]> modesAndDistributions = new ArrayList<>();
        long seed = 1000;
        for (WriteMode mode : List.of(WriteMode.COPY_ON_WRITE, WriteMode.DELETION_VECTORS)) {
            for (KeyDistribution distribution : KeyDistribution.values()) {
                modesAndDistributions.add(new Object[] {mode, distribution, seed});
                seed += 2;
            }
        }
        return BuildSample.eachWithOneOf(
                "UpsertDifferentialTest.sequences",
                modesAndDistributions,
                List.of(true, false),
                (sequence, partitioned) ->
                        Arguments.of(
                                sequence[0],
                                sequence[1],
                                partitioned,
                                (long) sequence[2] + (partitioned ? 0 : 1)))
                .stream();
    }

    @ParameterizedTest(name = "{0}, {1}, partitioned={2}, seed={3}")
    @MethodSource("sequences")
    void tableEqualsModelAfterEveryCommit(
            WriteMode mode, KeyDistribution distribution, boolean partitioned, long seed) {
        Random random = new Random(seed);
        Generator generator = new Generator(distribution, random, partitioned);
        long vectorsWritten = 0;
        long filesCompacted = 0;
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(),
                        definition(partitioned, mode),
                        randomOptions(random, mode))) {
            int checkpoint = 0;
            while (checkpoint < CHECKPOINTS) {
                // Sometimes prepare a second checkpoint before the first is committed.
                int pipelined = random.nextInt(4) == 0 ? 2 : 1;
                List<List<PartitionWriteResult>> prepared = new ArrayList<>();
                List<Long> checkpointIds = new ArrayList<>();
                List<List<String>> expected = new ArrayList<>();
                for (int i = 0; i < pipelined; i++) {
                    generator.applyChanges(harness, 1 + random.nextInt(checkpoint < 3 ? 300 : 150));
                    prepared.add(harness.prepare());
                    checkpointIds.add(harness.lastCheckpoint());
                    expected.add(Rows.sorted(generator.model.values()));
                }
                for (int i = 0; i < pipelined; i++) {
                    CommitOutcome outcome =
                            harness.commitPrepared(checkpointIds.get(i), prepared.get(i));
                    vectorsWritten += outcome.stats().deletionVectorsWritten();
                    filesCompacted += outcome.stats().filesCompacted();
                    assertThat(outcome.status())
                            .isNotEqualTo(CommitOutcome.Status.ALREADY_COMMITTED);
                    // Nobody else writes: the writer's view of its own pending work was exact.
                    assertThat(outcome.remergedPartitions()).isZero();
                    assertThat(outcome.attempts()).isLessThanOrEqualTo(1);
                    assertThat(Rows.sorted(harness.read()))
                            .as("table after checkpoint %d", checkpointIds.get(i))
                            .isEqualTo(expected.get(i));
                    checkpoint++;
                }
            }
        }
        COMPACTED.merge(mode, filesCompacted, Long::sum);
        // Each mode really took its path: vectors only where they were asked for.
        if (mode == WriteMode.DELETION_VECTORS) {
            assertThat(vectorsWritten).isPositive();
        } else {
            assertThat(vectorsWritten).isZero();
        }
    }

    /** The events table for {@code mode}: with deletion vectors allowed when it writes them. */
    static TableDefinition definition(boolean partitioned, WriteMode mode) {
        TableDefinition plain = partitioned ? EVENTS_BY_REGION : EVENTS;
        if (mode == WriteMode.COPY_ON_WRITE) {
            return plain;
        }
        return new TableDefinition(
                plain.columns(),
                plain.primaryKey(),
                plain.partitionColumns(),
                Map.of("delta.enableDeletionVectors", "true"));
    }

    /**
     * {@link #randomOptions(Random)} in write mode {@code mode}; with deletion vectors, a rewrite
     * threshold that sometimes sends files back to copy-on-write.
     */
    static MergeOptions randomOptions(Random random, WriteMode mode) {
        MergeOptions options = randomOptions(random).withWriteMode(mode);
        if (mode == WriteMode.DELETION_VECTORS) {
            double[] thresholds = {0.05, 0.3, 0.5, 1.0};
            // Small files are rewritten, not marked: keep some of these tiny files above it.
            CompactionOptions compaction = options.compaction();
            options =
                    options.withDeletionVectorRewriteThreshold(
                                    thresholds[random.nextInt(thresholds.length)])
                            .withCompaction(
                                    new CompactionOptions(
                                            true,
                                            256 + random.nextInt(1024),
                                            compaction.maxBytesPerCheckpoint(),
                                            compaction.deletedRowsThreshold()));
        }
        return options;
    }

    private static TableDefinition definition(boolean partitioned) {
        return new TableDefinition(
                List.of(
                        new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                        new ValueType.Field("region", ValueType.of(Kind.STRING), true),
                        new ValueType.Field("version", ValueType.of(Kind.INT), true),
                        new ValueType.Field("payload", ValueType.of(Kind.STRING), true)),
                List.of("id"),
                partitioned ? List.of("region") : List.of(),
                Map.of());
    }

    /**
     * Small files, row groups and batches, a buffer small enough to merge early, in parts, and
     * compaction that treats most files as small, sometimes on a budget of a few bins.
     */
    static MergeOptions randomOptions(Random random) {
        long[] budgets = {32 << 10, 16 << 20};
        return MergeOptions.DEFAULTS
                .withTargetFileSizeBytes(2048 + random.nextInt(6144))
                .withRowGroupSizeBytes(1024)
                .withReadBatchSize(16 + random.nextInt(100))
                .withMaxParallelFiles(1 + random.nextInt(3))
                .withMaxBufferedBytes(8192 + random.nextInt(32768))
                .withCompaction(
                        new CompactionOptions(
                                true,
                                4096 + random.nextInt(16384),
                                budgets[random.nextInt(budgets.length)],
                                0.05 + random.nextDouble() * 0.5));
    }

    /** Draws changes, applies them to the engine and to the model. */
    static final class Generator {
        private final KeyDistribution distribution;
        private final Random random;
        private final boolean partitioned;

        /** The model: rows by identity (partition, id). */
        final Map<List<Object>, Object[]> model = new LinkedHashMap<>();

        /** Where each stored id lives, to delete it there or move it elsewhere. */
        private final Map<Long, String> regionOf = new HashMap<>();

        /** The last change of each identity since {@link #drainChanges()}; null is a delete. */
        private Map<List<Object>, Object[]> changes = new LinkedHashMap<>();

        private final List<Long> seen = new ArrayList<>();
        private long nextSequential;
        private int version;

        Generator(KeyDistribution distribution, Random random, boolean partitioned) {
            this.distribution = distribution;
            this.random = random;
            this.partitioned = partitioned;
        }

        void applyChanges(UpsertHarness harness, int changes) {
            for (int i = 0; i < changes; i++) {
                long id = nextId();
                String stored = regionOf.get(id);
                boolean exists = regionOf.containsKey(id);
                int dice = random.nextInt(10);
                if (!exists) {
                    if (dice == 0) {
                        // Deleting a key that is not there changes nothing.
                        delete(harness, id, randomRegion());
                    } else {
                        upsert(harness, id, randomRegion());
                    }
                } else if (dice < 6) {
                    upsert(harness, id, stored);
                } else if (dice < 8) {
                    delete(harness, id, stored);
                } else {
                    // A move: delete in the old partition, upsert in the new one.
                    delete(harness, id, stored);
                    upsert(harness, id, randomRegion());
                }
            }
        }

        private long nextId() {
            long id =
                    switch (distribution) {
                        case SMALL_DOMAIN -> random.nextInt(40);
                        case LARGE_SPARSE ->
                                !seen.isEmpty() && random.nextInt(3) == 0
                                        ? seen.get(random.nextInt(seen.size()))
                                        : random.nextLong() >>> 24;
                        case HOT_KEYS ->
                                random.nextInt(5) < 4 ? random.nextInt(8) : random.nextInt(5000);
                        case SEQUENTIAL ->
                                nextSequential > 0 && random.nextInt(3) == 0
                                        ? Math.max(0, nextSequential - 1 - random.nextInt(200))
                                        : nextSequential++;
                    };
            seen.add(id);
            return id;
        }

        private String randomRegion() {
            return REGIONS.get(random.nextInt(REGIONS.size()));
        }

        private void upsert(UpsertHarness harness, long id, String region) {
            Object[] row = {id, region, ++version, random.nextInt(4) == 0 ? null : "p" + version};
            harness.upsert(row.clone());
            model.put(identity(id, region), row);
            changes.put(identity(id, region), row);
            regionOf.put(id, region);
        }

        private void delete(UpsertHarness harness, long id, String region) {
            // As CDC sources send a delete: with the row's values (its before image). A delete
            // with nothing but its key in the null partition must find its row there
            // (KeyOnlyDeleteTest).
            Object[] before = model.get(identity(id, region));
            harness.delete(id, region, before == null ? -1 : before[2], null);
            model.remove(identity(id, region));
            changes.put(identity(id, region), null);
            if (!partitioned || equal(regionOf.get(id), region)) {
                regionOf.remove(id);
            }
        }

        /** The net changes since the last call, by identity; a null row is a delete. */
        Map<List<Object>, Object[]> drainChanges() {
            Map<List<Object>, Object[]> drained = changes;
            changes = new LinkedHashMap<>();
            return drained;
        }

        List<Object> identity(long id, String region) {
            return partitioned ? Arrays.asList(region, id) : List.of(id);
        }

        private static boolean equal(String left, String right) {
            return left == null ? right == null : left.equals(right);
        }
    }
}
