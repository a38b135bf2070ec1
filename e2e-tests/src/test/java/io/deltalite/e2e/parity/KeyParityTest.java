package io.deltalite.e2e.parity;

import static io.deltalite.e2e.parity.Change.delete;
import static io.deltalite.e2e.parity.Change.upsert;
import static io.deltalite.e2e.parity.ParityTables.BIGINT;
import static io.deltalite.e2e.parity.ParityTables.INT;
import static io.deltalite.e2e.parity.ParityTables.STRING;
import static io.deltalite.e2e.parity.ParityTables.column;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which stored row a change hits: deltalite and MERGE agree on composite keys, on keys with nulls
 * (which never match), on several changes of one key in a batch (the last wins) and on deletes of
 * keys that are not there.
 */
class KeyParityTest {
    /** {@code tenant STRING, id BIGINT, region STRING, v INT, note STRING}, key (tenant, id). */
    private static final TableDefinition COMPOSITE =
            ParityTables.table(
                    List.of(
                            column("tenant", STRING),
                            column("id", BIGINT),
                            column("region", STRING),
                            column("v", INT),
                            column("note", STRING)),
                    List.of("tenant", "id"),
                    List.of("region"));

    private static final TableDefinition ORDERS = ParityTables.orders(true);

    @TempDir Path dir;

