package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.exceptions.DeltaLiteUnsupportedTableException;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table that changes shape under a running sink — replaced with other partition columns, column
 * mapping or a feature deltalite cannot write turned on, deletion vectors turned off — on real
 * tables whose log another writer extends: the sink either fails the attempt naming the change and
 * commits nothing, or (deletion vectors) follows the table as it is now.
 */
class TableShapeChangeTest {
    private static final List<ValueType.Field> COLUMNS =
            List.of(
                    new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                    new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                    new ValueType.Field("region", ValueType.of(Kind.STRING), true));

    private static final TableDefinition BY_DAY =
            new TableDefinition(COLUMNS, List.of("id"), List.of("day"), Map.of());

    /**
     * The key index from the first merge, checked against the files at every merge: a change of the
     * table's shape or protocol must not leave it answering for the old layout.
     */
    private static final KeyIndexOptions VALIDATED_INDEX =
            new KeyIndexOptions(KeyIndexMode.ON, 64L << 20, true);

    private static final MergeOptions COPY_ON_WRITE =
            MergeOptions.DEFAULTS
                    .withWriteMode(WriteMode.COPY_ON_WRITE)
                    .withCompaction(CompactionOptions.DISABLED)
                    .withKeyIndex(VALIDATED_INDEX);

    @TempDir Path dir;

