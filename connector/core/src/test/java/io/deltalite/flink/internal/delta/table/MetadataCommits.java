package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Commits that change a table's metadata as another writer would, written by hand into the next
 * version of the log: {@code ALTER TABLE … SET TBLPROPERTIES}, or {@code REPLACE TABLE} (a new
 * metadata action and the removal of every live file).
 */
public final class MetadataCommits {
    private static final ObjectMapper JSON = new ObjectMapper();

    private MetadataCommits() {}

    /**
     * Commits the table's latest metadata action as {@code change} edits it (its {@code metaData}
     * object), with {@code protocol} (a protocol action's fields as JSON) if not null, removing
     * every live file when {@code replace} is set; returns the version written.
     */
    static long commit(Path table, Consumer<ObjectNode> change, String protocol, boolean replace) {
        ObjectNode metadata = latestMetadata(table).deepCopy();
        change.accept(metadata);
        List<String> lines = new ArrayList<>();
        try {
            if (protocol != null) {
                lines.add("{\"protocol\":" + protocol + "}");
            }
            lines.add(JSON.writeValueAsString(JSON.createObjectNode().set("metaData", metadata)));
            long now = System.currentTimeMillis();
            if (replace) {
                for (KernelTableReader.LiveFile file :
                        KernelTableReader.liveFiles(table.toString()).values()) {
                    ObjectNode remove = JSON.createObjectNode();
                    remove.put("path", file.logPath())
                            .put("deletionTimestamp", now)
                            .put("dataChange", true)
                            .put("size", file.size());
                    lines.add(
                            JSON.writeValueAsString(JSON.createObjectNode().set("remove", remove)));
                }
            }
            long version = KernelTableReader.latestVersion(table.toString()) + 1;
            Files.writeString(
                    table.resolve(String.format("_delta_log/%020d.json", version)),
                    String.join("\n", lines) + "\n",
                    StandardCharsets.UTF_8);
            return version;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Commits the latest metadata with {@code key} set to {@code value} in its configuration. */
    public static long setProperty(Path table, String key, String value) {
        return commit(
                table,
                metadata -> ((ObjectNode) metadata.get("configuration")).put(key, value),
                null,
                false);
    }

    /**
     * Turns deletion vectors of {@code table} off, as another writer would, between the prepare and
     * the commit of {@code harness}'s {@code checkpoint}, commits its {@code prepared} results, and
     * checks that the committer merged their one partition again in the version right after that
     * change.
     */
    public static CommitOutcome commitAfterVectorsTurnedOff(
            Path table,
            UpsertHarness harness,
            long checkpoint,
            List<PartitionWriteResult> prepared) {
        long turnedOff = setProperty(table, "delta.enableDeletionVectors", "false");
        CommitOutcome outcome = harness.commitPrepared(checkpoint, prepared);
        assertThat(outcome.version()).isEqualTo(turnedOff + 1);
        assertThat(outcome.remergedPartitions()).isEqualTo(1);
        return outcome;
    }

    /** The fields of the latest metadata action of the table's JSON commits. */
    static ObjectNode latestMetadata(Path table) {
        ObjectNode latest = null;
        for (JsonNode action : DeltaHistory.actions(table)) {
            if (action.has("metaData")) {
                latest = (ObjectNode) action.get("metaData");
            }
        }
        if (latest == null) {
            throw new IllegalStateException("no metaData action in the log of " + table);
        }
        return latest;
    }

    /** The table's schema as JSON, from {@code metadata}'s schema string. */
    static ObjectNode schema(ObjectNode metadata) {
        try {
            return (ObjectNode) JSON.readTree(metadata.get("schemaString").asText());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sets {@code metadata}'s schema string to {@code schema}. */
    static void setSchema(ObjectNode metadata, JsonNode schema) {
        try {
            metadata.put("schemaString", JSON.writeValueAsString(schema));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
