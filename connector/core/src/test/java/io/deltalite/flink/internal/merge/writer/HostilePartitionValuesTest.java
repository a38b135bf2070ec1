package io.deltalite.flink.internal.merge.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.testing.HostileValues;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition values that need escaping in a directory name or in the Delta log's URI-encoded paths
 * round-trip, and a partition written under such a value is found again by the next merge.
 */
class HostilePartitionValuesTest {
    private static final TableDefinition TABLE =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("p", ValueType.of(Kind.STRING), true),
                            new ValueType.Field("v", ValueType.of(Kind.INT), true)),
                    List.of("id"),
                    List.of("p"),
                    Map.of());

    static final List<String> HOSTILE = HostileValues.PARTITION_STRINGS;

    @TempDir Path dir;

    @Test
    void hostileValuesRoundTripAndAreReplacedBySecondUpsert() {
        try (UpsertHarness harness = open()) {
            long id = 0;
            for (String value : HOSTILE) {
                harness.upsert(id++, value, 1);
            }
            assertThat(harness.commit().status()).isEqualTo(CommitOutcome.Status.COMMITTED);

            id = 0;
            for (String value : HOSTILE) {
                harness.upsert(id++, value, 2);
            }
            CommitOutcome second = harness.commit();
            assertThat(second.remergedPartitions()).isZero();
            assertThat(second.stats().rowsUpdated()).isEqualTo(HOSTILE.size());
            assertThat(second.stats().rowsInserted()).isZero();

            List<Object[]> expected = new ArrayList<>();
            id = 0;
            for (String value : HOSTILE) {
                expected.add(new Object[] {id++, value, 2});
            }
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    @Test
    void emptyStringAndNullAreTheNullPartitionInTheDefaultDirectory() {
        try (UpsertHarness harness = open()) {
            harness.upsert(1L, "", 1);
            harness.upsert(2L, null, 1);
            harness.commit();
            // '' and null are one partition: this replaces the row stored under ''.
            harness.upsert(1L, null, 2);
            CommitOutcome second = harness.commit();
            assertThat(second.stats().rowsUpdated()).isEqualTo(1);

            assertThat(Rows.sorted(harness.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {1L, null, 2},
                                            new Object[] {2L, null, 1})));
            assertThat(KernelTableReader.liveFiles(dir.toString()).values())
                    .isNotEmpty()
                    .allSatisfy(
                            file ->
                                    assertThat(file.logPath())
                                            .startsWith("p=__HIVE_DEFAULT_PARTITION__/"));
        }
    }

    /**
     * The writer merges checkpoint 2 against checkpoint 1's files before they are committed, so the
     * paths it wrote must be the paths the log lists once they are: otherwise the committer sees a
     * changed partition and merges again.
     */
    @Test
    void pendingFilesInHostilePartitionsAreTheFilesTheLogLists() {
        try (UpsertHarness harness = open()) {
            long id = 0;
            for (String value : HOSTILE) {
                harness.upsert(id++, value, 1);
            }
            harness.upsert(id, null, 1);
            List<PartitionWriteResult> first = harness.prepare();
            long firstCheckpoint = harness.lastCheckpoint();

            id = 0;
            for (String value : HOSTILE) {
                harness.upsert(id++, value, 2);
            }
            harness.upsert(id, "", 2);
            List<PartitionWriteResult> second = harness.prepare();
            long secondCheckpoint = harness.lastCheckpoint();

            assertThat(harness.commitPrepared(firstCheckpoint, first).remergedPartitions())
                    .isZero();
            CommitOutcome outcome = harness.commitPrepared(secondCheckpoint, second);
            assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(outcome.remergedPartitions()).isZero();

            List<Object[]> expected = new ArrayList<>();
            id = 0;
            for (String value : HOSTILE) {
                expected.add(new Object[] {id++, value, 2});
            }
            expected.add(new Object[] {id, null, 2});
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    private UpsertHarness open() {
        return UpsertHarness.open(dir.toString(), TABLE, MergeOptions.DEFAULTS);
    }
}
