package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.HostileValues;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Strings survive every path that copies them from one data file into another — copy-on-write
 * rewrites, the folds of small files, compaction — and string keys are found again, whatever the
 * strings hold: the merge reads string columns as their UTF-8 bytes and decodes them itself ({@code
 * Utf8Strings}). Kernel's own scan reads the table back.
 */
class StringColumnsThroughRewritesTest {
    private static final TableDefinition NOTES =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("name", ValueType.of(Kind.STRING), false),
                            new ValueType.Field("note", ValueType.of(Kind.STRING), true),
                            new ValueType.Field("n", ValueType.of(Kind.BIGINT), true)),
                    List.of("name"),
                    List.of(),
                    Map.of("delta.enableDeletionVectors", "true"));

    /** Every hostile string, the empty one, a combining accent, U+FFFD itself, a long one. */
    private static final List<String> VALUES = values();

    private static List<String> values() {
        List<String> values = new ArrayList<>(HostileValues.PARTITION_STRINGS);
        values.add("");
        values.add("e\u0301t\u0301e\u0301");
        values.add("\uFFFD replacement character");
        values.add("Ω≈ç√∫ ".repeat(300) + "\uD83D\uDE80");
        return values;
    }

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void everyStringSurvivesRewritesFoldsAndCompaction(WriteMode mode) {
        // Every file is small, so that tiers fill and are folded or compacted.
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(mode)
                        .withCompaction(new CompactionOptions(true, 1L << 20, 1L << 30, 0.2));
        String location = dir.resolve(mode.name()).toString();
        Map<String, Object[]> model = new TreeMap<>();
        Random random = new Random(mode.ordinal());
        long copied = 0;
        long compacted = 0;
        try (UpsertHarness harness = UpsertHarness.open(location, NOTES, options)) {
            for (int checkpoint = 0; checkpoint < 12; checkpoint++) {
                for (int i = 0; i < VALUES.size(); i++) {
                    String name = i + ":" + VALUES.get(i);
                    if (checkpoint > 0 && random.nextInt(3) == 0) {
                        continue;
                    }
                    if (checkpoint > 0 && random.nextInt(8) == 0) {
                        harness.delete(name, null, null);
                        model.remove(name);
                        continue;
                    }
                    int pick = random.nextInt(VALUES.size() + 1);
                    String note = pick == VALUES.size() ? null : VALUES.get(pick);
                    Object[] row = {name, note, (long) checkpoint};
                    harness.upsert(row);
                    model.put(name, row);
                }
                UpsertStats stats = harness.commit().stats();
                copied += stats.rowsCopied();
                compacted += stats.filesCompacted();
                assertThat(rows(KernelTableReader.readAll(location)))
                        .as("checkpoint %d", checkpoint)
                        .containsExactlyInAnyOrderElementsOf(rows(model.values()));
            }
        }
        assertThat(copied + compacted).as("rows copied or files compacted").isPositive();
    }

    private static List<List<Object>> rows(java.util.Collection<Object[]> rows) {
        List<List<Object>> out = new ArrayList<>();
        for (Object[] row : rows) {
            out.add(Arrays.asList(row));
        }
        return out;
    }
}