    @Test
    @GeneratedScenario("composite keys")
    void compositeKeysMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        COMPOSITE.toSchema(),
                        21,
                        ChangeGenerator.Mix.DEFAULT,
                        random -> tenantRow(random, 3, 15));
        try (DifferentialRun run =
                DifferentialRun.start("composite keys, seed 21", dir, COMPOSITE)) {
            run.applyAll(generator.batches(5, 40));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("composite keys")
    void compositeKeysMatchMergeOnHandWrittenBatches() {
        try (DifferentialRun run = DifferentialRun.start("composite keys", dir, COMPOSITE)) {
            run.apply(
                    List.of(
                            upsert("t1", 1L, "eu", 1, "t1/1"),
                            upsert("t2", 1L, "eu", 1, "t2/1: same id, other tenant"),
                            upsert("t1", 2L, "eu", 1, "t1/2: same tenant, other id"),
                            upsert("t2", 2L, "us", 1, "t2/2")));
            run.apply(
                    List.of(
                            // Only the row equal in every key column changes.
                            upsert("t1", 1L, "eu", 2, "t1/1 updated"),
                            delete("t2", 1L, "eu", null, null),
                            // (t2, 2) is stored in us, not eu: nothing to delete here.
                            delete("t2", 2L, "eu", null, null),
                            upsert("t3", 1L, "eu", 1, "t3/1")));
            run.apply(
                    List.of(
                            upsert("t2", 1L, "eu", 3, "t2/1 back"),
                            upsert("t1", 2L, "us", 3, "t1/2 also in us")));
        }
    }

    @Test
    @GeneratedScenario("null keys")
    void nullKeysMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        COMPOSITE.toSchema(),
                        22,
                        new ChangeGenerator.Mix(0.25, 0.15, 0.1, 0.05),
                        random -> tenantRow(random, 2, 10));
        try (DifferentialRun run = DifferentialRun.start("null keys, seed 22", dir, COMPOSITE)) {
            run.applyAll(generator.batches(5, 30));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("null keys")
    void nullKeysMatchMergeOnHandWrittenBatches() {
        try (DifferentialRun run = DifferentialRun.start("null keys", dir, COMPOSITE)) {
            run.apply(
                    List.of(
                            upsert(null, 1L, "eu", 1, "null tenant"),
                            upsert("t1", null, "eu", 1, "null id"),
                            upsert(null, null, "eu", 1, "both null"),
                            upsert(null, null, "eu", 1, "both null, again in the same batch"),
                            upsert("t1", 1L, "eu", 1, "a normal key"),
                            upsert(null, 1L, null, 1, "null key in the null partition")));
            run.apply(
                    List.of(
                            // A null key matches nothing: these insert new rows...
                            upsert(null, 1L, "eu", 2, "null tenant, second row"),
                            upsert("t1", null, "eu", 2, "null id, second row"),
                            // ... and these delete nothing.
                            delete(null, 1L, "eu", null, null),
                            delete("t1", null, "eu", null, null),
                            delete(null, null, null, null, null),
                            upsert("t1", 1L, "eu", 2, "the normal key is updated")));
            run.apply(List.of(delete("t1", 1L, "eu", null, null)));
        }
    }

    @Test
    @GeneratedScenario("last change of a key in a batch")
    void lastChangeOfAKeyInABatchWinsLikeMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        ORDERS.toSchema(),
                        23,
                        new ChangeGenerator.Mix(0, 0.25, 0.2, 0.05),
                        // 8 keys and 60 changes a batch: most keys change many times per batch.
                        random ->
                                new Object[] {
                                    (long) random.nextInt(8),
                                    random.nextBoolean() ? "d1" : "d2",
                                    random.nextInt(1000),
                                    "n" + random.nextInt(1000)
                                });
        try (DifferentialRun run =
                DifferentialRun.start("last change wins, seed 23", dir, ORDERS)) {
            // Every batch changes nearly every key: files are removed whole, no vector is written.
            run.applyAll(generator.batches(5, 60));
        }
    }

    @Test
    @HandWrittenScenario("last change of a key in a batch")
    void lastChangeOfAKeyInABatchWinsLikeMergeOnHandWrittenBatches() {
        try (DifferentialRun run = DifferentialRun.start("last change wins", dir, ORDERS)) {
            run.apply(
                    List.of(
                            upsert(3L, "d1", 30, "stored"),
                            upsert(4L, "d1", 40, "stored"),
                            upsert(5L, "d1", 50, "stored")));
            run.apply(
                    List.of(
                            upsert(1L, "d1", 1, "first"),
                            upsert(1L, "d1", 2, "second"),
                            upsert(1L, "d1", 3, "third wins"),
                            upsert(2L, "d1", 1, "inserted"),
                            delete(2L, "d1", null, null),
                            delete(3L, "d1", null, null),
                            upsert(3L, "d1", 31, "deleted, then upserted"),
                            delete(4L, "d1", null, null),
                            upsert(4L, "d1", 41, "deleted, upserted"),
                            delete(4L, "d1", null, null),
                            upsert(5L, "d1", 51, "updated"),
                            delete(5L, "d1", null, null),
                            upsert(5L, "d2", 52, "moved"),
                            upsert(5L, "d1", 53, "and upserted again where it was")));
        }
    }

    @Test
    @GeneratedScenario("deletes of missing keys")
    void deletesOfMissingKeysMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        ORDERS.toSchema(),
                        24,
                        new ChangeGenerator.Mix(0, 0.1, 0.05, 0.45),
                        random ->
                                new Object[] {
                                    (long) random.nextInt(60),
                                    "d" + random.nextInt(3),
                                    random.nextInt(1000),
                                    "n" + random.nextInt(1000)
                                });
        try (DifferentialRun run =
                DifferentialRun.start("deletes of missing keys, seed 24", dir, ORDERS)) {
            run.applyAll(generator.batches(5, 40));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("deletes of missing keys")
    void deletesOfMissingKeysMatchMergeOnHandWrittenBatches() {
        try (DifferentialRun run = DifferentialRun.start("deletes of missing keys", dir, ORDERS)) {
            CommitOutcome onEmptyTable =
                    run.apply(List.of(delete(1L, "d1", null, null), delete(2L, null, null, null)));
            assertThat(onEmptyTable.stats().rowsDeleted())
                    .as("rows deleted from an empty table")
                    .isZero();
            run.apply(List.of(upsert(1L, "d1", 10, "a"), upsert(2L, "d2", 20, "b")));
            CommitOutcome missing =
                    run.apply(
                            List.of(
                                    delete(3L, "d1", null, null),
                                    // Stored, but in another partition than the delete carries.
                                    // (One with nothing but its key, of a key stored elsewhere,
                                    // is refused: MergeDivergenceTest.)
                                    delete(1L, "d2", null, null),
                                    delete(2L, null, 0, "n"),
                                    delete(2L, "", 0, "n"),
                                    // A partition that does not exist.
                                    delete(1L, "d9", null, null)));
            assertThat(missing.stats().rowsDeleted())
                    .as("rows deleted by deletes of keys that are not there")
                    .isZero();
        }
    }

    /** (Negative zero is another key for deltalite, see MergeDivergenceTest.) */
    @Test
    @HandWrittenScenario("floating point keys")
    void floatingPointKeysMatchMergeOnHandWrittenBatches() {
        TableDefinition measures =
                ParityTables.table(
                        List.of(column("k", ValueType.of(ValueType.Kind.DOUBLE)), column("v", INT)),
                        List.of("k"),
                        List.of());
        List<Double> keys =
                List.of(
                        0.0,
                        1.5,
                        -1.5,
                        Double.MIN_VALUE,
                        Double.MAX_VALUE,
                        Double.POSITIVE_INFINITY,
                        Double.NEGATIVE_INFINITY,
                        Double.NaN);
        try (DifferentialRun run = DifferentialRun.start("floating-point keys", dir, measures)) {
            run.apply(keys.stream().map(key -> upsert(key, 1)).toList());
            run.apply(keys.stream().map(key -> upsert(key, 2)).toList());
            // Another NaN bit pattern is the same key.
            run.apply(
                    List.of(
                            delete(Double.longBitsToDouble(0x7ff8000000000001L), null),
                            delete(Double.POSITIVE_INFINITY, null)));
        }
    }

    /** A row of the composite-key table. */
    private static Object[] tenantRow(Random random, int tenants, int ids) {
        return new Object[] {
            "t" + random.nextInt(tenants),
            (long) random.nextInt(ids),
            random.nextInt(3) == 0 ? "us" : "eu",
            random.nextInt(1000),
            "n" + random.nextInt(1000)
        };
    }
}
