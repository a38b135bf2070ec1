package io.deltalite.flink.testing.s3;

import io.deltalite.flink.internal.storage.StorageSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A writer of {@link CommitWorkload} in a JVM of its own, for tests of writers that share no
 * memory. Arguments: table location, application id, writer number, commits. It reads the Hadoop
 * options from standard input ({@code key=value} lines up to a line {@code .}) — so that secrets
 * stay off the command line — opens the table, prints {@code @@ READY}, waits for a line {@code
 * GO}, commits, and prints {@code @@ LANDED checkpoint version attempts} for each commit.
 */
public final class CommitterMain {
    static final String PREFIX = "@@ ";

    private CommitterMain() {}

    public static void main(String[] args) throws Exception {
        String location = args[0];
        String appId = args[1];
        int writer = Integer.parseInt(args[2]);
        int commits = Integer.parseInt(args[3]);
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Map<String, String> hadoopOptions = new HashMap<>();
        for (String line = in.readLine(); line != null && !line.equals("."); line = in.readLine()) {
            int equals = line.indexOf('=');
            hadoopOptions.put(line.substring(0, equals), line.substring(equals + 1));
        }
        try (S3UpsertHarness harness =
                S3UpsertHarness.open(
                        location,
                        StorageSettings.of(hadoopOptions),
                        S3UpsertHarness.ORDERS,
                        CommitWorkload.OPTIONS,
                        appId)) {
            System.out.println(PREFIX + "READY");
            System.out.flush();
            if (!"GO".equals(in.readLine())) {
                throw new IllegalStateException("expected GO on standard input");
            }
            List<CommitWorkload.Landed> landed =
                    CommitWorkload.run(harness, appId, writer, commits);
            for (CommitWorkload.Landed commit : landed) {
                System.out.println(
                        PREFIX
                                + "LANDED "
                                + commit.checkpoint()
                                + " "
                                + commit.version()
                                + " "
                                + commit.attempts());
            }
        }
        System.out.flush();
        System.exit(0);
    }
}