    @Test
    void aTableReplacedWithOtherPartitionColumnsUnderARunningSinkFailsTheAttemptNamingTheChange() {
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), BY_DAY, COPY_ON_WRITE)) {
            harness.upsert(1L, "d1", "eu");
            harness.upsert(2L, "d2", "us");
            harness.commit();
            harness.upsert(1L, "d1", "us");
            List<PartitionWriteResult> prepared = harness.prepare();
            long checkpoint = harness.lastCheckpoint();

            // REPLACE TABLE … PARTITIONED BY (region): same schema, other partition columns.
            long replaced =
                    MetadataCommits.commit(
                            dir,
                            metadata -> metadata.putArray("partitionColumns").add("region"),
                            null,
                            true);

            assertThatThrownBy(() -> harness.commitPrepared(checkpoint, prepared))
                    .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                    .hasMessageContaining(dir.toString())
                    .hasMessageContaining("version " + replaced)
                    .hasMessageContaining("partition columns from [day] to [region]")
                    .hasMessageContaining("Restart the job");
            harness.upsert(3L, "d1", "eu");
            assertThatThrownBy(harness::prepare)
                    .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                    .hasMessageContaining("partition columns from [day] to [region]");
            assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(replaced);
            assertThat(harness.read()).isEmpty();
        }
    }

    /**
     * After the failed attempt Flink restarts the job from its last checkpoint: the checkpoint it
     * restores was merged by the old partition columns, and its files must not be committed as
     * partitions of the new ones (their folders and rows hold the old partition column's values).
     */
    @Test
    void aCheckpointRestoredAfterTheTableWasRepartitionedIsRefusedNotCommittedByTheNewLayout() {
        List<PartitionWriteResult> prepared;
        long checkpoint;
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), BY_DAY, COPY_ON_WRITE)) {
            harness.upsert(1L, "d1", "eu");
            harness.commit();
            harness.upsert(2L, "d1", "us");
            prepared = harness.prepare();
            checkpoint = harness.lastCheckpoint();
        }
        long replaced =
                MetadataCommits.commit(
                        dir,
                        metadata -> metadata.putArray("partitionColumns").add("region"),
                        null,
                        true);

        try (UpsertHarness restarted =
                UpsertHarness.reopened(
                        dir.toString(),
                        new TableDefinition(COLUMNS, List.of("id"), List.of(), Map.of()),
                        COPY_ON_WRITE,
                        checkpoint)) {
            assertThatThrownBy(() -> restarted.commitPrepared(checkpoint, prepared))
                    .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                    .hasMessageContaining("Checkpoint " + checkpoint)
                    .hasMessageContaining(dir.toString())
                    .hasMessageContaining("[day]")
                    .hasMessageContaining("[region]")
                    .hasMessageContaining("without its state");
            assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(replaced);
        }
    }

    @Test
    void columnMappingTurnedOnUnderARunningSinkFailsTheAttemptNamingTheChange() {
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), BY_DAY, COPY_ON_WRITE)) {
            harness.upsert(1L, "d1", "eu");
            harness.commit();
            harness.upsert(1L, "d1", "us");
            List<PartitionWriteResult> prepared = harness.prepare();
            long checkpoint = harness.lastCheckpoint();

            // ALTER TABLE … SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name'), as Spark
            // commits it: each field gets an id and its (unchanged) physical name.
            long altered =
                    MetadataCommits.commit(
                            dir,
                            metadata -> {
                                ObjectNode schema = MetadataCommits.schema(metadata);
                                int id = 0;
                                for (JsonNode field : schema.get("fields")) {
                                    ((ObjectNode) field.get("metadata"))
                                            .put("delta.columnMapping.id", ++id)
                                            .put(
                                                    "delta.columnMapping.physicalName",
                                                    field.get("name").asText());
                                }
                                MetadataCommits.setSchema(metadata, schema);
                                ((ObjectNode) metadata.get("configuration"))
                                        .put("delta.columnMapping.mode", "name")
                                        .put("delta.columnMapping.maxColumnId", "" + id);
                            },
                            "{\"minReaderVersion\":2,\"minWriterVersion\":5}",
                            false);

            assertThatThrownBy(() -> harness.commitPrepared(checkpoint, prepared))
                    .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                    .hasMessageContaining(dir.toString())
                    .hasMessageContaining("version " + altered)
                    .hasMessageContaining(
                            "column mapping (delta.columnMapping.mode) from none to" + " name")
                    .hasMessageContaining("Restart the job");
            assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(altered);
        }
    }

    @Test
    void aFeatureDeltaliteCannotWriteTurnedOnUnderARunningSinkFailsTheAttempt() {
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), BY_DAY, COPY_ON_WRITE)) {
            harness.upsert(1L, "d1", "eu");
            harness.commit();
            harness.upsert(1L, "d1", "us");
            List<PartitionWriteResult> prepared = harness.prepare();
            long checkpoint = harness.lastCheckpoint();

            long altered =
                    MetadataCommits.commit(
                            dir,
                            metadata ->
                                    ((ObjectNode) metadata.get("configuration"))
                                            .put("delta.enableChangeDataFeed", "true"),
                            "{\"minReaderVersion\":1,\"minWriterVersion\":4}",
                            false);

            // Committed without change data files, the update would be missing from the feed.
            assertThatThrownBy(() -> harness.commitPrepared(checkpoint, prepared))
                    .isInstanceOf(DeltaLiteUnsupportedTableException.class)
                    .hasMessageContaining(dir.toString())
                    .hasMessageContaining("change data feed");
            assertThat(KernelTableReader.latestVersion(dir.toString())).isEqualTo(altered);
        }
    }

    /**
     * Deletion vectors are decided per checkpoint from the table as it is, not from the table the
     * sink opened: a checkpoint planned with vectors and committed after they were turned off is
     * merged again copy-on-write; then mode {@code deletion-vectors} fails the next checkpoint
     * naming the property, and mode {@code auto} goes on copy-on-write.
     */
    @Test
    void deletionVectorsTurnedOffUnderARunningSinkAreFollowedNotWrittenWithTheOldLayout() {
        TableDefinition withVectors =
                new TableDefinition(
                        COLUMNS,
                        List.of("id"),
                        List.of("day"),
                        Map.of("delta.enableDeletionVectors", "true"));
        MergeOptions vectors =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.DELETION_VECTORS)
                        .withCompaction(CompactionOptions.DISABLED)
                        .withKeyIndex(VALIDATED_INDEX);
        List<Object[]> expected = new ArrayList<>();
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), withVectors, vectors)) {
            for (long id = 0; id < 100; id++) {
                harness.upsert(id, "d1", "eu");
            }
            harness.commit();
            harness.upsert(3L, "d1", "us");
            List<PartitionWriteResult> prepared = harness.prepare();
            assertThat(prepared.get(0).vectorFiles()).isNotEmpty();
            long checkpoint = harness.lastCheckpoint();

            CommitOutcome outcome =
                    MetadataCommits.commitAfterVectorsTurnedOff(dir, harness, checkpoint, prepared);
            assertThat(vectorAdds(outcome.version())).isZero();
            for (long id = 0; id < 100; id++) {
                expected.add(new Object[] {id, "d1", id == 3 ? "us" : "eu"});
            }
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected));
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();

            harness.upsert(4L, "d1", "us");
            assertThatThrownBy(harness::prepare)
                    .hasMessageContaining("write-mode 'deletion-vectors'")
                    .hasMessageContaining("delta.enableDeletionVectors")
                    .hasMessageContaining(dir.toString());
        }
        try (UpsertHarness auto =
                UpsertHarness.open(
                        dir.toString(),
                        withVectors,
                        MergeOptions.DEFAULTS
                                .withCompaction(CompactionOptions.DISABLED)
                                .withKeyIndex(VALIDATED_INDEX),
                        "auto-job")) {
            auto.upsert(5L, "d1", "us");
            CommitOutcome outcome = auto.commit();
            assertThat(outcome.stats().deletionVectorsWritten()).isZero();
            assertThat(vectorAdds(outcome.version())).isZero();
        }
    }

    private long vectorAdds(long version) {
        return DeltaHistory.actions(dir, version).stream()
                .map(action -> action.get("add"))
                .filter(add -> add != null && add.has("deletionVector"))
                .filter(add -> !add.get("deletionVector").isNull())
                .count();
    }
}
