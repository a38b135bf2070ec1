package io.deltalite.e2e.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The parts of Flink's REST API the cluster tests read, over plain HTTP: Flink's own client classes
 * stay out of the test JVM, whose class path belongs to Spark.
 */
final class ClusterRestApi {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

    private final URI base;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    ClusterRestApi(URI base) {
        this.base = base;
    }

    /** The number of registered TaskManagers, or nothing while the REST endpoint is not up. */
    Optional<Integer> registeredTaskManagers() throws IOException, InterruptedException {
        try {
            return Optional.of(get("/overview").path("taskmanagers").asInt());
        } catch (ConnectException notListeningYet) {
            return Optional.empty();
        }
    }

    /** The job's status: CREATED, RUNNING, RESTARTING, FINISHED, FAILED, ... */
    String jobState(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId).path("state").asText();
    }

    /** Whether the job has ever been in the RESTARTING state. */
    boolean jobHasRestarted(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId).path("timestamps").path("RESTARTING").asLong() > 0;
    }

    /** The stack traces of the failures the job recovered from (or died of), latest first. */
    List<String> jobFailures(String jobId) throws IOException, InterruptedException {
        List<String> failures = new ArrayList<>();
        for (JsonNode entry :
                get("/jobs/" + jobId + "/exceptions").path("exceptionHistory").path("entries")) {
            failures.add(entry.path("stacktrace").asText());
        }
        return failures;
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(base.resolve(path)).timeout(REQUEST_TIMEOUT).GET().build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(
                    "GET "
                            + request.uri()
                            + " answered "
                            + response.statusCode()
                            + ": "
                            + response.body());
        }
        return JSON.readTree(response.body());
    }
}
