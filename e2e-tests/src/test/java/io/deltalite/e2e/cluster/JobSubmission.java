package io.deltalite.e2e.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Submits a job jar to a {@link FlinkCluster} the way {@code flink run --detached} does: Flink's
 * {@code CliFrontend}, in a client process of its own, runs the jar's main class in a {@code
 * PackagedProgram} to build the job graph and hands it to the cluster through Flink's REST client.
 */
final class JobSubmission {
    private static final String CLI = "org.apache.flink.client.cli.CliFrontend";
    private static final List<String> CLIENT_MEMORY = List.of("-Xmx512m");
    private static final Duration CLIENT_TIMEOUT = Duration.ofMinutes(2);
    private static final Pattern SUBMITTED =
            Pattern.compile("Job has been submitted with JobID ([0-9a-f]{32})");

    private JobSubmission() {}

    /**
     * Submits the jar's main class with {@code arguments} and returns the job id once the cluster
     * has accepted the job (the job runs on).
     */
    static String submitDetached(FlinkCluster cluster, Path jobJar, List<String> arguments)
            throws IOException, InterruptedException {
        List<String> cli = new ArrayList<>(List.of("run", "--detached", jobJar.toString()));
        cli.addAll(arguments);
        try (FlinkProcess client =
                cluster.startProcess("client", cluster.javaCommand(CLI, CLIENT_MEMORY, cli))) {
            if (!client.endsWithin(CLIENT_TIMEOUT)) {
                throw new AssertionError(
                        "flink run did not end within "
                                + CLIENT_TIMEOUT
                                + ".\n"
                                + cluster.logTails());
            }
            Matcher submitted = SUBMITTED.matcher(client.output());
            if (client.exitValue() != 0 || !submitted.find()) {
                throw new AssertionError(
                        "flink run did not submit the job (exit code "
                                + client.exitValue()
                                + ").\n"
                                + cluster.logTails());
            }
            return submitted.group(1);
        }
    }
}
