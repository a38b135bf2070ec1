package io.deltalite.flink.internal.delta.fileio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.delta.kernel.KernelIterators;
import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.faults.StorageFaults;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import io.deltalite.flink.testing.hdfs.MiniHdfsExtension;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tables on a real HDFS (a mini cluster in this JVM): the guarantees deltalite gives on a local
 * disk and on S3 hold there too — a file appears under its name only once whole, an abandoned or
 * unfinished write leaves nothing, a Delta log file is created once, and a commit that fails midway
 * is resolved exactly once by the retry and by a restarted job.
 */
class HdfsTableTest {
    @RegisterExtension static final MiniHdfsExtension HDFS = new MiniHdfsExtension();

    /** Orders by day, with deletion vectors allowed. */
    private static final TableDefinition ORDERS =
            new TableDefinition(
                    S3UpsertHarness.ORDERS.columns(),
                    S3UpsertHarness.ORDERS.primaryKey(),
                    S3UpsertHarness.ORDERS.partitionColumns(),
                    Map.of("delta.enableDeletionVectors", "true"));

    private String table;

    @AfterEach
    void disarm() {
        StorageFaults.disarm();
    }

    private String table(TestInfo test) {
        table =
                HDFS.uri()
                        + "/tables/"
                        + test.getTestMethod().orElseThrow().getName()
                        + "-"
                        + test.getDisplayName().replaceAll("[^A-Za-z0-9]", "");
        return table;
    }

