package io.deltalite.flink.internal.delta.fileio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.deltalite.flink.internal.delta.kernel.KernelIterators;
import io.deltalite.flink.internal.storage.S3TableStorage;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kernel's S3 file access as deltalite's engine sees it: log writes are put-if-absent, uploads left
 * open by a failed write are aborted when the write scope ends, and no operation falls back to a
 * Kernel log store.
 */
class S3FileIOTest {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final int PART_SIZE = 5 << 20;

    @Test
    void aLogFileIsWrittenOnceAndALosingWriteIsTheConflictKernelExpects() throws IOException {
        String table = "s3a://" + S3.server().createBucket() + "/table";
        S3FileIO fileIO = fileIO(table);
        String commit = table + "/_delta_log/00000000000000000000.json";
        fileIO.newOutputFile(commit).writeAtomically(lines("{\"winner\":1}"), false);

        assertThatThrownBy(
                        () ->
                                fileIO.newOutputFile(commit)
                                        .writeAtomically(lines("{\"loser\":1}"), false))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(read(fileIO, commit)).isEqualTo("{\"winner\":1}\n");
    }

    @Test
    void anOverwritingWriteReplacesTheFile() throws IOException {
        String table = "s3a://" + S3.server().createBucket() + "/table";
        S3FileIO fileIO = fileIO(table);
        String lastCheckpoint = table + "/_delta_log/_last_checkpoint";
        fileIO.newOutputFile(lastCheckpoint).writeAtomically(lines("{\"version\":10}"), true);
        fileIO.newOutputFile(lastCheckpoint).writeAtomically(lines("{\"version\":20}"), true);

        assertThat(read(fileIO, lastCheckpoint)).isEqualTo("{\"version\":20}\n");
    }

    @Test
    void anAtomicCopyDoesNotReplaceAnExistingFile() throws IOException {
        String table = "s3a://" + S3.server().createBucket() + "/table";
        S3FileIO fileIO = fileIO(table);
        String source = table + "/_delta_log/_staged/commit.json";
        String target = table + "/_delta_log/00000000000000000003.json";
        fileIO.newOutputFile(source).writeAtomically(lines("{\"staged\":1}"), false);

        fileIO.copyFileAtomically(source, target, false);

        assertThat(read(fileIO, target)).isEqualTo("{\"staged\":1}\n");
        assertThatThrownBy(() -> fileIO.copyFileAtomically(source, target, false))
                .isInstanceOf(FileAlreadyExistsException.class);
    }

    @Test
    void theLogIsListedFromAVersionOnInNameOrder() throws IOException {
        String table = "s3a://" + S3.server().createBucket() + "/table";
        S3FileIO fileIO = fileIO(table);
        for (int version : new int[] {2, 0, 1}) {
            fileIO.newOutputFile(String.format("%s/_delta_log/%020d.json", table, version))
                    .writeAtomically(lines("{}"), false);
        }

        List<String> listed = new ArrayList<>();
        try (CloseableIterator<FileStatus> files =
                fileIO.listFrom(table + "/_delta_log/00000000000000000001.json")) {
            files.forEachRemaining(file -> listed.add(new Path(file.getPath()).getName()));
        }

        assertThat(listed)
                .containsExactly("00000000000000000001.json", "00000000000000000002.json");
    }

    @Test
    void anUploadLeftOpenWhenTheWriteScopeEndsIsAborted() throws IOException {
        String table = "s3a://" + S3.server().createBucket() + "/table";
        Configuration conf = configuration();
        TrackingFileIO fileIO =
                new TrackingFileIO(
                        // the layers of a table's engine
                        new FaultInjectingFileIO(
                                new S3FileIO(
                                        new HadoopFileIO(conf),
                                        S3TableStorage.open(table, conf, false))),
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

    private static S3FileIO fileIO(String table) {
        Configuration conf = configuration();
        return new S3FileIO(new HadoopFileIO(conf), S3TableStorage.open(table, conf, false));
    }

    private static CloseableIterator<String> lines(String... lines) {
        return KernelIterators.of(List.of(lines).iterator());
    }

    private static String read(S3FileIO fileIO, String path) throws IOException {
        long length = fileIO.getFileStatus(path).getSize();
        try (SeekableInputStream in = fileIO.newInputFile(path, length).newStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
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
