package io.deltalite.flink.internal.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.testing.UpsertHarness;
import io.deltalite.flink.testing.s3.S3ForwardingProxy;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import io.deltalite.flink.testing.s3.S3aSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading a snapshot of an S3 table lists {@code _delta_log} from the last log checkpoint on (S3's
 * {@code start-after}), so what it lists does not grow with the table's history: counted at a real
 * S3 server, behind a proxy that notes every request.
 *
 * <p>The table's history is written on local disk (a commit to the S3 server in a test costs about
 * a second) and its log uploaded to the server at 20 and at 100 versions, both log checkpoints
 * (Kernel writes one every 10 versions): a snapshot load reads only the log. Five times the
 * history, the same listing.
 */
class S3LogListingTest {
    /** The proxy rewrites the Host header: the server must not check signatures. */
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension(false);

    private static S3ForwardingProxy proxy;

    @TempDir Path local;

    private final java.util.Set<String> uploaded = new java.util.HashSet<>();

    @BeforeAll
    static void startProxy() {
        proxy = S3ForwardingProxy.recording(S3.server().endpoint());
    }

    @AfterAll
    static void stopProxy() {
        proxy.close();
    }

    @Test
    void aSnapshotLoadListsTheSameAt20And100Versions() throws IOException {
        String bucket = S3.server().createBucket();
        String table = "s3a://" + bucket + "/events";
        Map<String, String> hadoop = S3aSettings.forEndpoint(proxy.endpoint());
        MergeOptions options = MergeOptions.DEFAULTS.withCompaction(CompactionOptions.DISABLED);
        Listing at20;
        Listing at100;
        try (UpsertHarness harness =
                UpsertHarness.open(local.toString(), S3UpsertHarness.ORDERS, options)) {
            commitUntil(harness, 20);
            at20 = snapshotLoad(bucket, table, hadoop);
            commitUntil(harness, 100);
            at100 = snapshotLoad(bucket, table, hadoop);
        }
        System.out.printf("snapshot load at 20 versions: %s; at 100: %s%n", at20, at100);
        assertThat(at20.version).isEqualTo(20);
        assertThat(at100.version).isEqualTo(100);
        assertThat(at20.startAfter).as("every log listing starts after a key").isTrue();
        assertThat(at100.startAfter).as("every log listing starts after a key").isTrue();
        assertThat(at100.requests)
                .as("LIST requests of the log per snapshot load")
                .isEqualTo(at20.requests);
        // What they return: the versions since the last log checkpoint, not the history.
        assertThat(at100.bytes).isLessThan(at20.bytes * 2);
    }

    private static void commitUntil(UpsertHarness harness, long version) {
        while (KernelTableReader.latestVersion(harness.table().location()) < version) {
            long id = harness.lastCheckpoint();
            harness.upsert(id, "d" + id % 3, (int) id);
            harness.commit();
        }
    }

    /** Uploads the local table's new files into the bucket, then loads its snapshot from S3. */
    private Listing snapshotLoad(String bucket, String table, Map<String, String> hadoop)
            throws IOException {
        org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
        S3.server().hadoopOptions().forEach(conf::set);
        // Not the cached file system of the bucket, which must be the one behind the proxy.
        conf.setBoolean("fs.s3a.impl.disable.cache", true);
        org.apache.hadoop.fs.FileSystem s3 =
                new org.apache.hadoop.fs.Path(table).getFileSystem(conf);
        try (Stream<Path> files = Files.walk(local)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                String relative = local.relativize(file).toString();
                // The log is what a snapshot load reads; the data files stay local.
                boolean rewritten = relative.endsWith("_last_checkpoint");
                if (!relative.startsWith("_delta_log") || !(uploaded.add(relative) || rewritten)) {
                    continue;
                }
                try (java.io.OutputStream out =
                        s3.create(new org.apache.hadoop.fs.Path(table + "/" + relative), true)) {
                    Files.copy(file, out);
                }
            }
        }
        DeltaTable opened =
                DeltaTable.open(
                        table,
                        StorageSettings.of(hadoop),
                        MergeOptions.DEFAULTS,
                        TableDefinition.existingTable(),
                        false);
        proxy.clearRequests();
        long version = opened.latestSnapshot().version();
        List<S3ForwardingProxy.Forwarded> lists =
                proxy.requests().stream().filter(r -> r.listsUnder("events/_delta_log/")).toList();
        return new Listing(
                version,
                lists.size(),
                lists.stream().mapToLong(S3ForwardingProxy.Forwarded::responseBytes).sum(),
                !lists.isEmpty() && lists.stream().allMatch(r -> r.uri().contains("start-after=")));
    }

    private record Listing(long version, int requests, long bytes, boolean startAfter) {}
}
