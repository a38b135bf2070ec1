package io.deltalite.flink.internal.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteUnsupportedStorageException;
import io.deltalite.flink.testing.s3.S3ForwardingProxy;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3aSettings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The probe tells an S3 endpoint that honours {@code If-None-Match: *} from one that ignores it,
 * and a table on the latter is refused unless the user declares a single writer.
 */
class S3ConditionalWriteProbeTest {
    /** Behind the dropping proxy the server must accept requests altered after signing. */
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension(false);

    private static S3ForwardingProxy ignoringEndpoint;

    @BeforeAll
    static void startProxy() {
        ignoringEndpoint = S3ForwardingProxy.droppingIfNoneMatch(S3.server().endpoint());
    }

    @AfterAll
    static void stopProxy() {
        ignoringEndpoint.close();
    }

    @Test
    void anEndpointThatHonoursTheConditionPassesAndTheProbeObjectIsDeleted() throws IOException {
        Path log = new Path("s3a://" + S3.server().createBucket() + "/table/_delta_log");
        FileSystem fs = log.getFileSystem(configuration(S3.server().endpoint()));

        assertThat(ConditionalWriteProbe.probe(fs, log)).isTrue();
        assertThat(filesUnder(fs, log)).as("files left under the log").isEmpty();
    }

    @Test
    void anEndpointThatIgnoresTheConditionFailsTheProbe() throws IOException {
        Path log = new Path("s3a://" + S3.server().createBucket() + "/table/_delta_log");
        FileSystem fs = log.getFileSystem(configuration(ignoringEndpoint.endpoint()));
        int droppedBefore = ignoringEndpoint.droppedConditions();

        assertThat(ConditionalWriteProbe.probe(fs, log)).isFalse();
        assertThat(ignoringEndpoint.droppedConditions() - droppedBefore)
                .as("both probe writes carried If-None-Match")
                .isEqualTo(2);
        assertThat(filesUnder(fs, log)).as("files left under the log").isEmpty();
    }

    @Test
    void aTableOnAnEndpointThatIgnoresTheConditionIsRefusedWithTheReasonAndWhatToDo() {
        String table = "s3a://" + S3.server().createBucket() + "/events";

        assertThatThrownBy(
                        () ->
                                S3TableStorage.open(
                                        table, configuration(ignoringEndpoint.endpoint()), false))
                .isInstanceOf(DeltaLiteUnsupportedStorageException.class)
                .hasMessageContaining(table)
                .hasMessageContaining(ignoringEndpoint.endpoint())
                .hasMessageContaining("ignores conditional writes")
                .hasMessageContaining("lost silently")
                .hasMessageContaining("supports conditional writes (If-None-Match)")
                .hasMessageContaining("'s3.single-writer'");
    }

    @Test
    void singleWriterModeOpensATableOnAnEndpointThatIgnoresTheCondition() throws IOException {
        String table = "s3a://" + S3.server().createBucket() + "/events";
        int droppedBefore = ignoringEndpoint.droppedConditions();

        S3TableStorage storage =
                S3TableStorage.open(table, configuration(ignoringEndpoint.endpoint()), true);
        storage.putIfAbsent(table + "/_delta_log/00000000000000000000.json", new byte[] {'x'});

        assertThat(ignoringEndpoint.droppedConditions() - droppedBefore)
                .as("no probe, only the commit's condition was dropped")
                .isEqualTo(1);
    }

    /** The files in {@code directory}; S3A may leave a marker for the directory itself. */
    private static List<String> filesUnder(FileSystem fs, Path directory) throws IOException {
        List<String> files = new ArrayList<>();
        RemoteIterator<LocatedFileStatus> listing = fs.listFiles(directory, true);
        while (listing.hasNext()) {
            files.add(listing.next().getPath().toString());
        }
        return files;
    }

    private static Configuration configuration(String endpoint) {
        Configuration conf = new Configuration();
        S3aSettings.forEndpoint(endpoint).forEach(conf::set);
        return conf;
    }
}
