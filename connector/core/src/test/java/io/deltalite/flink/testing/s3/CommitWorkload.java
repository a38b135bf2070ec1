package io.deltalite.flink.testing.s3;

import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What each of several concurrent writers commits to one {@link S3UpsertHarness#ORDERS} table: in
 * every commit three new keys of its own and an update of its first key, so that writers share
 * partitions (and must re-merge them when another writer committed first) but never keys.
 */
public final class CommitWorkload {
    /** Merge options with retries enough for eight writers racing for every version. */
    public static final MergeOptions OPTIONS =
            MergeOptions.DEFAULTS.withCommitRetries(200).withMaxParallelFiles(2);

    private CommitWorkload() {}

    /** What one commit of a writer reported. */
    public record Landed(String appId, long checkpoint, long version, int attempts) {}

    /** Buffers the changes of commit {@code commit} (0, 1, ...) of writer {@code writer}. */
    public static void stage(S3UpsertHarness harness, int writer, int commit) {
        for (Object[] row : rows(writer, commit)) {
            harness.upsert(row);
        }
    }

    /** Runs {@code commits} commits of {@code writer}; returns what each reported. */
    public static List<Landed> run(S3UpsertHarness harness, String appId, int writer, int commits) {
        List<Landed> landed = new ArrayList<>();
        for (int commit = 0; commit < commits; commit++) {
            stage(harness, writer, commit);
            CommitOutcome outcome = harness.commit();
            if (outcome.status() != CommitOutcome.Status.COMMITTED) {
                throw new IllegalStateException(
                        appId + " commit " + commit + " ended " + outcome.status());
            }
            landed.add(
                    new Landed(
                            appId,
                            harness.lastCheckpoint(),
                            outcome.version(),
                            outcome.attempts()));
        }
        return landed;
    }

    /** The table all writers together must leave. */
    public static List<Object[]> expected(int writers, int commits) {
        Map<Long, Object[]> table = new LinkedHashMap<>();
        for (int writer = 0; writer < writers; writer++) {
            for (int commit = 0; commit < commits; commit++) {
                for (Object[] row : rows(writer, commit)) {
                    table.put((Long) row[0], row);
                }
            }
        }
        return new ArrayList<>(table.values());
    }

    private static List<Object[]> rows(int writer, int commit) {
        List<Object[]> rows = new ArrayList<>();
        String day = "d" + ((writer + commit) % 2);
        for (int i = 0; i < 3; i++) {
            rows.add(new Object[] {key(writer, commit, i), day, commit * 100 + i});
        }
        if (commit > 0) {
            // the writer's first key stays in its first partition; the update replaces it there
            rows.add(new Object[] {key(writer, 0, 0), "d" + (writer % 2), -commit});
        }
        return rows;
    }

    private static long key(int writer, int commit, int i) {
        return writer * 10_000L + commit * 10L + i;
    }
}
