package io.deltalite.e2e.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** What the last commit of a table did, read from its log. */
final class DeltaLogFiles {
    private static final ObjectMapper JSON = new ObjectMapper();

    private DeltaLogFiles() {}

    /** The file names (without directories) the latest commit removed. */
    static List<String> removedInLastCommit(Path table) {
        try (Stream<Path> log = Files.list(table.resolve("_delta_log"))) {
            Path last =
                    log.filter(file -> file.getFileName().toString().matches("\\d{20}\\.json"))
                            .max(Path::compareTo)
                            .orElseThrow();
            List<String> removed = new ArrayList<>();
            for (String line : Files.readAllLines(last)) {
                JsonNode action = JSON.readTree(line);
                if (action.has("remove")) {
                    String path = action.get("remove").get("path").asText();
                    removed.add(path.substring(path.lastIndexOf('/') + 1));
                }
            }
            return removed;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
