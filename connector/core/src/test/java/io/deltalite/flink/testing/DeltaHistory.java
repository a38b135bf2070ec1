package io.deltalite.flink.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Reads a table's commit files directly, to check what each version recorded. */
public final class DeltaHistory {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One commit: its version, its transaction id (or null) and its file actions. */
    public record Commit(long version, String appId, long txnVersion, int adds, int removes) {}

    private DeltaHistory() {}

    public static List<Commit> commits(Path table) {
        List<Commit> commits = new ArrayList<>();
        if (!Files.isDirectory(table.resolve("_delta_log"))) {
            return commits;
        }
        try (Stream<Path> files = Files.list(table.resolve("_delta_log"))) {
            for (Path file :
                    files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.json"))
                            .sorted()
                            .toList()) {
                long version = Long.parseLong(file.getFileName().toString().substring(0, 20));
                String appId = null;
                long txnVersion = -1;
                int adds = 0;
                int removes = 0;
                for (String line : Files.readAllLines(file)) {
                    if (line.isBlank()) {
                        continue;
                    }
                    JsonNode action = JSON.readTree(line);
                    if (action.has("txn")) {
                        appId = action.get("txn").get("appId").asText();
                        txnVersion = action.get("txn").get("version").asLong();
                    } else if (action.has("add")) {
                        adds++;
                    } else if (action.has("remove")) {
                        removes++;
                    }
                }
                commits.add(new Commit(version, appId, txnVersion, adds, removes));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return commits;
    }

    /**
     * Data files and deletion vector files on disk that no commit ever added: files of an attempt
     * that was never committed and was not cleaned up. (Files a later commit removed stay until
     * VACUUM and are not counted.)
     */
    public static List<String> uncommittedDataFiles(Path table) {
        java.util.Set<String> added = new java.util.HashSet<>();
        for (JsonNode action : actions(table)) {
            if (action.has("add")) {
                String path = action.get("add").get("path").asText();
                added.add(path.substring(path.lastIndexOf('/') + 1));
                String vectorFile = vectorFile(table, action.get("add"));
                if (vectorFile != null) {
                    added.add(Path.of(vectorFile).getFileName().toString());
                }
            }
        }
        List<String> uncommitted = new ArrayList<>();
        try (Stream<Path> files = Files.walk(table)) {
            files.filter(
                            f ->
                                    f.getFileName().toString().endsWith(".parquet")
                                            || f.getFileName()
                                                    .toString()
                                                    .startsWith("deletion_vector_"))
                    .filter(f -> !f.toString().contains("_delta_log"))
                    .map(f -> f.getFileName().toString())
                    .filter(name -> !added.contains(name))
                    .forEach(uncommitted::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return uncommitted;
    }

    /**
     * Data files and deletion vector files the latest version of the table references (by replaying
     * every commit file) that are not on disk: a table pointing at deleted files.
     */
    public static List<String> missingReferencedFiles(Path table) {
        // By path and deletion vector: giving a file a new vector removes and adds the same path.
        java.util.Map<String, String> live = new java.util.LinkedHashMap<>();
        for (JsonNode action : actions(table)) {
            if (action.has("add")) {
                JsonNode add = action.get("add");
                live.put(identity(add), add.get("path").asText());
                String vectorFile = vectorFile(table, add);
                if (vectorFile != null) {
                    live.put(identity(add) + "#file", vectorFile);
                }
            } else if (action.has("remove")) {
                live.remove(identity(action.get("remove")));
                live.remove(identity(action.get("remove")) + "#file");
            }
        }
        List<String> missing = new ArrayList<>();
        java.net.URI root = table.toUri();
        for (String path : live.values()) {
            java.net.URI uri = java.net.URI.create(path);
            Path file = Path.of(uri.isAbsolute() ? uri : root.resolve(uri));
            if (!Files.exists(file)) {
                missing.add(path);
            }
        }
        return missing;
    }

    /** The add action of every file the latest version lists, by replaying every commit file. */
    public static List<JsonNode> liveAdds(Path table) {
        java.util.Map<String, JsonNode> live = new java.util.LinkedHashMap<>();
        for (JsonNode action : actions(table)) {
            if (action.has("add")) {
                live.put(identity(action.get("add")), action.get("add"));
            } else if (action.has("remove")) {
                live.remove(identity(action.get("remove")));
            }
        }
        return new ArrayList<>(live.values());
    }

    /** A file action's path and deletion vector, as Delta tells two actions' files apart. */
    private static String identity(JsonNode action) {
        JsonNode vector = action.get("deletionVector");
        if (vector == null || vector.isNull()) {
            return action.get("path").asText();
        }
        return action.get("path").asText()
                + "#"
                + vector.get("storageType").asText()
                + vector.get("pathOrInlineDv").asText()
                + (vector.has("offset") ? "@" + vector.get("offset").asInt() : "");
    }

    /** The absolute path of the file an action's deletion vector is stored in, or null. */
    public static String vectorFile(Path table, JsonNode action) {
        JsonNode vector = action.get("deletionVector");
        if (vector == null || vector.isNull() || "i".equals(vector.get("storageType").asText())) {
            return null;
        }
        return new io.delta.kernel.internal.actions.DeletionVectorDescriptor(
                        vector.get("storageType").asText(),
                        vector.get("pathOrInlineDv").asText(),
                        java.util.Optional.of(vector.get("offset").asInt()),
                        vector.get("sizeInBytes").asInt(),
                        vector.get("cardinality").asLong())
                .getAbsolutePath(table.toUri().toString());
    }

    /**
     * The files {@link #uncommittedDataFiles} lists, except those that a note {@linkplain
     * #notesKeptForMaintenance kept for maintenance} lists. Any other file left is one the sink
     * lost track of.
     */
    public static List<String> uncommittedFilesNoNoteKeeps(Path table) {
        java.util.Set<String> kept = new java.util.HashSet<>();
        try {
            for (Path note : notesKeptForMaintenance(table)) {
                for (String line : Files.readAllLines(note)) {
                    if (!line.startsWith("#")) {
                        kept.add(line.substring(line.lastIndexOf('/') + 1));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return uncommittedDataFiles(table).stream().filter(name -> !kept.contains(name)).toList();
    }

    /**
     * The notes in the table's journal ({@link #journalNotes}) other than those {@linkplain
     * #notesKeptForMaintenance kept for maintenance}: after a bounded job ended, none.
     */
    public static List<String> notesNotKeptForMaintenance(Path table) {
        Path journal = table.resolve("_deltalite").resolve("journal");
        java.util.Set<String> kept = new java.util.HashSet<>();
        notesKeptForMaintenance(table)
                .forEach(note -> kept.add(journal.relativize(note).toString()));
        return journalNotes(table).stream().filter(note -> !kept.contains(note)).toList();
    }

    /**
     * The notes a failover close to the end of a bounded job leaves for the maintenance pass: a
     * writer's note ({@code <checkpoint, 20 digits>-w<subtask>...files} under the app id's folder)
     * of a checkpoint numbered after the last one its app id committed, which an intermediate
     * savepoint of that number could still bring back (README, "Nothing half-visible, nothing left
     * behind").
     */
    private static List<Path> notesKeptForMaintenance(Path table) {
        java.util.Map<String, Long> committed = new java.util.HashMap<>();
        for (Commit commit : commits(table)) {
            if (commit.appId() != null) {
                committed.merge(commit.appId(), commit.txnVersion(), Math::max);
            }
        }
        Path journal = table.resolve("_deltalite").resolve("journal");
        if (!Files.exists(journal)) {
            return List.of();
        }
        try (Stream<Path> notes = Files.walk(journal)) {
            return notes.filter(
                            note -> {
                                String name = note.getFileName().toString();
                                if (!name.matches("\\d{20}-w.*\\.files")) {
                                    return false;
                                }
                                // The app id's folder: ids here carry no '/', which it turns
                                // into '_'.
                                String appId = note.getParent().getFileName().toString();
                                long checkpoint = Long.parseLong(name.substring(0, 20));
                                return checkpoint > committed.getOrDefault(appId, -1L);
                            })
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The notes left in the table's journal ({@code _deltalite/journal/}), by file name: what the
     * sink still has to resolve. Empty after a bounded job ended and committed everything.
     */
    public static List<String> journalNotes(Path table) {
        Path journal = table.resolve("_deltalite").resolve("journal");
        if (!Files.exists(journal)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(journal)) {
            return files.filter(Files::isRegularFile)
                    .map(file -> journal.relativize(file).toString())
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Add actions in the log that carry a deletion vector: files given a vector by a commit. */
    public static long deletionVectorAdds(Path table) {
        return actions(table).stream()
                .map(action -> action.get("add"))
                .filter(add -> add != null && add.has("deletionVector"))
                .filter(add -> !add.get("deletionVector").isNull())
                .count();
    }

    /** Every action of every commit file, in version order. */
    public static List<JsonNode> actions(Path table) {
        List<JsonNode> actions = new ArrayList<>();
        try (Stream<Path> files = Files.list(table.resolve("_delta_log"))) {
            for (Path file :
                    files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.json"))
                            .sorted()
                            .toList()) {
                for (String line : Files.readAllLines(file)) {
                    if (!line.isBlank()) {
                        actions.add(JSON.readTree(line));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return actions;
    }

    /** Files removed by compaction ({@code dataChange = false}) over the table's history. */
    public static long compactedFiles(Path table) {
        return actions(table).stream()
                .filter(
                        action ->
                                action.has("remove")
                                        && !action.get("remove").get("dataChange").asBoolean())
                .count();
    }

    /** The actions of the commit file of {@code version}. */
    public static List<JsonNode> actions(Path table, long version) {
        List<JsonNode> actions = new ArrayList<>();
        try {
            for (String line :
                    Files.readAllLines(
                            table.resolve("_delta_log")
                                    .resolve(String.format("%020d.json", version)))) {
                if (!line.isBlank()) {
                    actions.add(JSON.readTree(line));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return actions;
    }

    /** The (appId, checkpoint) pairs of all commits that carry one, in version order. */
    public static List<String> transactionIds(Path table) {
        List<String> ids = new ArrayList<>();
        for (Commit commit : commits(table)) {
            if (commit.appId() != null) {
                ids.add(commit.appId() + "@" + commit.txnVersion());
            }
        }
        return ids;
    }
}
