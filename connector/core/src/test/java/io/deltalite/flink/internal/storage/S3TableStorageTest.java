package io.deltalite.flink.internal.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteUnsupportedStorageException;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.Statistic;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The S3 storage of a table against a real S3 server (S3Proxy). */
class S3TableStorageTest {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final int MULTIPART_SIZE = 5 << 20;

    private String bucket;
    private String table;
    private S3TableStorage storage;

    @BeforeEach
    void openTable() {
        bucket = S3.server().createBucket();
        table = "s3a://" + bucket + "/table";
        storage = S3TableStorage.open(table, configuration(Map.of()), false);
    }

    @Test
    void putIfAbsentCreatesAMissingObject() throws IOException {
        storage.putIfAbsent(table + "/_delta_log/00000000000000000000.json", bytes("v0"));

        assertThat(read(table + "/_delta_log/00000000000000000000.json")).isEqualTo("v0");
    }

    @Test
    void putIfAbsentOfAnExistingObjectFailsAndKeepsIt() throws IOException {
        String commit = table + "/_delta_log/00000000000000000001.json";
        storage.putIfAbsent(commit, bytes("winner"));

        assertThatThrownBy(() -> storage.putIfAbsent(commit, bytes("loser")))
                .isInstanceOf(FileAlreadyExistsException.class)
                .hasMessageContaining(commit);
        assertThat(read(commit)).isEqualTo("winner");
    }

