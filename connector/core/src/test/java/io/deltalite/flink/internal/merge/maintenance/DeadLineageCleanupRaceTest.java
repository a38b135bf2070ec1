package io.deltalite.flink.internal.merge.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.commit.TestDefinitions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.sink.MaintenanceReport;
import io.deltalite.flink.testing.KilledJobs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job judged dead by its old notes wakes up while a maintenance pass runs: the note its writer
 * writes after the pass listed the journal, and the file it lists, are not the pass's to remove.
 */
class DeadLineageCleanupRaceTest {
    @TempDir Path dir;

    @Test
    void aNoteAnIdleJobWritesWhileThePassRunsKeepsItsFiles() throws Exception {
        KilledJobs.kill(
                dir, TestDefinitions.ITEMS, "idle", 1, id -> new Object[] {id, "idle" + id});
        KilledJobs.age(dir, "idle", Duration.ofDays(10));
        DeltaTable real =
                DeltaTable.open(
                        dir.toString(),
                        Map.of(),
                        MergeOptions.DEFAULTS,
                        TableDefinition.existingTable(),
                        false);
        Path fresh = dir.resolve("part-00000-fresh-review.parquet");
        Files.write(fresh, new byte[] {1, 2, 3});
        long v = real.latestSnapshot().version();
        AttemptJournal journal = real.journal();
        AttemptJournal racing =
                new AttemptJournal() {
                    public void record(Entry e) {
                        journal.record(e);
                    }

                    public List<Entry> entries(String a) {
                        return journal.entries(a);
                    }

                    public List<Entry> entriesNotedBefore(String a, long cutoff) {
                        return journal.entriesNotedBefore(a, cutoff);
                    }

                    public void remove(Entry e) {
                        journal.remove(e);
                    }

                    public void removeLineage(String a) {
                        journal.removeLineage(a);
                    }

                    public void beat(String a, String owner, java.time.Duration interval) {
                        journal.beat(a, owner, interval);
                    }

                    public void removeHeartbeats(String a, long before) {
                        journal.removeHeartbeats(a, before);
                    }

                    public List<Lineage> lineages() {
                        List<Lineage> l = journal.lineages();
                        // the idle job gets input: its writer notes what it just wrote
                        journal.record(
                                new Entry("idle", 0, "u0-fresh", v, List.of(fresh.toString())));
                        return l;
                    }
                };
        MergeTable table =
                new MergeTable() {
                    public String location() {
                        return real.location();
                    }

                    public TableSchema schema() {
                        return real.schema();
                    }

                    public TableSnapshot latestSnapshot() {
                        return real.latestSnapshot();
                    }

                    public DataFileStore files() {
                        return real.files();
                    }

                    public long targetFileSizeBytes() {
                        return real.targetFileSizeBytes();
                    }

                    public AttemptJournal journal() {
                        return racing;
                    }

                    public java.util.Optional<List<String>> partitionColumnsAt(long x) {
                        return real.partitionColumnsAt(x);
                    }

                    public List<String> columnsLostSince(long x) {
                        return real.columnsLostSince(x);
                    }
                };
        MaintenanceReport report =
                new DeadLineageCleanup(table, Duration.ofDays(7)).run(Instant.now(), false);
        assertThat(Files.exists(fresh)).as("the file the woken writer just noted").isTrue();
        assertThat(report.lineages()).hasSize(1);
        assertThat(journal.entries("idle"))
                .as("the woken writer's note")
                .anyMatch(entry -> entry.owner().equals("u0-fresh"));
    }
}
