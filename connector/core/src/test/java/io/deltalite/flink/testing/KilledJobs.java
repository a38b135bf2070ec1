package io.deltalite.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import java.util.stream.Stream;

/**
 * Leftovers of jobs that die as a killed process does — after preparing a checkpoint, before its
 * commit, without closing anything — made with the merge engine the sink runs, and aged as days
 * passing would age them.
 */
public final class KilledJobs {
    private KilledJobs() {}

    /**
     * What a killed job left: its notes (paths under {@code _deltalite/journal/}) and the data
     * files no version took (file names).
     */
    public record Leftovers(List<String> notes, List<String> uncommitted) {}

    /**
     * Runs a job under {@code appId} that commits {@code committed} checkpoints of ten rows, then
     * prepares one more — two upserts, and deletes of more absent keys than are kept inline (a
     * staged key file) — and dies before its commit.
     *
     * @param row the row of a key, in the table's column order
     */
    public static Leftovers kill(
            Path table,
            TableDefinition definition,
            String appId,
            int committed,
            LongFunction<Object[]> row) {
        return kill(table, definition, MergeOptions.DEFAULTS, appId, committed, row);
    }

    /** As {@link #kill(Path, TableDefinition, String, int, LongFunction)}, with these options. */
    public static Leftovers kill(
            Path table,
            TableDefinition definition,
            MergeOptions options,
            String appId,
            int committed,
            LongFunction<Object[]> row) {
        UpsertHarness job = UpsertHarness.open(table.toString(), definition, options, appId);
        List<String> notesBefore = DeltaHistory.journalNotes(table);
        List<String> uncommittedBefore =
                Files.exists(table.resolve("_delta_log"))
                        ? DeltaHistory.uncommittedDataFiles(table)
                        : List.of();
        for (int checkpoint = 0; checkpoint < committed; checkpoint++) {
            for (long id = 0; id < 10; id++) {
                job.upsert(row.apply(id));
            }
            job.commit();
        }
        job.upsert(row.apply(3));
        job.upsert(row.apply(1000));
        for (long id = 5000; id < 5000 + DeletedKeys.INLINE_LIMIT + 10; id++) {
            job.delete(row.apply(id));
        }
        job.prepare();
        job.close(); // killed: closing a writer deletes nothing, as a dead one
        List<String> notes = new ArrayList<>(DeltaHistory.journalNotes(table));
        notes.removeAll(notesBefore);
        List<String> uncommitted = new ArrayList<>(DeltaHistory.uncommittedDataFiles(table));
        uncommitted.removeAll(uncommittedBefore);
        assertThat(notes).as("notes of the killed job %s", appId).isNotEmpty();
        assertThat(uncommitted).as("uncommitted files of the killed job %s", appId).isNotEmpty();
        return new Leftovers(notes, uncommitted);
    }

    /** Makes the notes of the lineage and the commits recording its app id look {@code age} old. */
    public static void age(Path table, String appId, Duration age) {
        ageNotes(table, appId, age);
        FileTime then = FileTime.from(Instant.now().minus(age));
        try (Stream<Path> files = Files.list(table.resolve("_delta_log"))) {
            files.filter(file -> file.getFileName().toString().endsWith(".json"))
                    .filter(file -> records(file, appId))
                    .forEach(file -> setModified(file, then));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Makes the notes of the lineage look {@code age} old. */
    public static void ageNotes(Path table, String appId, Duration age) {
        FileTime then = FileTime.from(Instant.now().minus(age));
        try (Stream<Path> files = Files.walk(table.resolve("_deltalite/journal/" + appId))) {
            files.forEach(file -> setModified(file, then));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The staged key files on disk. */
    public static List<String> stagedKeyFiles(Path table) {
        Path staged = table.resolve("_deltalite/staged");
        if (!Files.exists(staged)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(staged)) {
            return files.map(file -> file.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean records(Path commitFile, String appId) {
        try {
            return Files.readString(commitFile).contains("\"appId\":\"" + appId + "\"");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void setModified(Path file, FileTime time) {
        try {
            Files.setLastModifiedTime(file, time);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
