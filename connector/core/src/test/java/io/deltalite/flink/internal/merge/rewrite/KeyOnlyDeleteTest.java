package io.deltalite.flink.internal.merge.rewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteInvalidInputException;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Deletes that carry nothing but the key (PostgreSQL's REPLICA IDENTITY DEFAULT) on a table
 * partitioned outside its key: they name the null partition, while the row is in another. Such a
 * delete must not silently leave the row: it fails the checkpoint, unless the null partition really
 * holds the key.
 */
class KeyOnlyDeleteTest {
    private static TableDefinition orders(WriteMode mode) {
        return new TableDefinition(
                List.of(
                        new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                        new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                        new ValueType.Field("amount", ValueType.of(Kind.INT), true)),
                List.of("id"),
                List.of("day"),
                Map.of(
                        "delta.enableDeletionVectors",
                        Boolean.toString(mode == WriteMode.DELETION_VECTORS)));
    }

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aKeyOnlyDeleteOfARowInAnotherPartitionFailsTheCheckpointAndCommitsNothing(WriteMode mode) {
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), orders(mode), options)) {
            harness.upsert(1L, "2024-06-01", 10);
            harness.upsert(2L, "2024-06-02", 20);
            harness.commit();
            long before = KernelTableReader.latestVersion(dir.toString());

            harness.upsert(3L, "2024-06-02", 30);
            harness.delete(1L, null, null);
            assertThatThrownBy(harness::commit)
                    .isInstanceOf(DeltaLiteInvalidInputException.class)
                    .hasMessageContaining("A delete of key (id=1) carries nothing but its key")
                    .hasMessageContaining("[day]")
                    .hasMessageContaining("names partition day=null")
                    .hasMessageContaining("while partition day='2024-06-01' holds that key")
                    .hasMessageContaining("REPLICA IDENTITY FULL")
                    .hasMessageContaining("Nothing of this checkpoint was committed");
            assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(before);
        }
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(
                        Rows.sorted(
                                List.of(
                                        new Object[] {1L, "2024-06-01", 10},
                                        new Object[] {2L, "2024-06-02", 20})));
    }

    /** Debezium puts '' (0, false, the epoch) into NOT NULL columns it has no value for. */
    @Test
    void aKeyOnlyDeleteWithTheZeroValuesOfNotNullColumnsFailsToo() {
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(), orders(WriteMode.COPY_ON_WRITE), MergeOptions.DEFAULTS)) {
            harness.upsert(1L, "2024-06-01", 10);
            harness.commit();
            harness.delete(1L, "", 0);
            assertThatThrownBy(harness::commit)
                    .isInstanceOf(DeltaLiteInvalidInputException.class)
                    .hasMessageContaining("while partition day='2024-06-01' holds that key");
            // A delete with a value outside the key is a whole row: deleted where it names.
            harness.delete(1L, "", 5);
            harness.commit();
        }
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "2024-06-01", 10})));
    }

    /**
     * The zero values of NOT NULL composite columns are empty too: an empty array or map, a struct
     * of zero values. Taken for a whole row, such a delete would name partition day='' and leave
     * the row where it is.
     */
    @Test
    void aKeyOnlyDeleteWithEmptyArraysMapsAndStructsInNotNullColumnsFailsToo() {
        TableDefinition profiles =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                                new ValueType.Field("day", ValueType.of(Kind.STRING), false),
                                new ValueType.Field(
                                        "tags",
                                        new ValueType.Array(ValueType.of(Kind.STRING), true),
                                        false),
                                new ValueType.Field(
                                        "attributes",
                                        new ValueType.Map(
                                                ValueType.of(Kind.STRING),
                                                ValueType.of(Kind.STRING),
                                                true),
                                        false),
                                new ValueType.Field(
                                        "address",
                                        new ValueType.Struct(
                                                List.of(
                                                        new ValueType.Field(
                                                                "city",
                                                                ValueType.of(Kind.STRING),
                                                                false),
                                                        new ValueType.Field(
                                                                "zip",
                                                                ValueType.of(Kind.INT),
                                                                true))),
                                        false)),
                        List.of("id"),
                        List.of("day"),
                        Map.of());
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), profiles, MergeOptions.DEFAULTS)) {
            harness.upsert(
                    1L,
                    "2024-06-01",
                    List.of("a"),
                    Map.of("k", "v"),
                    new Object[] {"Lisbon", 1000});
            harness.commit();
            harness.delete(1L, "", List.of(), Map.of(), new Object[] {"", null});
            assertThatThrownBy(harness::commit)
                    .isInstanceOf(DeltaLiteInvalidInputException.class)
                    .hasMessageContaining("while partition day='2024-06-01' holds that key");
            // An element, an entry or a field with a value make a whole row.
            harness.delete(1L, "", List.of(""), Map.of(), new Object[] {"", null});
            harness.delete(1L, "", List.of(), Map.of("", ""), new Object[] {"", null});
            harness.delete(1L, "", List.of(), Map.of(), new Object[] {"", 7});
            harness.commit();
        }
        assertThat(KernelTableReader.readAll(dir.toString())).hasSize(1);
    }

    @Test
    void aRowWhoseEveryColumnButTheKeyIsNullIsDeletedAsUsual() {
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(), orders(WriteMode.COPY_ON_WRITE), MergeOptions.DEFAULTS)) {
            harness.upsert(1L, null, null);
            harness.upsert(2L, null, 20);
            harness.upsert(3L, "2024-06-01", 30);
            harness.commit();
            // Both rows of the null partition: one with nothing but its key, one with an amount.
            harness.delete(1L, null, null);
            harness.delete(2L, null, null);
            harness.commit();
            assertThat(Rows.sorted(harness.read()))
                    .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {3L, "2024-06-01", 30})));
        }
    }

    @Test
    void aKeyOnlyDeleteOfARowInsertedInTheSameCheckpointIsFound() {
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(), orders(WriteMode.COPY_ON_WRITE), MergeOptions.DEFAULTS)) {
            harness.upsert(1L, null, 10);
            harness.delete(1L, null, null);
            harness.upsert(2L, "2024-06-01", 20);
            harness.commit();
            assertThat(Rows.sorted(harness.read()))
                    .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {2L, "2024-06-01", 20})));
        }
    }

    @Test
    void aKeyOnlyDeleteOfAKeyNoPartitionHoldsChangesNothing() {
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(), orders(WriteMode.COPY_ON_WRITE), MergeOptions.DEFAULTS)) {
            harness.upsert(1L, "2024-06-01", 10);
            harness.commit();
            harness.delete(99L, null, null);
            harness.commit();
            assertThat(Rows.sorted(harness.read()))
                    .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "2024-06-01", 10})));
        }
    }

    @Test
    void aKeyOnlyDeleteOfARowUpsertedElsewhereInTheSameCheckpointFails() {
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(), orders(WriteMode.COPY_ON_WRITE), MergeOptions.DEFAULTS)) {
            harness.upsert(1L, "2024-06-01", 10);
            harness.delete(1L, null, null);
            assertThatThrownBy(harness::commit)
                    .isInstanceOf(DeltaLiteInvalidInputException.class)
                    .hasMessageContaining("while partition day='2024-06-01' holds that key");
        }
        assertThat(KernelTableReader.readAll(dir.toString())).isEmpty();
    }

    /** A whole row that is empty but for its key moves out of its partition: nothing to refuse. */
    @Test
    void aRowThatIsEmptyButForItsKeyMovesOutOfItsPartition() {
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(), orders(WriteMode.COPY_ON_WRITE), MergeOptions.DEFAULTS)) {
            harness.upsert(1L, null, null);
            harness.upsert(2L, "", 0);
            harness.commit();
            // -U in the partition that holds the row, +U in another, in one checkpoint.
            harness.delete(1L, null, null);
            harness.upsert(1L, "2024-06-02", 5);
            harness.delete(2L, "", 0);
            harness.upsert(2L, "2024-06-03", 6);
            harness.commit();
            assertThat(Rows.sorted(harness.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {1L, "2024-06-02", 5},
                                            new Object[] {2L, "2024-06-03", 6})));
        }
    }

    /** The key's row is in a partition only this writer's uncommitted checkpoint created. */
    @Test
    void aKeyOnlyDeleteOfARowOfAPendingCheckpointFails() {
        try (UpsertHarness harness =
                UpsertHarness.open(
                        dir.toString(), orders(WriteMode.COPY_ON_WRITE), MergeOptions.DEFAULTS)) {
            harness.upsert(1L, "2024-06-07", 10);
            long late = harness.lastCheckpoint() + 1;
            List<PartitionWriteResult> pending = harness.prepareAs(late);
            harness.delete(1L, null, null);
            assertThatThrownBy(() -> harness.prepareAs(late + 1))
                    .isInstanceOf(DeltaLiteInvalidInputException.class)
                    .hasMessageContaining("while partition day='2024-06-07' holds that key");
            assertThat(pending).isNotEmpty();
        }
    }

    /**
     * The key-only deletes fill the buffer and are merged early, the row's upsert still buffered.
     */
    @Test
    void anEarlyMergeOfKeyOnlyDeletesSeesUpsertsStillBuffered() {
        MergeOptions small = MergeOptions.DEFAULTS.withMaxBufferedBytes(4096);
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), orders(WriteMode.COPY_ON_WRITE), small)) {
            harness.upsert(1L, "2024-06-07", 10);
            // The early merge fails the write that filled the buffer (or the commit).
            assertThatThrownBy(
                            () -> {
                                for (long id = 1; id < 400; id++) {
                                    harness.delete(id, null, null);
                                }
                                harness.commit();
                            })
                    .isInstanceOf(DeltaLiteInvalidInputException.class)
                    .hasMessageContaining("(id=1)")
                    .hasMessageContaining("while partition day='2024-06-07' holds that key");
        }
        assertThat(KernelTableReader.readAll(dir.toString())).isEmpty();
    }

    /**
     * A key-only delete, then the key written into the partition the delete named (an update that
     * empties the partition column): the old row in another partition would stay beside the new
     * one, so the checkpoint fails.
     */
    @Test
    void aKeyWrittenIntoTheEmptyPartitionAfterItsKeyOnlyDeleteFailsWhenAnotherPartitionHoldsIt() {
        MergeOptions options = MergeOptions.DEFAULTS;
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), orders(WriteMode.DELETION_VECTORS), options)) {
            harness.upsert(1L, "2024-06-01", 10);
            harness.commit();
            long before = KernelTableReader.latestVersion(dir.toString());

            harness.delete(1L, null, null);
            harness.upsert(1L, null, 5);
            assertThatThrownBy(harness::commit)
                    .isInstanceOf(DeltaLiteInvalidInputException.class)
                    .hasMessageContaining("A delete of key (id=1) carries nothing but its key")
                    .hasMessageContaining("while partition day='2024-06-01' holds that key");
            assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(before);
        }
    }

    @Test
    void aTablePartitionedByKeyColumnsOnlyNeedsNoCheck() {
        TableDefinition byRegion =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("region", ValueType.of(Kind.STRING), false),
                                new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                                new ValueType.Field("amount", ValueType.of(Kind.INT), true)),
                        List.of("region", "id"),
                        List.of("region"),
                        Map.of());
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), byRegion, MergeOptions.DEFAULTS)) {
            harness.upsert("eu", 1L, 10);
            harness.commit();
            // A key-only delete names the partition here: it deletes the row, or nothing.
            harness.delete("eu", 1L, null);
            harness.delete("us", 9L, null);
            harness.commit();
            assertThat(harness.read()).isEmpty();
        }
    }
}
