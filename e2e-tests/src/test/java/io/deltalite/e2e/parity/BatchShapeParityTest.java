package io.deltalite.e2e.parity;

import static io.deltalite.e2e.parity.Change.delete;
import static io.deltalite.e2e.parity.Change.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shape of a batch does not change the outcome: deltalite and MERGE agree on empty batches, on
 * batches that replace every row, and on batches whose keys are spread over many row groups.
 */
class BatchShapeParityTest {
    private static final TableDefinition ORDERS = ParityTables.orders(true);

    /** Small row groups: a few thousand rows of a partition span dozens of them. */
    private static final MergeOptions SMALL_ROW_GROUPS =
            MergeOptions.DEFAULTS.withRowGroupSizeBytes(4096).withReadBatchSize(64);

    @TempDir Path dir;

    @Test
    @GeneratedScenario("empty batches")
    void emptyBatchesMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        ORDERS.toSchema(),
                        31,
                        ChangeGenerator.Mix.DEFAULT,
                        random -> order(random, 50));
        try (DifferentialRun run = DifferentialRun.start("empty batches, seed 31", dir, ORDERS)) {
            for (int size : new int[] {0, 30, 0, 0, 30, 0}) {
                run.apply(generator.batch(size));
            }
        }
    }

    @Test
    @HandWrittenScenario("empty batches")
    void emptyBatchesMatchMergeAndCommitNothingOnHandWrittenBatches() {
        try (DifferentialRun run = DifferentialRun.start("empty batches", dir, ORDERS)) {
            assertThat(run.apply(List.of()).status())
                    .as("an empty batch on a new table")
                    .isEqualTo(CommitOutcome.Status.NOTHING_TO_COMMIT);
            run.apply(List.of(upsert(1L, "d1", 10, "a"), upsert(2L, "d2", 20, "b")));
            long version = KernelTableReader.latestVersion(run.deltalitePath());
            assertThat(run.apply(List.of()).status())
                    .as("an empty batch on a table with rows")
                    .isEqualTo(CommitOutcome.Status.NOTHING_TO_COMMIT);
            assertThat(KernelTableReader.latestVersion(run.deltalitePath()))
                    .as("deltalite's table version after an empty batch")
                    .isEqualTo(version);
            run.apply(List.of(upsert(1L, "d1", 11, "a2")));
        }
    }

    @Test
    @GeneratedScenario("replacing every row")
    void replacingEveryRowMatchesMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        ORDERS.toSchema(),
                        32,
                        ChangeGenerator.Mix.DEFAULT,
                        random -> order(random, 400));
        try (DifferentialRun run =
                DifferentialRun.start("every row replaced, seed 32", dir, ORDERS)) {
            run.apply(generator.batch(300));
            for (int i = 0; i < 3; i++) {
                List<Change> everyRow = generator.replaceEveryStoredRow();
                CommitOutcome outcome = run.apply(everyRow);
                assertThat(outcome.stats().rowsUpdated())
                        .as("rows deltalite updated, of %d stored", everyRow.size())
                        .isEqualTo(everyRow.size());
                assertThat(outcome.stats().rowsCopied()).as("rows deltalite copied").isZero();
            }
        }
    }

    @Test
    @HandWrittenScenario("replacing every row")
    void replacingEveryRowMatchesMergeOnHandWrittenBatches() {
        try (DifferentialRun run = DifferentialRun.start("every row replaced", dir, ORDERS)) {
            run.apply(
                    List.of(
                            upsert(1L, "d1", 10, "a"),
                            upsert(2L, "d1", 20, "b"),
                            upsert(3L, "d2", 30, "c"),
                            upsert(4L, null, 40, "d")));
            run.apply(
                    List.of(
                            upsert(1L, "d1", 11, "a2"),
                            upsert(2L, "d1", 21, "b2"),
                            upsert(3L, "d2", 31, "c2"),
                            upsert(4L, null, 41, "d2")));
            run.apply(
                    List.of(
                            upsert(4L, null, 42, null),
                            upsert(3L, "d2", 32, null),
                            upsert(2L, "d1", 22, null),
                            upsert(1L, "d1", 12, null)));
        }
    }

    @Test
    @GeneratedScenario("batches spanning many row groups")
    void batchesSpanningManyRowGroupsMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        ORDERS.toSchema(),
                        33,
                        ChangeGenerator.Mix.DEFAULT,
                        random -> order(random, 4000, "d0"));
        try (DifferentialRun run =
                DifferentialRun.start("many row groups, seed 33", dir, ORDERS, SMALL_ROW_GROUPS)) {
            run.apply(generator.batch(4000));
            assertThat(fewestRowGroupsPerFile(run.deltalitePath()))
                    .as("row groups in each of deltalite's files")
                    .isGreaterThanOrEqualTo(10);
            run.applyAll(generator.batches(3, 300));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("batches spanning many row groups")
    void batchesSpanningManyRowGroupsMatchMergeOnHandWrittenBatches() {
        try (DifferentialRun run =
                DifferentialRun.start("many row groups", dir, ORDERS, SMALL_ROW_GROUPS)) {
            List<Change> load = new ArrayList<>();
            for (long id = 0; id < 3000; id++) {
                load.add(upsert(id, "d1", (int) id, "a note long enough to fill row groups " + id));
            }
            run.apply(load);
            assertThat(fewestRowGroupsPerFile(run.deltalitePath()))
                    .as("row groups in each of deltalite's files")
                    .isGreaterThanOrEqualTo(20);
            List<Change> spread = new ArrayList<>();
            for (long id = 0; id < 3000; id += 7) {
                spread.add(delete(id, "d1", null, null));
            }
            for (long id = 5; id < 3000; id += 10) {
                spread.add(upsert(id, "d1", -1, "updated"));
            }
            // The first and the last row of the file.
            spread.add(upsert(1L, "d1", -1, "first row group"));
            spread.add(upsert(2999L, "d1", -1, "last row group"));
            run.apply(spread);
            run.apply(List.of(upsert(0L, "d1", 0, "back"), delete(2999L, "d1", null, null)));
        }
    }

    /** The number of Parquet row groups of the live file that has the fewest. */
    private static int fewestRowGroupsPerFile(String table) {
        int fewest = Integer.MAX_VALUE;
        for (String file : KernelTableReader.liveFiles(table).keySet()) {
            try (ParquetFileReader reader =
                    ParquetFileReader.open(
                            HadoopInputFile.fromPath(
                                    new org.apache.hadoop.fs.Path(file), new Configuration()))) {
                fewest = Math.min(fewest, reader.getFooter().getBlocks().size());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return fewest;
    }

    private static Object[] order(Random random, int ids) {
        return order(random, ids, random.nextInt(4) == 0 ? null : "d" + random.nextInt(3));
    }

    private static Object[] order(Random random, int ids, String day) {
        return new Object[] {
            (long) random.nextInt(ids),
            day,
            random.nextInt(1_000_000),
            random.nextInt(5) == 0 ? null : "note " + random.nextInt(1_000_000)
        };
    }
}
