package io.deltalite.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one-off pass over a table that was written without inline compaction. */
class DeltaLiteCompactionTest {
    private static final TableDefinition EVENTS_BY_DAY =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(ValueType.Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(ValueType.Kind.STRING), true),
                            new ValueType.Field("v", ValueType.of(ValueType.Kind.STRING), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    @TempDir Path dir;

    @Test
    void aFragmentedTableEndsWithOneFilePerPartitionAndTheSameRows() {
        Random random = new Random(3);
        MergeOptions uncompacted = MergeOptions.DEFAULTS.withCompaction(CompactionOptions.DISABLED);
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), EVENTS_BY_DAY, uncompacted)) {
            for (int checkpoint = 0; checkpoint < 40; checkpoint++) {
                for (int i = 0; i < 20; i++) {
                    harness.upsert(
                            (long) random.nextInt(5000),
                            "2026-11-0" + (1 + random.nextInt(3)),
                            "c" + checkpoint);
                }
                harness.commit();
            }
        }
        List<String> before = Rows.sorted(KernelTableReader.readAll(dir.toString()));
        long versionBefore = KernelTableReader.latestVersion(dir.toString());
        int filesBefore = KernelTableReader.readByFile(dir.toString()).size();
        assertThat(filesBefore).isGreaterThan(60);

        UpsertStats stats = DeltaLiteCompaction.forTable(dir.toString()).run();

        // Files of a first round that a second packs again count twice.
        assertThat(stats.filesCompacted()).isGreaterThanOrEqualTo(filesBefore);
        assertThat(KernelTableReader.readByFile(dir.toString())).hasSize(3);
        assertThat(stats.liveFiles()).isEqualTo(3);
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString()))).isEqualTo(before);
        assertThat(Rows.sorted(KernelTableReader.readVersion(dir.toString(), versionBefore)))
                .isEqualTo(before);
        // Every action of the pass's commits rearranges rows; none changes data.
        List<JsonNode> actions = new ArrayList<>();
        for (long version = versionBefore + 1; version <= stats.version(); version++) {
            actions.addAll(DeltaHistory.actions(dir, version));
        }
        assertThat(actions)
                .filteredOn(action -> action.has("add") || action.has("remove"))
                .isNotEmpty()
                .allMatch(
                        action ->
                                !(action.has("add") ? action.get("add") : action.get("remove"))
                                        .get("dataChange")
                                        .asBoolean());
        assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();

        // A second pass finds nothing to do and commits nothing.
        long version = KernelTableReader.latestVersion(dir.toString());
        assertThat(DeltaLiteCompaction.forTable(dir.toString()).run().filesCompacted()).isZero();
        assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(version);

        // The sink keeps upserting into the compacted table by the key it recorded.
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), EVENTS_BY_DAY, MergeOptions.DEFAULTS)) {
            harness.upsert(1L, "2026-11-01", "after");
            harness.commit();
        }
        assertThat(KernelTableReader.readAll(dir.toString()))
                .filteredOn(row -> row[0].equals(1L))
                .hasSize(1);
    }

    @Test
    void thePassCompactsBesideASinkThatKeepsCommittingToTheSamePartitions() throws Exception {
        MergeOptions uncompacted = MergeOptions.DEFAULTS.withCompaction(CompactionOptions.DISABLED);
        Map<Long, Object[]> model = new java.util.concurrent.ConcurrentHashMap<>();
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), EVENTS_BY_DAY, uncompacted)) {
            for (long checkpoint = 0; checkpoint < 30; checkpoint++) {
                for (long id = checkpoint * 10; id < checkpoint * 10 + 10; id++) {
                    Object[] row = {id, "2026-11-0" + (1 + id % 2), "v" + checkpoint};
                    harness.upsert(row);
                    model.put(id, row);
                }
                harness.commit();
            }
            java.util.concurrent.atomic.AtomicReference<UpsertStats> pass =
                    new java.util.concurrent.atomic.AtomicReference<>();
            Thread compaction =
                    new Thread(() -> pass.set(DeltaLiteCompaction.forTable(dir.toString()).run()));
            compaction.start();
            // The sink adds files to both partitions and updates its own new rows meanwhile: every
            // commit changes both partitions, none touches a file the pass reads (a change to one
            // rightly drops the pass's bin; CompactionTest covers that).
            long next = 1000;
            while (compaction.isAlive()) {
                Object[] insert = {next, "2026-11-0" + (1 + next % 2), "new"};
                long updated = 1000 + (next - 1000) / 2;
                Object[] update = {updated, "2026-11-0" + (1 + updated % 2), "updated"};
                harness.upsert(insert);
                harness.upsert(update);
                model.put((Long) insert[0], insert);
                model.put((Long) update[0], update);
                next++;
                harness.commit();
            }
            compaction.join();
            // One more checkpoint: the writer then deletes the files of its last one that a
            // re-merge at commit replaced.
            Object[] last = {next, "2026-11-01", "last"};
            harness.upsert(last);
            model.put(next, last);
            harness.commit();
            assertThat(pass.get().filesCompacted())
                    .as("files compacted beside the sink")
                    .isPositive();
        }
        assertThat(Rows.sorted(KernelTableReader.readAll(dir.toString())))
                .isEqualTo(Rows.sorted(model.values()));
        assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
    }

    @Test
    void aSmallBudgetSpreadsThePassOverSeveralCommits() {
        MergeOptions uncompacted = MergeOptions.DEFAULTS.withCompaction(CompactionOptions.DISABLED);
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), EVENTS_BY_DAY, uncompacted)) {
            for (long checkpoint = 0; checkpoint < 12; checkpoint++) {
                harness.upsert(checkpoint, "2026-11-01", "v");
                harness.commit();
            }
        }
        long versionBefore = KernelTableReader.latestVersion(dir.toString());
        long fileSize =
                KernelTableReader.liveFiles(dir.toString()).values().iterator().next().size();

        UpsertStats stats =
                DeltaLiteCompaction.forTable(dir.toString())
                        .option(
                                DeltaLiteOptions.COMPACTION_MAX_BYTES_PER_CHECKPOINT,
                                new MemorySize(fileSize * 4 + fileSize / 2))
                        .run();

        // A commit reads at most four and a half files: twelve take at least three commits.
        assertThat(stats.version() - versionBefore).isGreaterThanOrEqualTo(3);
        assertThat(KernelTableReader.readByFile(dir.toString()).size()).isBetween(1, 3);
        assertThat(KernelTableReader.readAll(dir.toString())).hasSize(12);
    }
}
