package io.deltalite.e2e.parity;

import static io.deltalite.e2e.parity.Change.delete;
import static io.deltalite.e2e.parity.Change.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.testing.HostileValues;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Identity within the partition: deltalite and MERGE agree on partitioned and unpartitioned tables,
 * on keys that move between partitions, on partitions that appear, on many partitions and on
 * partition values that need escaping.
 */
class PartitioningParityTest {
    private static final TableDefinition PARTITIONED = ParityTables.orders(true);
    private static final TableDefinition UNPARTITIONED = ParityTables.orders(false);

    /** The partitioned table with column mapping, on deltalite's tables and MERGE's. */
    private static final TableDefinition COLUMN_MAPPED =
            new TableDefinition(
                    PARTITIONED.columns(),
                    PARTITIONED.primaryKey(),
                    PARTITIONED.partitionColumns(),
                    java.util.Map.of("delta.columnMapping.mode", "name"));

    /** Partition values that a path, a URI or a Hive-style directory name treats specially. */
    static final List<String> HOSTILE = withEmptyAndNull(HostileValues.PARTITION_STRINGS);

    private static List<String> withEmptyAndNull(List<String> values) {
        List<String> all = new ArrayList<>(values);
        all.add("");
        all.add(null);
        return all;
    }

    @TempDir Path dir;