    @Test
    void aJournalNoteOnHdfsAppearsOnlyOnceWholeAndAnAbandonedOneLeavesNothing(TestInfo test)
            throws IOException {
        String note = table(test) + "/_deltalite/journal/app/7-0.files";
        TrackingFileIO fileIO =
                new TrackingFileIO(
                        DeltaTable.fileIO(table, StorageSettings.of(Map.of())), Map.of());
        try (TrackingFileIO.WriteScope scope = new TrackingFileIO.WriteScope()) {
            PositionOutputStream out = fileIO.newOutputFile(note).create(false);
            out.write("half a note".getBytes(StandardCharsets.UTF_8));
            out.flush();
            assertThat(fs().exists(new Path(note))).as("a note before it is whole").isFalse();
        }

        assertThat(filesUnder(table + "/_deltalite")).as("left by the abandoned write").isEmpty();

        try (PositionOutputStream out = fileIO.newOutputFile(note).create(false)) {
            out.write("a whole note".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(filesUnder(table + "/_deltalite")).containsExactly(note);
    }

    @Test
    void aLogCheckpointWhoseContentFailedIsNotPublishedOnHdfs(TestInfo test) throws IOException {
        String checkpoint = table(test) + "/_delta_log/00000000000000000010.checkpoint.parquet";
        FileIO fileIO = DeltaTable.fileIO(table, StorageSettings.of(Map.of()));
        PublishGuard.abandon(checkpoint);
        try {
            PositionOutputStream out = fileIO.newOutputFile(checkpoint).create(true);
            out.write("PAR1 rows so far".getBytes(StandardCharsets.UTF_8));
            assertThatThrownBy(out::close)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("Not publishing " + checkpoint);
        } finally {
            PublishGuard.forget(checkpoint);
        }
        assertThat(filesUnder(table)).as("published or left").isEmpty();
    }

    @Test
    void aLogFileOnHdfsIsCreatedOnceAndTheLoserGetsTheConflictKernelExpects(TestInfo test)
            throws IOException {
        String commit = table(test) + "/_delta_log/00000000000000000000.json";
        FileIO fileIO = DeltaTable.fileIO(table, StorageSettings.of(Map.of()));
        fileIO.newOutputFile(commit).writeAtomically(lines("{\"winner\":1}"), false);

        assertThatThrownBy(
                        () ->
                                fileIO.newOutputFile(commit)
                                        .writeAtomically(lines("{\"loser\":1}"), false))
                .isInstanceOf(FileAlreadyExistsException.class);
        fileIO.newOutputFile(table + "/_delta_log/_last_checkpoint")
                .writeAtomically(lines("{\"version\":1}"), true);
        fileIO.newOutputFile(table + "/_delta_log/_last_checkpoint")
                .writeAtomically(lines("{\"version\":2}"), true);

        assertThat(read(commit)).isEqualTo("{\"winner\":1}\n");
        assertThat(read(table + "/_delta_log/_last_checkpoint")).isEqualTo("{\"version\":2}\n");
        assertThat(filesUnder(table + "/_delta_log"))
                .as("only the published files")
                .containsExactlyInAnyOrder(commit, table + "/_delta_log/_last_checkpoint");
    }

    /**
     * The commit file of a checkpoint lands on HDFS, then the write reports an error. The retry
     * finds the checkpoint committed; a restarted job committing the same checkpoint again finds it
     * too. Every change lands once: Kernel reads the table equal to the model.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void aCommitThatFailsMidwayOnHdfsIsResolvedExactlyOnceByTheRetryAndARestart(
            WriteMode mode, TestInfo test) {
        String location = table(test);
        MergeOptions options = MergeOptions.DEFAULTS.withWriteMode(mode);
        Map<Long, List<Object>> model = new TreeMap<>();
        try (UpsertHarness harness = UpsertHarness.open(location, ORDERS, options)) {
            for (long id = 0; id < 40; id++) {
                upsert(harness, model, id, "d" + (id % 2), (int) id);
            }
            assertThat(harness.commit().status()).isEqualTo(CommitOutcome.Status.COMMITTED);

            for (long id = 0; id < 40; id += 3) {
                upsert(harness, model, id, "d" + (id % 2), (int) id * 100);
            }
            harness.delete(5L, "d1", null);
            model.remove(5L);
            upsert(harness, model, 100L, "d2", 1);
            List<PartitionWriteResult> results = harness.prepare();
            long checkpoint = harness.lastCheckpoint();
            AtomicInteger failed = new AtomicInteger();
            StorageFaults.arm(
                    (operation, path, done) -> {
                        if (operation == StorageFaults.Operation.WRITE_COMMIT_FILE
                                && done
                                && failed.getAndIncrement() == 0) {
                            throw new IOException("the data node went away after the write");
                        }
                    });

            CommitOutcome retried = harness.commitPrepared(checkpoint, results);
            StorageFaults.disarm();

            assertThat(failed.get()).isEqualTo(1);
            assertThat(retried.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertRowsEqual(location, model);

            UpsertHarness restarted = UpsertHarness.restarted(harness, 0, checkpoint - 1);
            CommitOutcome again = restarted.commitPrepared(checkpoint, results);
            assertThat(again.status()).isEqualTo(CommitOutcome.Status.ALREADY_COMMITTED);
            assertRowsEqual(location, model);

            // A commit file that never lands: the attempt fails, the restarted job commits it.
            upsert(restarted, model, 1L, "d1", -1);
            List<PartitionWriteResult> next = restarted.prepare();
            long nextCheckpoint = restarted.lastCheckpoint();
            StorageFaults.arm(
                    (operation, path, done) -> {
                        if (operation == StorageFaults.Operation.WRITE_COMMIT_FILE && !done) {
                            throw new IOException("the name node is in safe mode");
                        }
                    });
            assertThatThrownBy(() -> restarted.commitPrepared(nextCheckpoint, next))
                    .isInstanceOf(DeltaLiteException.class)
                    .hasMessageContaining("safe mode");
            StorageFaults.disarm();
            UpsertHarness recovered = UpsertHarness.restarted(restarted, 0, nextCheckpoint - 1);
            assertThat(recovered.commitPrepared(nextCheckpoint, next).status())
                    .isEqualTo(CommitOutcome.Status.COMMITTED);
            assertRowsEqual(location, model);
        }
    }

    /** On HDFS too a file is synced ({@code hsync}) to the data nodes before its name appears. */
    @Test
    void aFileOnHdfsIsSyncedBeforeItsNameAppears(TestInfo test) throws IOException {
        String location = table(test);
        RecordingFileSystem hdfs = new RecordingFileSystem(new HdfsFiles(fs().getConf()));
        RenamingFileIO io =
                new RenamingFileIO(
                        new io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO(fs().getConf()),
                        hdfs);
        try (PositionOutputStream out =
                io.newOutputFile(location + "/_deltalite/journal/app/1-0.files").create(false)) {
            out.write("note".getBytes(StandardCharsets.UTF_8));
        }
        io.newOutputFile(location + "/_delta_log/00000000000000000000.json")
                .writeAtomically(lines("{}"), false);

        List<String> events = hdfs.events();
        for (String published : List.of("1-0.files", "00000000000000000000.json")) {
            String temporary = DurablePublishingTest.temporaryOf(events, published);
            DurablePublishingTest.assertInOrder(
                    events,
                    "sync " + temporary,
                    "close " + temporary,
                    "rename " + temporary + " -> " + published);
        }
        assertThat(read(location + "/_deltalite/journal/app/1-0.files")).isEqualTo("note");
    }

    /** A temporary file a writer that died left on HDFS is deleted when the table is opened. */
    @Test
    void aTemporaryFileACrashedWriterLeftOnHdfsIsSweptAtTheNextOpen(TestInfo test)
            throws IOException {
        String location = table(test);
        try (UpsertHarness harness = UpsertHarness.open(location, ORDERS, MergeOptions.DEFAULTS)) {
            harness.upsert(1L, "d1", 1);
            harness.commit();
        }
        long twoHoursAgo = System.currentTimeMillis() - 2 * 3600_000L;
        Path crashedCommit =
                new Path(
                        location
                                + "/_delta_log/.00000000000000000002.json."
                                + UUID.randomUUID()
                                + ".tmp");
        Path crashedNote =
                new Path(
                        location
                                + "/_deltalite/journal/app/.2-0.files."
                                + UUID.randomUUID()
                                + ".tmp");
        Path liveNote =
                new Path(
                        location
                                + "/_deltalite/journal/app/.3-0.files."
                                + UUID.randomUUID()
                                + ".tmp");
        for (Path file : List.of(crashedCommit, crashedNote, liveNote)) {
            try (var out = fs().create(file)) {
                out.write('{');
            }
        }
        fs().setTimes(crashedCommit, twoHoursAgo, -1);
        fs().setTimes(crashedNote, twoHoursAgo, -1);

        try (UpsertHarness reopened = UpsertHarness.open(location, ORDERS, MergeOptions.DEFAULTS)) {
            assertThat(fs().exists(crashedCommit)).isFalse();
            assertThat(fs().exists(crashedNote)).isFalse();
            assertThat(fs().exists(liveNote)).as("a live writer's").isTrue();
            reopened.upsert(2L, "d2", 2);
            assertThat(reopened.commit().status()).isEqualTo(CommitOutcome.Status.COMMITTED);
        }
    }

    private static void upsert(
            UpsertHarness harness, Map<Long, List<Object>> model, long id, String day, int v) {
        harness.upsert(id, day, v);
        model.put(id, List.of(id, day, v));
    }

    private static void assertRowsEqual(String location, Map<Long, List<Object>> model) {
        List<Object[]> expected = new ArrayList<>();
        model.values().forEach(row -> expected.add(row.toArray()));
        assertThat(Rows.sorted(KernelTableReader.readAll(location)))
                .isEqualTo(Rows.sorted(expected));
    }

    private static FileSystem fs() throws IOException {
        return HDFS.fileSystem();
    }

    /** Every file below {@code folder}, hidden ones included, as full hdfs:// paths. */
    private static List<String> filesUnder(String folder) throws IOException {
        List<String> files = new ArrayList<>();
        Path root = new Path(folder);
        if (!fs().exists(root)) {
            return files;
        }
        var listed = fs().listFiles(root, true);
        while (listed.hasNext()) {
            FileStatus file = listed.next();
            files.add(file.getPath().toString());
        }
        return files;
    }

    private static String read(String file) throws IOException {
        try (var in = fs().open(new Path(file))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static CloseableIterator<String> lines(String... lines) {
        return KernelIterators.of(List.of(lines).iterator());
    }
}
