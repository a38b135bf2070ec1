package io.deltalite.flink.internal.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.deltalite.flink.internal.storage.S3TableStorage;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kernel's S3 file access as deltalite's engine sees it: uploads left open by a failed write are
 * aborted when the write scope ends, and no operation falls back to a Kernel log store.
 */
class S3WriteScopeTest {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final int PART_SIZE = 5 << 20;

    @Test
    void anUploadLeftOpenWhenTheWriteScopeEndsIsAborted() throws IOException {
        String table = "s3a://" + S3.server().createBucket() + "/table";
        Configuration conf = configuration();
        TrackingFileIO fileIO =
                new TrackingFileIO(
                        new S3FileIO(
                                new HadoopFileIO(conf), S3TableStorage.open(table, conf, false)),
                        Map.of());
        String file = table + "/part-00000.parquet";
        byte[] twoParts = new byte[2 * PART_SIZE + 1];
        new Random(1).nextBytes(twoParts);

        List<String> created;
        try (TrackingFileIO.WriteScope scope = new TrackingFileIO.WriteScope()) {
            PositionOutputStream out = fileIO.newOutputFile(file).create(false);
            out.write(twoParts);
            created = scope.createdFiles();
            assertThat(fileSystem(table, conf).listMultipartUploads("table/")).hasSize(1);
        }

        assertThat(created).containsExactly(file);
        S3AFileSystem fs = fileSystem(table, conf);
        assertThat(fs.listMultipartUploads("table/")).as("unfinished uploads").isEmpty();
        assertThat(fs.exists(new Path(file))).isFalse();
    }

    @Test
    void kernelsLogStoresCannotBeUsedForS3() {
        Configuration conf = new Configuration();
        LogStoreGuard.install(conf);
        HadoopFileIO kernelDefault = new HadoopFileIO(conf);

        assertThatThrownBy(
                        () ->
                                kernelDefault
                                        .newOutputFile("s3a://bucket/table/_delta_log/0.json")
                                        .writeAtomically(
                                                KernelIterators.of(List.of("{}").iterator()),
                                                false))
                .hasStackTraceContaining("bypassed deltalite's conditional-write log access");
    }

    private static Configuration configuration() {
        Configuration conf = new Configuration();
        S3.server().hadoopOptions().forEach(conf::set);
        conf.set("fs.s3a.multipart.size", Integer.toString(PART_SIZE));
        return conf;
    }

    private static S3AFileSystem fileSystem(String table, Configuration conf) throws IOException {
        return (S3AFileSystem) new Path(table).getFileSystem(conf);
    }
}