    @Test
    @GeneratedScenario("partitioned table")
    void partitionedTableMatchesMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        PARTITIONED.toSchema(),
                        11,
                        ChangeGenerator.Mix.DEFAULT,
                        random -> order(random, 80, day(random, 4)));
        try (DifferentialRun run =
                DifferentialRun.start("partitioned, seed 11", dir, PARTITIONED)) {
            run.applyAll(generator.batches(5, 40));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @GeneratedScenario("column mapped table")
    void columnMappedTableMatchesMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        COLUMN_MAPPED.toSchema(),
                        13,
                        ChangeGenerator.Mix.DEFAULT,
                        random -> order(random, 80, day(random, 4)));
        try (DifferentialRun run =
                DifferentialRun.start("column mapping, seed 13", dir, COLUMN_MAPPED)) {
            run.applyAll(generator.batches(5, 40));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("partitioned table")
    void partitionedTableMatchesMergeOnHandWrittenBatches() {
        try (DifferentialRun run = DifferentialRun.start("partitioned", dir, PARTITIONED)) {
            run.apply(
                    List.of(
                            upsert(1L, "d1", 10, "a"),
                            upsert(2L, "d1", 20, "b"),
                            upsert(3L, "d2", 30, "c"),
                            // The same key in another partition is another row.
                            upsert(1L, "d2", 11, "other partition"),
                            upsert(4L, null, 40, "null partition")));
            run.apply(
                    List.of(
                            upsert(1L, "d1", 12, "updated in d1 only"),
                            delete(3L, "d2", null, null),
                            upsert(2L, "d2", 21, "now also in d2"),
                            delete(4L, null, null, null),
                            upsert(5L, null, 50, "null partition")));
            run.apply(
                    List.of(
                            delete(1L, "d2", null, null),
                            upsert(3L, "d2", 33, "back"),
                            upsert(5L, null, 51, "updated in the null partition")));
        }
    }

    @Test
    @GeneratedScenario("unpartitioned table")
    void unpartitionedTableMatchesMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        UNPARTITIONED.toSchema(),
                        12,
                        ChangeGenerator.Mix.DEFAULT,
                        random -> order(random, 60, "any"));
        try (DifferentialRun run =
                DifferentialRun.start("unpartitioned, seed 12", dir, UNPARTITIONED)) {
            run.applyAll(generator.batches(5, 40));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("unpartitioned table")
    void unpartitionedTableMatchesMergeOnHandWrittenBatches() {
        try (DifferentialRun run = DifferentialRun.start("unpartitioned", dir, UNPARTITIONED)) {
            run.apply(
                    List.of(
                            upsert(1L, "d1", 10, "a"),
                            upsert(2L, "d1", 20, "b"),
                            upsert(3L, "d2", 30, "c")));
            run.apply(
                    List.of(
                            // Without partitions, the day is just a value: this updates key 1.
                            upsert(1L, "d9", 11, "a2"),
                            delete(2L, "d1", null, null),
                            upsert(4L, "d4", 40, "d")));
            run.apply(List.of(upsert(2L, "d2", 22, "back"), delete(3L, "d7", null, null)));
        }
    }

    @Test
    @GeneratedScenario("keys changing partition")
    void keysChangingPartitionMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        PARTITIONED.toSchema(),
                        13,
                        new ChangeGenerator.Mix(0, 0.1, 0.45, 0.05),
                        random -> order(random, 50, day(random, 3)));
        try (DifferentialRun run =
                DifferentialRun.start("keys changing partition, seed 13", dir, PARTITIONED)) {
            run.applyAll(generator.batches(5, 40));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("keys changing partition")
    void keysChangingPartitionMatchMergeOnHandWrittenBatches() {
        try (DifferentialRun run =
                DifferentialRun.start("keys changing partition", dir, PARTITIONED)) {
            run.apply(
                    List.of(
                            upsert(1L, "d1", 10, "a"),
                            upsert(2L, "d1", 20, "b"),
                            upsert(3L, "d1", 30, "c")));
            run.apply(
                    List.of(
                            // -U in the old partition, +U in the new one.
                            delete(1L, "d1", 10, "a"),
                            upsert(1L, "d2", 11, "moved"),
                            // Two moves in one batch: d1 -> d2 -> d3.
                            delete(2L, "d1", 20, "b"),
                            upsert(2L, "d2", 21, "moving"),
                            delete(2L, "d2", 21, "moving"),
                            upsert(2L, "d3", 22, "moved twice"),
                            // A move to the null partition.
                            delete(3L, "d1", 30, "c"),
                            upsert(3L, null, 31, "moved to null")));
            run.apply(
                    List.of(
                            delete(1L, "d2", 11, "moved"),
                            upsert(1L, "d1", 12, "moved back"),
                            delete(3L, null, 31, "moved to null"),
                            upsert(3L, "d3", 32, "moved out of null")));
        }
    }

    @Test
    @GeneratedScenario("new partitions")
    void newPartitionsMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        PARTITIONED.toSchema(),
                        14,
                        ChangeGenerator.Mix.DEFAULT,
                        random -> order(random, 40, "day-0"));
        try (DifferentialRun run =
                DifferentialRun.start("new partitions, seed 14", dir, PARTITIONED)) {
            for (int batch = 1; batch <= 5; batch++) {
                // Each batch writes to partitions that did not exist before, and to old ones.
                int newest = batch * 2;
                generator.drawRowsFrom(
                        random ->
                                order(
                                        random,
                                        40,
                                        "day-"
                                                + (random.nextBoolean()
                                                        ? newest - random.nextInt(2)
                                                        : random.nextInt(newest + 1))));
                run.apply(generator.batch(40));
            }
        }
    }

    @Test
    @HandWrittenScenario("new partitions")
    void newPartitionsMatchMergeOnHandWrittenBatches() {
        try (DifferentialRun run = DifferentialRun.start("new partitions", dir, PARTITIONED)) {
            run.apply(List.of(upsert(1L, "d1", 10, "a"), upsert(2L, "d1", 20, "b")));
            run.apply(
                    List.of(
                            upsert(1L, "d1", 11, "old partition"),
                            upsert(3L, "d2", 30, "new partition"),
                            upsert(4L, "d3", 40, "another new partition")));
            run.apply(
                    List.of(
                            upsert(5L, null, 50, "the null partition appears"),
                            upsert(3L, "d4", 31, "same key, new partition"),
                            delete(6L, "d5", null, null)));
        }
    }

    @Test
    @GeneratedScenario("many partitions")
    void manyPartitionsMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        PARTITIONED.toSchema(),
                        15,
                        ChangeGenerator.Mix.DEFAULT,
                        random -> order(random, 300, String.format("p%03d", random.nextInt(200))));
        try (DifferentialRun run =
                DifferentialRun.start("many partitions, seed 15", dir, PARTITIONED)) {
            run.applyAll(generator.batches(3, 300));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("many partitions")
    void manyPartitionsMatchMergeOnHandWrittenBatches() {
        try (DifferentialRun run = DifferentialRun.start("many partitions", dir, PARTITIONED)) {
            List<Change> first = new ArrayList<>();
            for (int partition = 0; partition < 150; partition++) {
                first.add(upsert((long) partition, "p" + partition, partition, "first"));
                first.add(upsert(1000L + partition, "p" + partition, partition, "first"));
            }
            run.apply(first);
            List<Change> second = new ArrayList<>();
            for (int partition = 0; partition < 150; partition++) {
                if (partition % 2 == 0) {
                    second.add(upsert((long) partition, "p" + partition, -partition, "second"));
                }
                if (partition % 3 == 0) {
                    second.add(delete(1000L + partition, "p" + partition, null, null));
                }
            }
            run.apply(second);
            assertThat(KernelTableReader.liveFiles(run.deltalitePath()))
                    .as("deltalite wrote at least one file per partition")
                    .hasSizeGreaterThanOrEqualTo(150);
        }
    }

    @Test
    @GeneratedScenario("hostile partition values")
    void hostilePartitionValuesMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        PARTITIONED.toSchema(),
                        16,
                        new ChangeGenerator.Mix(0, 0.15, 0.2, 0.05),
                        random -> order(random, 60, HOSTILE.get(random.nextInt(HOSTILE.size()))));
        try (DifferentialRun run =
                DifferentialRun.start("hostile partition values, seed 16", dir, PARTITIONED)) {
            run.applyAll(generator.batches(4, 60));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("hostile partition values")
    void hostilePartitionValuesMatchMergeOnHandWrittenBatches() {
        try (DifferentialRun run =
                DifferentialRun.start("hostile partition values", dir, PARTITIONED)) {
            List<Change> first = new ArrayList<>();
            List<Change> second = new ArrayList<>();
            List<Change> third = new ArrayList<>();
            for (int i = 0; i < HOSTILE.size(); i++) {
                String value = HOSTILE.get(i);
                String next = HOSTILE.get((i + 1) % HOSTILE.size());
                first.add(upsert((long) i, value, i, "first"));
                first.add(upsert(100L + i, value, i, "first"));
                second.add(upsert((long) i, value, -i, "updated in place"));
                // '' and null are one partition: this deletes what the other wrote.
                third.add(delete(100L + i, value, null, null));
                third.add(upsert(100L + i, next, i, "moved to the next value"));
            }
            run.apply(first);
            run.apply(second);
            run.apply(third);
        }
    }

    private static String day(Random random, int days) {
        int day = random.nextInt(days + 1);
        return day == days ? null : "d" + day;
    }

    /** A random order row with an id below {@code ids}. */
    private static Object[] order(Random random, int ids, String day) {
        return new Object[] {
            (long) random.nextInt(ids),
            day,
            random.nextInt(1_000_000),
            random.nextInt(5) == 0 ? null : "n" + random.nextInt(1000)
        };
    }
}
