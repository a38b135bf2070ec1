package io.deltalite.flink.internal.merge.rewrite;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.ForeignWriter;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.PruneStrategy;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a merge finds the files that hold a changed key: statistics rule files out, the probe reads
 * the key columns of the rest, and exactly the files that hold a changed key are rewritten.
 */
class PartitionMergerProbeTest {
    /** The probe itself is what these tests watch: no key index answers instead. */
    private static final MergeOptions PROBING =
            MergeOptions.DEFAULTS.withKeyIndex(
                    KeyIndexOptions.DEFAULTS.withMode(io.deltalite.flink.sink.KeyIndexMode.OFF));

    private static final TableDefinition EVENTS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), true),
                            new ValueType.Field("payload", ValueType.of(Kind.STRING), true)),
                    List.of("id"),
                    List.of(),
                    Map.of());

    @TempDir Path dir;

    @Test
    void rewritesExactlyTheFilesThatHoldAChangedKey() {
        MergeOptions options = PROBING.withTargetFileSizeBytes(1024).withMaxParallelFiles(3);
        Random random = new Random(20240611L);
        TreeMap<Long, Object[]> model = new TreeMap<>();
        try (UpsertHarness harness = UpsertHarness.open(location(), EVENTS, options)) {
            // Several commits of random keys: files with overlapping key ranges, so statistics
            // alone cannot tell which file holds a key.
            for (int commit = 0; commit < 6; commit++) {
                for (int i = 0; i < 150; i++) {
                    long id = random.nextInt(3000);
                    upsert(harness, model, id, "initial " + commit);
                }
                harness.commit();
            }
            for (int round = 0; round < 12; round++) {
                Map<String, List<Object[]>> filesBefore = KernelTableReader.readByFile(location());
                assertThat(filesBefore.size()).isGreaterThan(10);
                List<Long> existing = new ArrayList<>(model.keySet());
                Set<Long> changed = new HashSet<>();
                int count = 1 + random.nextInt(round < 6 ? 3 : 25);
                for (int i = 0; i < count; i++) {
                    long id =
                            random.nextInt(4) == 0
                                    ? random.nextInt(3000)
                                    : existing.get(random.nextInt(existing.size()));
                    changed.add(id);
                    if (random.nextInt(3) == 0) {
                        delete(harness, model, id);
                    } else {
                        upsert(harness, model, id, "round " + round);
                    }
                }

                List<PartitionWriteResult> results = harness.prepare();
                Set<String> removed = new HashSet<>();
                long probed = 0;
                for (PartitionWriteResult result : results) {
                    result.removedFiles().forEach(file -> removed.add(file.path()));
                    probed += result.stats().filesProbed();
                }
                assertThat(removed)
                        .as("round %d, keys %s", round, changed)
                        .isEqualTo(filesHoldingAnyOf(filesBefore, changed));
                assertThat(probed).isGreaterThanOrEqualTo(removed.size());
                harness.commitPrepared(harness.lastCheckpoint(), results);
                assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(model.values()));
            }
        }
    }

    @Test
    void findsAKeyThatOnlyTheLastRowGroupHolds() throws IOException {
        MergeOptions options = PROBING.withRowGroupSizeBytes(1);
        try (UpsertHarness harness = UpsertHarness.open(location(), EVENTS, options)) {
            for (long id = 0; id < 2000; id += 2) {
                harness.upsert(id, "even " + id);
            }
            harness.commit();
            Map<String, List<Object[]>> files = KernelTableReader.readByFile(location());
            assertThat(files).hasSize(1);
            List<BlockMetaData> rowGroups = rowGroups(files.keySet().iterator().next());
            assertThat(rowGroups).hasSizeGreaterThan(2);
            long largestBeforeLast = 0;
            for (BlockMetaData rowGroup : rowGroups.subList(0, rowGroups.size() - 1)) {
                largestBeforeLast =
                        Math.max(largestBeforeLast, (Long) idStatistics(rowGroup).genericGetMax());
            }
            assertThat(largestBeforeLast).isLessThan(1998L);

            // 1001 lies within the file's key range but is not in it: probed, not rewritten.
            harness.upsert(1001L, "odd");
            UpsertStats miss = harness.commit().stats();
            assertThat(miss.filesProbed()).isEqualTo(1);
            assertThat(miss.filesRemoved()).isZero();
            assertThat(miss.rowsInserted()).isEqualTo(1);

            harness.upsert(1998L, "last");
            UpsertStats hit = harness.commit().stats();
            assertThat(hit.filesRemoved()).isEqualTo(1);
            assertThat(hit.rowsUpdated()).isEqualTo(1);
            assertThat(hit.rowsCopied()).isEqualTo(999);

            List<Object[]> rows = harness.read();
            assertThat(rows).hasSize(1001);
            assertThat(rows)
                    .filteredOn(row -> row[0].equals(1998L))
                    .singleElement()
                    .satisfies(row -> assertThat(row[1]).isEqualTo("last"));
        }
    }

    @Test
    void aCompositeKeyMatchesOnlyItsFullTuple() {
        TableDefinition pairs =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("a", ValueType.of(Kind.INT), false),
                                new ValueType.Field("b", ValueType.of(Kind.STRING), false),
                                new ValueType.Field("v", ValueType.of(Kind.INT), true)),
                        List.of("a", "b"),
                        List.of(),
                        Map.of());
        try (UpsertHarness harness = UpsertHarness.open(location(), pairs, PROBING)) {
            harness.upsert(1, "x", 1);
            harness.upsert(2, "y", 1);
            harness.commit();

            // (1, "y") is within the bounds of both columns, but no row holds the pair.
            harness.upsert(1, "y", 2);
            UpsertStats crossed = harness.commit().stats();
            assertThat(crossed.filesProbed()).isEqualTo(1);
            assertThat(crossed.filesRemoved()).isZero();
            assertThat(crossed.rowsInserted()).isEqualTo(1);

            harness.upsert(2, "y", 3);
            UpsertStats matched = harness.commit().stats();
            assertThat(matched.filesRemoved()).isEqualTo(1);
            assertThat(matched.rowsUpdated()).isEqualTo(1);

            assertThat(Rows.sorted(harness.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {1, "x", 1},
                                            new Object[] {1, "y", 2},
                                            new Object[] {2, "y", 3})));
        }
    }

    @Test
    void aNullKeyNeverMatches() {
        try (UpsertHarness harness = UpsertHarness.open(location(), EVENTS, PROBING)) {
            harness.upsert(null, "first null");
            harness.upsert(1L, "one");
            harness.commit();

            harness.upsert(null, "second null");
            UpsertStats upsert = harness.commit().stats();
            assertThat(upsert.nullKeyRows()).isEqualTo(1);
            assertThat(upsert.rowsInserted()).isEqualTo(1);
            assertThat(upsert.rowsUpdated()).isZero();
            assertThat(upsert.filesRemoved()).isZero();

            long version = KernelTableReader.latestVersion(location());
            harness.delete(null, null);
            CommitOutcome delete = harness.commit();
            assertThat(delete.status()).isEqualTo(CommitOutcome.Status.NOTHING_TO_COMMIT);
            assertThat(KernelTableReader.latestVersion(location())).isEqualTo(version);

            assertThat(Rows.sorted(harness.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {null, "first null"},
                                            new Object[] {null, "second null"},
                                            new Object[] {1L, "one"})));
        }
    }

    @Test
    void aKeyWithOneNullComponentNeverMatches() {
        TableDefinition pairs =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("a", ValueType.of(Kind.INT), true),
                                new ValueType.Field("b", ValueType.of(Kind.STRING), true),
                                new ValueType.Field("v", ValueType.of(Kind.INT), true)),
                        List.of("a", "b"),
                        List.of(),
                        Map.of());
        try (UpsertHarness harness = UpsertHarness.open(location(), pairs, PROBING)) {
            harness.upsert(1, null, 1);
            harness.upsert(null, "x", 1);
            harness.commit();

            harness.upsert(1, null, 2);
            harness.upsert(null, "x", 2);
            harness.delete(1, null, null);
            UpsertStats stats = harness.commit().stats();
            assertThat(stats.filesRemoved()).isZero();
            assertThat(stats.rowsDeleted()).isZero();
            assertThat(stats.nullKeyRows()).isEqualTo(3);

            assertThat(harness.read()).hasSize(4);
        }
    }

    @Test
    void aFileWithoutStatisticsIsProbed() {
        TableSchema schema = EVENTS.toSchema();
        try (UpsertHarness harness = UpsertHarness.open(location(), EVENTS, PROBING)) {
            for (long id = 0; id < 10; id++) {
                harness.upsert(id, "deltalite " + id);
            }
            harness.commit();
            List<Object[]> foreign = new ArrayList<>();
            for (long id = 100; id < 110; id++) {
                foreign.add(new Object[] {id, "foreign " + id});
            }
            String file =
                    ForeignWriter.append(
                            location(),
                            schema,
                            PartitionValues.UNPARTITIONED,
                            foreign,
                            ForeignWriter.Statistics.NONE);
            assertThat(KernelTableReader.liveFiles(location()).get(file).stats()).isNull();

            // Far outside the range of deltalite's file: only the file without statistics is read.
            harness.upsert(5000L, "new");
            UpsertStats miss = harness.commit().stats();
            assertThat(miss.filesProbed()).isEqualTo(1);
            assertThat(miss.filesRemoved()).isZero();

            harness.upsert(105L, "updated");
            UpsertStats hit = harness.commit().stats();
            assertThat(hit.filesProbed()).isEqualTo(1);
            assertThat(hit.filesRemoved()).isEqualTo(1);
            assertThat(hit.rowsUpdated()).isEqualTo(1);

            List<Object[]> rows = harness.read();
            assertThat(rows).hasSize(21);
            assertThat(rows)
                    .filteredOn(row -> row[0].equals(105L))
                    .singleElement()
                    .satisfies(row -> assertThat(row[1]).isEqualTo("updated"));
        }
    }

    /**
     * Kernel reads the decimal bounds of the log through a double: a bound another writer recorded
     * exactly comes back rounded, and must still not rule out the file.
     */
    @Test
    void exactDecimalBoundsOfAnotherWriterDoNotHideTheKey() {
        BigDecimal amount = new BigDecimal("1234567890123456789012345678.0123456789");
        TableDefinition definition = keyedBy(new ValueType.Decimal(38, 10));
        try (UpsertHarness harness = UpsertHarness.open(location(), definition, PROBING)) {
            String file = appendForeignRow(definition, amount);
            assertThat(KernelTableReader.liveFiles(location()).get(file).stats())
                    .contains("\"k\":" + amount.toPlainString());

            assertReplacesForeignRow(harness, amount, amount);
        }
    }

    /**
     * Kernel writes binary bounds as UTF-8 text, so bytes that are not UTF-8 come back as U+FFFD;
     * such a bound must not rule out the file.
     */
    @Test
    void binaryBoundsThatKernelWroteAsTextDoNotHideTheKey() {
        byte[] tag = {(byte) 0x80, 0x00, (byte) 0xFF};
        TableDefinition definition = keyedBy(ValueType.of(Kind.BINARY));
        try (UpsertHarness harness = UpsertHarness.open(location(), definition, PROBING)) {
            String file = appendForeignRow(definition, tag);
            assertThat(KernelTableReader.liveFiles(location()).get(file).stats())
                    .contains("\"k\":");

            assertReplacesForeignRow(harness, tag, tag.clone());
        }
    }

    private static TableDefinition keyedBy(ValueType keyType) {
        return new TableDefinition(
                List.of(
                        new ValueType.Field("k", keyType, false),
                        new ValueType.Field("v", ValueType.of(Kind.INT), true)),
                List.of("k"),
                List.of(),
                Map.of());
    }

    private String appendForeignRow(TableDefinition definition, Object key) {
        return ForeignWriter.append(
                location(),
                definition.toSchema(),
                PartitionValues.UNPARTITIONED,
                List.<Object[]>of(new Object[] {key, 1}),
                ForeignWriter.Statistics.EXACT);
    }

    private static void assertReplacesForeignRow(UpsertHarness harness, Object stored, Object key) {
        harness.upsert(key, 2);
        UpsertStats stats = harness.commit().stats();
        assertThat(stats.rowsUpdated()).isEqualTo(1);
        assertThat(stats.filesRemoved()).isEqualTo(1);
        assertThat(Rows.sorted(harness.read()))
                .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {stored, 2})));
    }

    @Test
    void aSparselyFilledKeyRangeIsProbedADenseOneIsNot() {
        try (UpsertHarness harness = UpsertHarness.open(location(), EVENTS, PROBING)) {
            // File 1: ids 0..99 (dense). File 2: ten ids spread over 0..9,000,000 (sparse).
            for (long id = 0; id < 100; id++) {
                harness.upsert(id, "dense");
            }
            harness.commit();
            for (long id = 1_000_000; id <= 10_000_000; id += 1_000_000) {
                harness.upsert(id, "sparse");
            }
            harness.commit();

            // Keys 10..19 exist in file 1; keys 1,000,001..1,000,010 fall in file 2's range
            // but are not in it, so a probe is what tells.
            for (long id = 10; id < 20; id++) {
                harness.upsert(id, "updated");
                harness.upsert(1_000_000 + id - 9, "new");
            }
            UpsertStats stats = harness.commit().stats();
            assertThat(stats.filesProbed()).isEqualTo(1);
            assertThat(stats.filesRemoved()).isEqualTo(1);
            assertThat(stats.rowsUpdated()).isEqualTo(10);
            assertThat(stats.rowsInserted()).isEqualTo(10);
        }
    }

    @Test
    void withTemporalLocalityOnlyTheFileHoldingTheKeysIsRewritten() {
        // Compaction would merge the eight small files: this is about pruning them.
        MergeOptions options = PROBING.withCompaction(CompactionOptions.DISABLED);
        try (UpsertHarness harness = UpsertHarness.open(location(), EVENTS, options)) {
            for (long first = 0; first < 800; first += 100) {
                for (long id = first; id < first + 100; id++) {
                    harness.upsert(id, "initial");
                }
                harness.commit();
            }
            Map<String, List<Object[]>> files = KernelTableReader.readByFile(location());
            assertThat(files).hasSize(8);

            for (long id = 350; id <= 360; id++) {
                harness.upsert(id, "updated");
            }
            List<PartitionWriteResult> results = harness.prepare();
            CommitOutcome outcome = harness.commitPrepared(harness.lastCheckpoint(), results);
            UpsertStats stats = outcome.stats();
            assertThat(stats.filesRemoved()).isEqualTo(1);
            assertThat(stats.filesCarriedOver()).isEqualTo(7);
            // Ids 300..399 fill the file's range densely, with 11 changed keys in it: rewritten
            // without reading its keys first.
            assertThat(stats.filesProbed()).isZero();
            assertThat(stats.rowsUpdated()).isEqualTo(11);
            assertThat(stats.rowsCopied()).isEqualTo(89);
            assertThat(results.get(0).removedFiles())
                    .singleElement()
                    .satisfies(
                            file ->
                                    assertThat(filesHoldingAnyOf(files, Set.of(350L)))
                                            .containsExactly(file.path()));
            assertThat(harness.read()).hasSize(800);
        }
    }

    @Test
    void statsAndNoneStrategiesGiveTheSameTableAsProbe() {
        MergeOptions base = PROBING.withTargetFileSizeBytes(4096);
        Random random = new Random(7L);
        TreeMap<Long, Object[]> model = new TreeMap<>();
        try (UpsertHarness probe =
                        UpsertHarness.open(
                                dir.resolve("probe").toString(),
                                EVENTS,
                                base.withPruneStrategy(PruneStrategy.PROBE));
                UpsertHarness stats =
                        UpsertHarness.open(
                                dir.resolve("stats").toString(),
                                EVENTS,
                                base.withPruneStrategy(PruneStrategy.STATS));
                UpsertHarness none =
                        UpsertHarness.open(
                                dir.resolve("none").toString(),
                                EVENTS,
                                base.withPruneStrategy(PruneStrategy.NONE))) {
            List<UpsertHarness> harnesses = List.of(probe, stats, none);
            for (int checkpoint = 0; checkpoint < 8; checkpoint++) {
                int liveFilesOfNone = KernelTableReader.liveFiles(none.table().location()).size();
                int changes = checkpoint < 3 ? 150 : 1 + random.nextInt(30);
                for (int i = 0; i < changes; i++) {
                    long id = random.nextInt(1000);
                    boolean delete = checkpoint >= 3 && random.nextInt(3) == 0;
                    String payload = "checkpoint " + checkpoint + " change " + i;
                    for (UpsertHarness harness : harnesses) {
                        if (delete) {
                            harness.delete(id, null);
                        } else {
                            harness.upsert(id, payload);
                        }
                    }
                    if (delete) {
                        model.remove(id);
                    } else {
                        model.put(id, new Object[] {id, payload});
                    }
                }
                UpsertStats probeStats = probe.commit().stats();
                UpsertStats statsStats = stats.commit().stats();
                UpsertStats noneStats = none.commit().stats();
                assertThat(statsStats.filesProbed()).isZero();
                assertThat(noneStats.filesProbed()).isZero();
                assertThat(noneStats.filesRemoved()).isEqualTo(liveFilesOfNone);
                assertThat(probeStats.rowsUpdated() + probeStats.rowsDeleted())
                        .isEqualTo(statsStats.rowsUpdated() + statsStats.rowsDeleted())
                        .isEqualTo(noneStats.rowsUpdated() + noneStats.rowsDeleted());
                List<String> expected = Rows.sorted(model.values());
                for (UpsertHarness harness : harnesses) {
                    assertThat(Rows.sorted(harness.read())).isEqualTo(expected);
                }
            }
        }
    }

    private String location() {
        return dir.toString();
    }

    private static void upsert(
            UpsertHarness harness, Map<Long, Object[]> model, long id, String payload) {
        harness.upsert(id, payload);
        model.put(id, new Object[] {id, payload});
    }

    private static void delete(UpsertHarness harness, Map<Long, Object[]> model, long id) {
        harness.delete(id, null);
        model.remove(id);
    }

    /** The ground truth: files whose rows include one of {@code ids}. */
    private static Set<String> filesHoldingAnyOf(Map<String, List<Object[]>> files, Set<Long> ids) {
        Set<String> holding = new HashSet<>();
        files.forEach(
                (path, rows) -> {
                    for (Object[] row : rows) {
                        if (ids.contains((Long) row[0])) {
                            holding.add(path);
                        }
                    }
                });
        return holding;
    }

    private static List<BlockMetaData> rowGroups(String file) throws IOException {
        try (ParquetFileReader reader =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(file), new Configuration()))) {
            return reader.getFooter().getBlocks();
        }
    }

    private static Statistics<?> idStatistics(BlockMetaData rowGroup) {
        return rowGroup.getColumns().stream()
                .filter(column -> column.getPath().toDotString().equals("id"))
                .findFirst()
                .orElseThrow()
                .getStatistics();
    }
}
