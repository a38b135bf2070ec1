package io.deltalite.flink.internal.merge.index;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Changes other writers make that the key index must follow: a file whose deletion vector shrinks
 * (a RESTORE), a file whose statistics understate its rows. Each runs with the index off as the
 * control and on.
 */
class KeyIndexForeignChangesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    private static TableDefinition items() {
        return new TableDefinition(
                List.of(
                        new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                        new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                List.of("id"),
                List.of(),
                Map.of("delta.enableDeletionVectors", "true"));
    }

    private static MergeOptions options(KeyIndexMode mode) {
        return MergeOptions.DEFAULTS
                .withWriteMode(WriteMode.DELETION_VECTORS)
                // Files are small here; with compaction on they would be rewritten, not marked.
                .withCompaction(CompactionOptions.DISABLED)
                .withKeyIndex(new KeyIndexOptions(mode, 64L << 20, false));
    }

    /**
     * Another writer restores the table (Delta's RESTORE TABLE): a file the sink gave a deletion
     * vector comes back under the same path with its older, smaller vector. The row it undeletes
     * was dropped from the index when a lookup found it deleted; the next upsert of that key misses
     * it and the partition holds the key twice.
     */
    @ParameterizedTest
    @EnumSource(
            value = KeyIndexMode.class,
            names = {"OFF", "ON"})
    void aRowAnotherWritersRestoreUndeletesIsReplacedByTheNextUpsert(KeyIndexMode mode)
            throws Exception {
        try (UpsertHarness writer = UpsertHarness.open(dir.toString(), items(), options(mode))) {
            for (long first = 0; first < 30; first += 10) {
                for (long id = first; id < first + 10; id++) {
                    writer.upsert(id, "initial");
                }
                writer.commit();
            }
            long restorePoint = latestVersion();

            writer.upsert(5L, "a"); // marks row 5 of the first file
            writer.commit();
            writer.upsert(5L, "b"); // the lookup finds (file 0, row 5) deleted: forgotten
            writer.commit();

            assertThat(DeltaHistory.deletionVectorAdds(dir)).isPositive();
            restoreTo(restorePoint); // file 0 comes back under its path without a vector
            assertThat(valuesOf(writer, 5L)).containsExactly("initial");

            writer.upsert(5L, "c");
            writer.commit();
            assertThat(valuesOf(writer, 5L)).containsExactly("c");
        }
    }

    /**
     * A file whose log statistics understate its rows (numRecords 2 for 10 rows): the exact probe
     * counts the rows it reads and rewrites such a file; the index takes numRecords as the physical
     * row count, so deleting two rows "deletes every row" and the file is removed with 8 live rows.
     */
    @ParameterizedTest
    @EnumSource(
            value = KeyIndexMode.class,
            names = {"OFF", "ON"})
    void aFileWhoseStatisticsUnderstateItsRowsKeepsItsOtherRows(KeyIndexMode mode)
            throws Exception {
        try (UpsertHarness writer = UpsertHarness.open(dir.toString(), items(), options(mode))) {
            writer.upsert(1L, "ours");
            writer.commit();
            List<Object[]> rows = new ArrayList<>();
            for (long id = 100; id < 110; id++) {
                rows.add(new Object[] {id, "foreign"});
            }
            io.deltalite.flink.internal.delta.table.ForeignWriter.append(
                    dir.toString(),
                    items().toSchema(),
                    PartitionValues.UNPARTITIONED,
                    rows,
                    io.deltalite.flink.internal.delta.table.ForeignWriter.Statistics.EXACT);
            Path commit =
                    dir.resolve("_delta_log").resolve(String.format("%020d.json", latestVersion()));
            String text = Files.readString(commit);
            assertThat(text).contains("numRecords\\\":10");
            Files.writeString(commit, text.replace("numRecords\\\":10", "numRecords\\\":2"));
            Files.deleteIfExists(commit.resolveSibling("." + commit.getFileName() + ".crc"));

            writer.upsert(100L, "changed");
            writer.upsert(101L, "changed");
            writer.commit();

            assertThat(writer.read()).hasSize(11);
        }
    }

    private List<String> valuesOf(UpsertHarness writer, long id) {
        List<String> values = new ArrayList<>();
        for (Object[] row : writer.read()) {
            if ((Long) row[0] == id) {
                values.add((String) row[1]);
            }
        }
        return values;
    }

    private long latestVersion() {
        return DeltaHistory.commits(dir).get(DeltaHistory.commits(dir).size() - 1).version();
    }

    /** What Delta's RESTORE TABLE commits: removes and adds by (path, deletion vector). */
    private void restoreTo(long version) throws Exception {
        Map<String, JsonNode> target = new LinkedHashMap<>();
        for (long v = 0; v <= version; v++) {
            for (JsonNode action : DeltaHistory.actions(dir, v)) {
                if (action.has("add")) {
                    target.put(identity(action.get("add")), action.get("add"));
                } else if (action.has("remove")) {
                    target.remove(identity(action.get("remove")));
                }
            }
        }
        Map<String, JsonNode> current = new LinkedHashMap<>();
        for (JsonNode add : DeltaHistory.liveAdds(dir)) {
            current.put(identity(add), add);
        }
        long now = System.currentTimeMillis();
        List<String> lines = new ArrayList<>();
        ObjectNode info = JSON.createObjectNode();
        info.putObject("commitInfo").put("timestamp", now).put("operation", "RESTORE");
        lines.add(JSON.writeValueAsString(info));
        for (Map.Entry<String, JsonNode> entry : current.entrySet()) {
            if (target.containsKey(entry.getKey())) {
                continue;
            }
            ObjectNode remove = ((ObjectNode) entry.getValue()).deepCopy();
            remove.remove("stats");
            remove.remove("modificationTime");
            remove.remove("tags");
            remove.put("deletionTimestamp", now);
            remove.put("dataChange", true);
            remove.put("extendedFileMetadata", true);
            ObjectNode line = JSON.createObjectNode();
            line.set("remove", remove);
            lines.add(JSON.writeValueAsString(line));
        }
        for (Map.Entry<String, JsonNode> entry : target.entrySet()) {
            if (current.containsKey(entry.getKey())) {
                continue;
            }
            ObjectNode add = ((ObjectNode) entry.getValue()).deepCopy();
            add.put("dataChange", true);
            ObjectNode line = JSON.createObjectNode();
            line.set("add", add);
            lines.add(JSON.writeValueAsString(line));
        }
        Files.write(
                dir.resolve("_delta_log").resolve(String.format("%020d.json", latestVersion() + 1)),
                lines);
    }

    private static String identity(JsonNode action) {
        JsonNode vector = action.get("deletionVector");
        String path = action.get("path").asText();
        return vector == null || vector.isNull() ? path : path + "#" + vector.toString();
    }
}