    @Test
    void ofEightConcurrentPutIfAbsentExactlyOneWinsPerKey() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 5; round++) {
                String commit = table + "/_delta_log/race-" + round + ".json";
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Boolean>> attempts = new ArrayList<>();
                for (int writer = 0; writer < 8; writer++) {
                    String content = "writer-" + writer;
                    attempts.add(
                            threads.submit(
                                    (Callable<Boolean>)
                                            () -> {
                                                start.await();
                                                try {
                                                    storage.putIfAbsent(commit, bytes(content));
                                                    return true;
                                                } catch (FileAlreadyExistsException lost) {
                                                    return false;
                                                }
                                            }));
                }
                start.countDown();
                List<Integer> winners = new ArrayList<>();
                for (int writer = 0; writer < 8; writer++) {
                    if (attempts.get(writer).get()) {
                        winners.add(writer);
                    }
                }
                assertThat(winners).as("winners of round %d", round).hasSize(1);
                assertThat(read(commit)).isEqualTo("writer-" + winners.get(0));
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void putReplacesAnObject() throws IOException {
        String lastCheckpoint = table + "/_delta_log/_last_checkpoint";
        storage.put(lastCheckpoint, bytes("{\"version\":10}"));
        storage.put(lastCheckpoint, bytes("{\"version\":20}"));

        assertThat(read(lastCheckpoint)).isEqualTo("{\"version\":20}");
    }

    @Test
    void listFromReturnsTheFilesFromANameOnInNameOrder() throws IOException {
        for (String name : List.of("00002.json", "00000.json", "00001.json", "00003.crc")) {
            storage.putIfAbsent(table + "/_delta_log/" + name, bytes(name));
        }
        storage.put(table + "/_delta_log/_sidecars/a.parquet", bytes("a"));

        List<String> names = new ArrayList<>();
        for (FileStatus status : storage.listFrom(table + "/_delta_log/00001.")) {
            names.add(status.getPath().getName());
        }

        assertThat(names).containsExactly("00001.json", "00002.json", "00003.crc");
    }

    @Test
    void listFromAMissingDirectoryIsFileNotFound() {
        assertThatThrownBy(() -> storage.listFrom(table + "/nothing/_delta_log/00000."))
                .isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void aFileLargerThanThePartSizeIsAMultipartUploadAndReadsBack() throws IOException {
        byte[] content = randomBytes(2 * MULTIPART_SIZE + 12345);
        S3AFileSystem fs = fileSystem();
        long multipartBefore = multipartUploadsStarted(fs);

        try (ObjectUpload upload = storage.create(table + "/part-0.parquet")) {
            upload.write(content);
            assertThat(upload.position()).isEqualTo(content.length);
        }

        assertThat(multipartUploadsStarted(fs)).isGreaterThan(multipartBefore);
        S3AFileStatus status =
                (S3AFileStatus) fs.getFileStatus(new Path(table + "/part-0.parquet"));
        assertThat(status.getEtag())
                .as("the ETag of an object uploaded in 3 parts")
                .endsWith("-3\"");
        try (InputStream in = storage.open(table + "/part-0.parquet")) {
            assertThat(in.readAllBytes()).isEqualTo(content);
        }
    }

    @Test
    void anAbortedMultipartUploadLeavesNeitherTheObjectNorAnUpload() throws IOException {
        S3AFileSystem fs = fileSystem();
        ObjectUpload upload = storage.create(table + "/part-1.parquet");
        upload.write(randomBytes(2 * MULTIPART_SIZE + 1));
        assertThat(fs.listMultipartUploads("table/")).hasSize(1);

        assertThat(upload.abortIfOpen()).isTrue();

        assertThat(fs.listMultipartUploads("table/")).isEmpty();
        assertThat(fs.exists(new Path(table + "/part-1.parquet"))).isFalse();
        assertThat(upload.abortIfOpen()).as("a second abort has nothing to do").isFalse();
    }

    @Test
    void aClosedUploadIsNotAborted() throws IOException {
        ObjectUpload upload = storage.create(table + "/part-2.parquet");
        upload.write(bytes("data"));
        upload.close();

        assertThat(upload.abortIfOpen()).isFalse();
        assertThat(read(table + "/part-2.parquet")).isEqualTo("data");
    }

    @Test
    void withConditionalWritesTurnedOffTheTableIsRefused() {
        Configuration conf = configuration(Map.of("fs.s3a.create.conditional.enabled", "false"));
        String other = "s3a://" + S3.server().createBucket() + "/table";

        assertThatThrownBy(() -> S3TableStorage.open(other, conf, false))
                .isInstanceOf(DeltaLiteUnsupportedStorageException.class)
                .hasMessageContaining(other)
                .hasMessageContaining("fs.s3a.create.conditional.enabled = false")
                .hasMessageContaining("s3.single-writer");
    }

    @Test
    void singleWriterModeWithoutConditionalWritesStillRefusesAnExistingLogFile()
            throws IOException {
        String other = "s3a://" + S3.server().createBucket() + "/table";
        S3TableStorage singleWriter =
                S3TableStorage.open(
                        other,
                        configuration(Map.of("fs.s3a.create.conditional.enabled", "false")),
                        true);
        String commit = other + "/_delta_log/00000000000000000000.json";
        singleWriter.putIfAbsent(commit, bytes("first"));

        assertThatThrownBy(() -> singleWriter.putIfAbsent(commit, bytes("second")))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(singleWriter.toString()).contains("CHECK_THEN_PUT");
    }

    private String read(String path) throws IOException {
        try (InputStream in = storage.open(path)) {
            return new String(in.readAllBytes(), UTF_8);
        }
    }

    private static long multipartUploadsStarted(S3AFileSystem fs) {
        return fs.getIOStatistics()
                .counters()
                .getOrDefault(Statistic.OBJECT_MULTIPART_UPLOAD_INITIATED.getSymbol(), 0L);
    }

    private S3AFileSystem fileSystem() throws IOException {
        return (S3AFileSystem) new Path(table).getFileSystem(configuration(Map.of()));
    }

    /**
     * The test server's settings, with uploads in parts of 5 MiB (the smallest S3 allows). Hadoop
     * keeps one file system per bucket: settings must not differ between uses of one bucket.
     */
    static Configuration configuration(Map<String, String> extra) {
        Configuration conf = new Configuration();
        S3.server().hadoopOptions().forEach(conf::set);
        conf.set("fs.s3a.multipart.size", Integer.toString(MULTIPART_SIZE));
        extra.forEach(conf::set);
        return conf;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }

    private static byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        new Random(length).nextBytes(bytes);
        return bytes;
    }
}
