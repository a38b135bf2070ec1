package io.deltalite.flink.internal.merge.changes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteInvalidInputException;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.NullKeyPolicy;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change the table cannot take fails with a message naming the column and the problem, before it
 * is buffered: nothing of it is ever committed.
 */
class InvalidInputTest {
    private static final TableDefinition PAYMENTS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("amount", new ValueType.Decimal(5, 2), true),
                            new ValueType.Field("note", ValueType.of(Kind.STRING), true),
                            new ValueType.Field(
                                    "payer",
                                    new ValueType.Struct(
                                            List.of(
                                                    new ValueType.Field(
                                                            "name",
                                                            ValueType.of(Kind.STRING),
                                                            true),
                                                    new ValueType.Field(
                                                            "since",
                                                            ValueType.of(Kind.DATE),
                                                            true))),
                                    true)),
                    List.of("id"),
                    List.of(),
                    Map.of());

    private static final MergeOptions SMALL_BUFFER =
            MergeOptions.DEFAULTS.withMaxBufferedBytes(4096);

    @TempDir Path dir;

    private UpsertHarness harness;
    private long versionBefore;

    @BeforeEach
    void openTableWithOneCommittedRow() {
        harness = UpsertHarness.open(dir.toString(), PAYMENTS, SMALL_BUFFER);
        harness.upsert(1L, new BigDecimal("1.00"), "first", null);
        harness.commit();
        versionBefore = KernelTableReader.latestVersion(dir.toString());
    }

    @org.junit.jupiter.api.AfterEach
    void close() {
        harness.close();
    }

    @Test
    void aRowLargerThanTheChangeBufferFails() {
        String huge = "x".repeat(8192);
        assertInvalid(
                () -> harness.upsert(2L, new BigDecimal("2.00"), huge, null),
                "larger than the change buffer of 4096 bytes",
                "max-buffered-bytes");
    }

    /**
     * With the automatic budget, whether a row is taken does not depend on how many writers share
     * the JVM: a row larger than a writer's share (here the smallest, many writers being open) is
     * taken and committed; only a row above the fixed largest size is refused.
     */
    @Test
    void aRowLargerThanAnAutomaticShareIsTakenHoweverManyWritersShareTheJvm() {
        List<BufferBudget> others = new java.util.ArrayList<>();
        try (UpsertHarness automatic =
                UpsertHarness.open(
                        dir.resolve("auto").toString(), PAYMENTS, MergeOptions.DEFAULTS)) {
            while (BufferBudget.current(BufferBudget.AUTO) > BufferBudget.MIN_AUTO_BYTES) {
                others.add(BufferBudget.forWriter(BufferBudget.AUTO));
            }
            String large = "x".repeat((int) BufferBudget.MIN_AUTO_BYTES);
            assertThat(RowSizeEstimator.estimate(new Object[] {2L, null, large, null}))
                    .isGreaterThan(BufferBudget.MIN_AUTO_BYTES);
            automatic.upsert(2L, new BigDecimal("2.00"), large, null);
            automatic.commit();
            assertThat(automatic.read()).hasSize(1);
            assertThat(automatic.read().get(0)[2]).isEqualTo(large);

            String huge = "x".repeat((int) BufferBudget.MAX_AUTO_ROW_BYTES);
            assertThatThrownBy(() -> automatic.upsert(3L, new BigDecimal("3.00"), huge, null))
                    .isInstanceOf(DeltaLiteInvalidInputException.class)
                    .hasMessageContaining(
                            "larger than the largest row an automatic change buffer takes"
                                    + " (67108864 bytes)")
                    .hasMessageContaining("Set 'max-buffered-bytes' above the row's size");
        } finally {
            others.forEach(BufferBudget::close);
        }
    }

    @Test
    void aRowWithTheWrongNumberOfValuesFails() {
        assertInvalid(
                () -> harness.upsert(2L, new BigDecimal("2.00"), "three values"),
                "has 3 values",
                "4 columns [id, amount, note, payer]");
    }

    @Test
    void aValueOfTheWrongJavaTypeFailsNamingTheColumn() {
        assertInvalid(
                () -> harness.upsert(2, new BigDecimal("2.00"), "int for bigint", null),
                "Column 'id' (bigint)",
                "expected Long");
    }

    @Test
    void aDecimalWithMoreDigitsThanItsColumnFails() {
        assertInvalid(
                () -> harness.upsert(2L, new BigDecimal("1000.00"), "too large", null),
                "Column 'amount' (decimal(5,2))",
                "6 digits, more than the column's 5");
    }

    @Test
    void aDecimalWithAnotherScaleFails() {
        assertInvalid(
                () -> harness.upsert(2L, new BigDecimal("2.5"), "scale 1", null),
                "Column 'amount' (decimal(5,2))",
                "scale 1 differs from the column's 2");
    }

    @Test
    void aNullInANotNullColumnFails() {
        assertInvalid(
                () -> harness.upsert(null, new BigDecimal("2.00"), "no id", null),
                "Column 'id' (bigint)",
                "NOT NULL");
    }

    @Test
    void aNestedFieldOfTheWrongTypeFailsNamingTheField() {
        assertInvalid(
                () ->
                        harness.upsert(
                                2L,
                                new BigDecimal("2.00"),
                                "date as string",
                                new Object[] {"ann", "2024-01-01"}),
                "Column 'payer'",
                "field 'since': expected Integer");
    }

    @Test
    void aDeleteOfAMalformedRowFailsToo() {
        assertInvalid(() -> harness.delete("1", null, null, null), "Column 'id'", "expected Long");
    }

    @Test
    void aNullKeyFailsUnderTheFailPolicyNamingTheColumn() {
        TableDefinition nullableKey =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("k", ValueType.of(Kind.STRING), true),
                                new ValueType.Field("v", ValueType.of(Kind.INT), true)),
                        List.of("k"),
                        List.of(),
                        Map.of());
        String location = dir.resolve("strict").toString();
        try (UpsertHarness strict =
                UpsertHarness.open(
                        location,
                        nullableKey,
                        MergeOptions.DEFAULTS.withNullKeyPolicy(NullKeyPolicy.FAIL))) {
            long version = KernelTableReader.latestVersion(location);
            assertThatThrownBy(() -> strict.upsert(null, 1))
                    .isInstanceOf(DeltaLiteInvalidInputException.class)
                    .hasMessageContaining("primary-key column 'k'")
                    .hasMessageContaining("null-key-policy");
            assertThat(KernelTableReader.latestVersion(location)).isEqualTo(version);
        }
    }

    @Test
    void aMapWithANullKeyFailsSayingThatDeltaMapKeysCannotBeNull() {
        TableDefinition tagged =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                                new ValueType.Field(
                                        "tags",
                                        new ValueType.Map(
                                                ValueType.of(Kind.STRING),
                                                ValueType.of(Kind.STRING),
                                                true),
                                        true)),
                        List.of("id"),
                        List.of(),
                        Map.of());
        try (UpsertHarness tags =
                UpsertHarness.open(dir.resolve("tags").toString(), tagged, MergeOptions.DEFAULTS)) {
            Map<String, String> nullKey = new java.util.HashMap<>();
            nullKey.put(null, "x");
            assertThatThrownBy(() -> tags.upsert(1L, nullKey))
                    .isInstanceOf(DeltaLiteInvalidInputException.class)
                    .hasMessageContaining("tags")
                    .hasMessageContaining("Delta map keys cannot be null");
        }
    }

    /**
     * The change fails with both fragments in its message; the table is unchanged, and the next
     * checkpoint commits the valid changes without it.
     */
    private void assertInvalid(Runnable change, String what, String why) {
        harness.upsert(3L, new BigDecimal("3.00"), "valid, buffered before", null);
        assertThatThrownBy(change::run)
                .isInstanceOf(DeltaLiteInvalidInputException.class)
                .hasMessageContaining(what)
                .hasMessageContaining(why);
        assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(versionBefore);

        harness.commit();
        assertThat(Rows.sorted(harness.read()))
                .isEqualTo(
                        Rows.sorted(
                                List.of(
                                        new Object[] {1L, new BigDecimal("1.00"), "first", null},
                                        new Object[] {
                                            3L,
                                            new BigDecimal("3.00"),
                                            "valid, buffered before",
                                            null
                                        })));
    }
}
