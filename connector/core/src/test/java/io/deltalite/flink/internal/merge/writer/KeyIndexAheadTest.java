package io.deltalite.flink.internal.merge.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.index.KeyIndex;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A writer builds a partition's key index while it buffers the partition's changes, not while the
 * checkpoint waits for its merge: once the index is ready, the checkpoint reads no key column. A
 * fresh writer (a job start, a failover) on an unpartitioned table does so for its first
 * checkpoint; on a partitioned table with {@code key-index = auto}, for a partition's second merge
 * (the first one probes, as before).
 */
class KeyIndexAheadTest {
    private static final int ROWS = 3_000;

    @TempDir Path dir;

    private static TableDefinition items(boolean partitioned) {
        return new TableDefinition(
                List.of(
                        new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                        new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                        new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                List.of("id"),
                partitioned ? List.of("day") : List.of(),
                Map.of("delta.enableDeletionVectors", "true"));
    }

    /** The rows another job wrote before this writer started, all on day {@code d1}. */
    private List<Object[]> seed(boolean partitioned) {
        List<Object[]> rows = new ArrayList<>();
        try (UpsertHarness earlier =
                UpsertHarness.open(
                        dir.toString(), items(partitioned), MergeOptions.DEFAULTS, "earlier")) {
            for (long id = 0; id < ROWS; id++) {
                Object[] row = {id, "d1", "v" + id};
                earlier.upsert(row);
                rows.add(row);
            }
            earlier.commit();
        }
        return rows;
    }

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aFreshWriterOnAnUnpartitionedTableIndexesItWhileTheFirstCheckpointIsBuffered(
            WriteMode mode) throws InterruptedException {
        List<Object[]> expected = seed(false);
        try (UpsertHarness writer =
                UpsertHarness.open(
                        dir.toString(),
                        items(false),
                        MergeOptions.DEFAULTS.withWriteMode(mode),
                        "job")) {
            writer.upsert(7L, "d1", "changed");
            KeyIndex index = awaitIndexedKeys(writer, ROWS);
            long rowsRead = index.stats().rowsRead();
            writer.upsert(8L, "d1", "changed too");

            UpsertStats stats = writer.commit().stats();

            assertThat(index.stats().rowsRead())
                    .as("key column rows the checkpoint read")
                    .isEqualTo(rowsRead);
            assertThat(stats.filesProbed()).isZero();
            assertThat(stats.rowsUpdated()).isEqualTo(2);
            expected.set(7, new Object[] {7L, "d1", "changed"});
            expected.set(8, new Object[] {8L, "d1", "changed too"});
            assertThat(Rows.sorted(writer.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    @Test
    void withAutoAPartitionIsIndexedAheadOfItsSecondMergeNotItsFirst() throws InterruptedException {
        List<Object[]> expected = seed(true);
        try (UpsertHarness writer =
                UpsertHarness.open(dir.toString(), items(true), MergeOptions.DEFAULTS, "job")) {
            writer.upsert(7L, "d1", "changed");
            UpsertStats first = writer.commit().stats();
            assertThat(first.filesProbed()).as("the first merge probes").isPositive();
            assertThat(writer.writer().keyIndex().stats().keys()).isZero();

            writer.upsert(8L, "d1", "changed too");
            KeyIndex index = awaitIndexedKeys(writer, ROWS);
            long rowsRead = index.stats().rowsRead();
            UpsertStats second = writer.commit().stats();

            assertThat(index.stats().rowsRead())
                    .as("key column rows the second checkpoint read")
                    .isEqualTo(rowsRead);
            assertThat(second.filesProbed()).isZero();
            expected.set(7, new Object[] {7L, "d1", "changed"});
            expected.set(8, new Object[] {8L, "d1", "changed too"});
            assertThat(Rows.sorted(writer.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    @Test
    void withTheIndexOffNothingIsBuilt() {
        seed(false);
        MergeOptions off =
                MergeOptions.DEFAULTS.withKeyIndex(
                        KeyIndexOptions.DEFAULTS.withMode(KeyIndexMode.OFF));
        long buildThreadsBefore = buildThreads();
        try (UpsertHarness writer = UpsertHarness.open(dir.toString(), items(false), off, "job")) {
            writer.upsert(7L, "d1", "changed");
            // A build ahead starts its thread when the change is taken, before upsert returns.
            assertThat(buildThreads())
                    .as("threads building an index ahead (an earlier test's may be ending)")
                    .isLessThanOrEqualTo(buildThreadsBefore);
            assertThat(writer.writer().keyIndex()).isNull();
            assertThat(writer.commit().stats().filesProbed()).isPositive();
        }
    }

    @Test
    void theBuildThreadsOfTwoTablesSayWhichTableEachServes() {
        MergeOptions options = MergeOptions.DEFAULTS;
        try (UpsertHarness orders =
                        UpsertHarness.open(
                                dir.resolve("orders").toString(), items(false), options, "job");
                UpsertHarness customers =
                        UpsertHarness.open(
                                dir.resolve("customers/").toString(),
                                items(false),
                                options,
                                "job")) {
            // A build ahead starts its thread when the change is taken, before upsert returns.
            orders.upsert(7L, "d1", "v");
            customers.upsert(7L, "d1", "v");

            assertThat(
                            Thread.getAllStackTraces().keySet().stream()
                                    .map(Thread::getName)
                                    .filter(name -> name.startsWith("deltalite-key-index-")))
                    .as("two writers of subtask 0, one per table")
                    .contains(
                            "deltalite-key-index-orders-0-1", "deltalite-key-index-customers-0-1");
        }
    }

    private static long buildThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("deltalite-key-index-"))
                .count();
    }

    /**
     * Waits until the writer's index holds {@code keys} keys and has counted the rows it read for
     * them (it counts them once a partition's build ends, after the keys are in): built before any
     * merge asked.
     */
    private static KeyIndex awaitIndexedKeys(UpsertHarness writer, long keys)
            throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            KeyIndex index = writer.writer().keyIndex();
            if (index != null) {
                KeyIndex.Stats stats = index.stats();
                if (stats.keys() >= keys && stats.rowsRead() >= keys) {
                    return index;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError(
                "the writer did not index its partition's "
                        + keys
                        + " keys before the checkpoint in 30 s");
    }
}
