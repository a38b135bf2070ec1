package io.deltalite.flink.internal.merge.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteCommitConflictException;
import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.delta.table.ForeignWriter;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.faults.StorageFaults;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.PendingCheckpoint;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.PruneStrategy;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The commit protocol where it is hardest: commits whose outcome is unknown, re-merges while a
 * writer reads, appends beside another writer, restored results of several writers.
 */
class CommitProtocolTest {
    private static final TableDefinition ITEMS = TestDefinitions.ITEMS;

    private static final TableDefinition EVENTS =
            new TableDefinition(ITEMS.columns(), List.of(), List.of(), Map.of());

    private static final TableDefinition BY_DAY =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                            new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    @TempDir Path dir;

    @AfterEach
    void disarm() {
        StorageFaults.disarm();
    }

    /**
     * The commit file of a re-merged checkpoint lands, but the store then reports an error (a
     * failed status call after the write, or S3A retrying its own conditional put and getting 412).
     * The next attempt finds the checkpoint committed; it must not delete the re-merge's files,
     * which the landed version references.
     */
    @ParameterizedTest(name = "error after landing: {0}")
    @ValueSource(strings = {"io-error", "already-exists"})
    void aCommitThatLandedButReportedAnErrorKeepsEveryFileItReferences(String error) {
        try (UpsertHarness harness = open(ITEMS)) {
            seedThreeFiles(harness);
            harness.upsert(15L, "ours");
            List<PartitionWriteResult> results = harness.prepare();
            // Another writer compacts the table: the checkpoint is merged again at commit.
            ForeignWriter.compact(location(), ITEMS.toSchema());
            AtomicInteger landed = new AtomicInteger();
            StorageFaults.arm(
                    (operation, path, done) -> {
                        if (operation == StorageFaults.Operation.WRITE_COMMIT_FILE
                                && done
                                && landed.getAndIncrement() == 0) {
                            throw error.equals("io-error")
                                    ? new IOException("connection reset after the write")
                                    : new FileAlreadyExistsException(path);
                        }
                    });

            CommitOutcome outcome = harness.commitPrepared(harness.lastCheckpoint(), results);

            assertThat(landed.get()).isEqualTo(1);
            assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(seededWith(15, "ours")));
            assertThat(DeltaHistory.transactionIds(dir))
                    .filteredOn(id -> id.startsWith(UpsertHarness.APP_ID))
                    .hasSize(4);
        }
    }

    /** A store that refuses the commit file is reported as a storage failure, not as a conflict. */
    @Test
    void aCommitFileThatCannotBeWrittenIsReportedAsAStorageFailure() {
        try (UpsertHarness harness = open(ITEMS, MergeOptions.DEFAULTS.withCommitRetries(2))) {
            seedThreeFiles(harness);
            long version = KernelTableReader.latestVersion(location());
            harness.upsert(15L, "ours");
            List<PartitionWriteResult> results = harness.prepare();
            StorageFaults.arm(
                    (operation, path, done) -> {
                        if (operation == StorageFaults.Operation.WRITE_COMMIT_FILE && !done) {
                            throw new IOException("No space left on device");
                        }
                    });

            assertThatThrownBy(() -> harness.commitPrepared(harness.lastCheckpoint(), results))
                    .isInstanceOf(DeltaLiteException.class)
                    .isNotInstanceOf(DeltaLiteCommitConflictException.class)
                    .hasMessageContaining(location())
                    .hasMessageContaining("Checkpoint " + harness.lastCheckpoint())
                    .hasMessageContaining("No space left on device")
                    .hasMessageNotContaining("other writers");
            StorageFaults.disarm();
            assertThat(KernelTableReader.latestVersion(location())).isEqualTo(version);
        }
    }

    /**
     * A re-merged checkpoint replaces the survivor files its writer produced. A writer whose view
     * still holds them reads them while the commit lands; they are deleted only once that writer
     * has seen the commit, and the table ends without an unreferenced file.
     */
    @Test
    void aReMergedCommitDeletesNoFileAWriterStillReads() {
        try (UpsertHarness harness = open(ITEMS)) {
            seedThreeFiles(harness);
            harness.upsert(15L, "ours");
            List<PartitionWriteResult> results = harness.prepare();
            List<DataFile> survivors = results.get(0).survivorFiles();
            assertThat(survivors).hasSize(1);
            String survivor = survivors.get(0).path();
            ForeignWriter.compact(location(), ITEMS.toSchema());
            long checkpoint = harness.lastCheckpoint();
            AtomicBoolean committed = new AtomicBoolean();
            AtomicInteger readsAfterCommit = new AtomicInteger();
            StorageFaults.arm(
                    (operation, path, done) -> {
                        if (operation == StorageFaults.Operation.READ_FILE
                                && path.equals(survivor)) {
                            if (committed.compareAndSet(false, true)) {
                                // The commit lands while the writer is about to read the file.
                                harness.commitPrepared(checkpoint, results);
                            }
                            readsAfterCommit.incrementAndGet();
                        }
                    });

            // The writer's next merge updates a key of the survivor file's range.
            harness.upsert(16L, "next");
            harness.commit();

            assertThat(readsAfterCommit.get()).isGreaterThan(0);
            // A later merge sees both checkpoints committed and cleans up.
            harness.upsert(17L, "last");
            harness.commit();
            harness.upsert(18L, "after");
            harness.prepare();
            List<Object[]> expected = seededWith(15, "ours");
            replace(expected, 16, "next");
            replace(expected, 17, "last");
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected));
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
            assertThat(Files.exists(Path.of(java.net.URI.create(survivor)))).isFalse();
        }
    }

    /**
     * An append-only table beside a writer that compacts or appends: the appends are rebased onto
     * the new version, never merged again (there is no key to merge by).
     */
    @ParameterizedTest(name = "prune strategy {0}")
    @EnumSource(PruneStrategy.class)
    void appendsBesideAnotherWriterAreRebasedNotMergedAgain(PruneStrategy strategy) {
        try (UpsertHarness harness =
                open(EVENTS, MergeOptions.DEFAULTS.withPruneStrategy(strategy))) {
            List<Object[]> expected = new ArrayList<>();
            for (long batch = 0; batch < 3; batch++) {
                for (long id = batch * 10; id < batch * 10 + 10; id++) {
                    harness.upsert(id, "ours");
                    expected.add(new Object[] {id, "ours"});
                }
                harness.commit();
            }
            harness.upsert(100L, "pending");
            expected.add(new Object[] {100L, "pending"});
            List<PartitionWriteResult> results = harness.prepare();
            ForeignWriter.compact(location(), EVENTS.toSchema());
            ForeignWriter.append(
                    location(),
                    EVENTS.toSchema(),
                    PartitionValues.UNPARTITIONED,
                    List.<Object[]>of(new Object[] {5L, "theirs"}),
                    ForeignWriter.Statistics.EXACT);
            expected.add(new Object[] {5L, "theirs"});

            CommitOutcome outcome = harness.commitPrepared(harness.lastCheckpoint(), results);

            assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(outcome.remergedPartitions()).isZero();
            assertThat(outcome.stats().filesRemoved()).isZero();
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected));
        }
    }

    /**
     * After a downscale, one writer restores the pending results that two writers prepared for the
     * same checkpoint. It keeps both in its view, and once the checkpoint is committed it removes
     * both journal entries.
     */
    @Test
    void resultsOfTwoWritersForOneCheckpointRestoredIntoOneAreAllKept() {
        MergeOptions options = MergeOptions.DEFAULTS;
        try (UpsertHarness first = open(BY_DAY, options, "rescaled", 0);
                UpsertHarness second = UpsertHarness.attach(first, 1)) {
            first.upsert(1L, "a", "first");
            second.upsert(2L, "b", "second");
            List<PartitionWriteResult> results = new ArrayList<>(first.prepare());
            results.addAll(second.prepareAs(first.lastCheckpoint()));
            long checkpoint = first.lastCheckpoint();
            List<PendingCheckpoint> restored = new ArrayList<>(first.writer().pending());
            restored.addAll(second.writer().pending());

            try (UpsertHarness downscaled = UpsertHarness.attach(first, 0)) {
                downscaled.writer().restorePending(restored);
                assertThat(downscaled.writer().pending())
                        .flatMap(PendingCheckpoint::results)
                        .extracting(PartitionWriteResult::partition)
                        .containsExactlyInAnyOrder(
                                new PartitionValues(List.of("a")),
                                new PartitionValues(List.of("b")));
                first.commitPrepared(checkpoint, results);
                // Updates of both keys, merged against the restored view.
                downscaled.upsert(1L, "a", "updated");
                downscaled.upsert(2L, "b", "updated");
                downscaled.commitAs(checkpoint + 1);

                // Checkpoint N is dropped from the view; N+1 waits for the table to show it.
                assertThat(downscaled.writer().pending())
                        .extracting(PendingCheckpoint::checkpointId)
                        .containsExactly(checkpoint + 1);
                assertThat(Rows.sorted(downscaled.read()))
                        .isEqualTo(
                                Rows.sorted(
                                        List.of(
                                                new Object[] {1L, "a", "updated"},
                                                new Object[] {2L, "b", "updated"})));
                downscaled.upsert(3L, "a", "x");
                downscaled.prepareAs(checkpoint + 2);
            }
            assertThat(journalEntries())
                    .allMatch(name -> name.startsWith(String.format("%020d", checkpoint + 2)));
        }
    }

    /**
     * Checkpoint 5 is an intermediate savepoint: it completed, but a failover restores checkpoint 4
     * (savepoints are not used for recovery). Its files are not deleted at the restart, because a
     * new job may start from the savepoint and commit them.
     */
    @Test
    void filesOfACompletedSavepointAFailoverDidNotRestoreStayCommittable() {
        try (UpsertHarness job = open(ITEMS, MergeOptions.DEFAULTS, "savepointed", 0)) {
            job.upsert(1L, "one");
            job.commitAs(4);
            job.upsert(2L, "two");
            List<PartitionWriteResult> savepoint = job.prepareAs(5);
            try (UpsertHarness restarted = UpsertHarness.restarted(job, 0, 4)) {
                restarted.writer().cleanUpEarlierStarts();
                // The failed-over job replays checkpoint 4 (already committed).
                restarted.commitPrepared(4, List.of());
            }
            // A job started from the savepoint commits it.
            CommitOutcome outcome = job.commitPrepared(5, savepoint);

            assertThat(outcome.status()).isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
            assertThat(Rows.sorted(job.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(new Object[] {1L, "one"}, new Object[] {2L, "two"})));
        }
    }

    /**
     * One writer reached the end of its input (its results wait in the aggregator's state), then
     * another writer fails and the job restarts: the finished writer's files stay for the final
     * commit.
     */
    @Test
    void endOfInputFilesOfAFinishedWriterSurviveAFailoverOfAnother() {
        try (UpsertHarness first = open(ITEMS, MergeOptions.DEFAULTS, "bounded", 0);
                UpsertHarness finished = UpsertHarness.attach(first, 1)) {
            first.upsert(1L, "one");
            first.commitAs(7);
            finished.upsert(2L, "two");
            List<PartitionWriteResult> endOfInput =
                    finished.prepareAs(CheckpointResults.END_OF_INPUT);
            try (UpsertHarness restarted = UpsertHarness.restarted(first, 0, 8)) {
                restarted.writer().cleanUpEarlierStarts();
                restarted.upsert(3L, "three");
                restarted.commitAs(9);
            }
            first.commitPrepared(CheckpointResults.END_OF_INPUT, endOfInput);

            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
            assertThat(first.read()).hasSize(3);
        }
    }

    /**
     * A failover loses checkpoint 5, which the writers had prepared: its files are deleted once a
     * later checkpoint of the same job is committed (the table then refuses 5 forever), not before.
     */
    @Test
    void filesOfACheckpointThatNeverCompletedAreDeletedOnceALaterOneCommits() {
        try (UpsertHarness job = open(ITEMS, MergeOptions.DEFAULTS, "failing", 0)) {
            job.upsert(1L, "one");
            job.commitAs(4);
            job.upsert(2L, "lost");
            List<PartitionWriteResult> lost = job.prepareAs(5);
            List<String> lostFiles = new ArrayList<>();
            lost.forEach(result -> lostFiles.addAll(result.writtenPaths()));
            try (UpsertHarness restarted = UpsertHarness.restarted(job, 0, 4)) {
                restarted.writer().cleanUpEarlierStarts();
                assertThat(lostFiles).allMatch(CommitProtocolTest::exists);
                restarted.upsert(2L, "two");
                restarted.commitAs(6);
            }
            assertThat(lostFiles).noneMatch(CommitProtocolTest::exists);
            assertThat(Rows.sorted(job.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(new Object[] {1L, "one"}, new Object[] {2L, "two"})));
            assertThat(journalEntries())
                    .noneMatch(name -> name.startsWith(String.format("%020d", 5)));
        }
    }

    /**
     * A writer dies after merging, before a checkpoint took its files: the next attempt of the job
     * deletes them, since no checkpoint can ever commit them.
     */
    @Test
    void filesAWriterWroteBeforeItsCheckpointAreDeletedByTheNextAttempt() {
        try (UpsertHarness job = open(ITEMS, MergeOptions.DEFAULTS, "crashing", 0)) {
            job.upsert(1L, "one");
            job.commitAs(1);
            job.upsert(2L, "never checkpointed");
            List<String> written = new ArrayList<>();
            job.writer().prepare().forEach(result -> written.addAll(result.writtenPaths()));
            assertThat(written).isNotEmpty().allMatch(CommitProtocolTest::exists);
            try (UpsertHarness restarted = UpsertHarness.restarted(job, 0, 1)) {
                assertThat(restarted.writer().cleanUpEarlierStarts()).isEqualTo(written.size());
            }
            assertThat(written).noneMatch(CommitProtocolTest::exists);
            assertThat(journalEntries()).isEmpty();
        }
    }

    /**
     * The last guard of every deletion: files that the log shows added stay, even when the journal
     * calls them garbage. Here a writer dies before its checkpoint took its files, yet another job
     * (a job started from a savepoint holding the same results, under its own app id) committed
     * them: the dead writer's next start must not delete what the table now reads.
     */
    @Test
    void filesAnotherJobCommittedStayWhenTheDeadWritersNextStartCleansUp() {
        try (UpsertHarness job = open(ITEMS, MergeOptions.DEFAULTS, "crashing", 0);
                UpsertHarness other = open(ITEMS, MergeOptions.DEFAULTS, "other-job", 1)) {
            job.upsert(1L, "one");
            job.commitAs(1);
            job.upsert(2L, "committed by the other job");
            List<PartitionWriteResult> results = job.writer().prepare();
            List<String> written = new ArrayList<>();
            results.forEach(result -> written.addAll(result.writtenPaths()));
            assertThat(other.commitPrepared(7, results).status())
                    .isEqualTo(CommitOutcome.Status.COMMITTED);

            try (UpsertHarness restarted = UpsertHarness.restarted(job, 0, 1)) {
                assertThat(restarted.writer().cleanUpEarlierStarts()).isZero();
            }

            assertThat(written).isNotEmpty().allMatch(CommitProtocolTest::exists);
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
            assertThat(Rows.sorted(job.read()))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {1L, "one"},
                                            new Object[] {2L, "committed by the other job"})));
        }
    }

    /**
     * The table's history was started over at the same location (its {@code _delta_log} deleted,
     * the files converted into a new table) while deltalite's journal survived: a note made at
     * version 3 of the old history says nothing about version 0 of the new one, which references
     * the noted file. The dead writer's next start must leave it.
     */
    @Test
    void aNoteFromAnEarlierHistoryOfTheLocationDeletesNothing() throws IOException {
        try (UpsertHarness job = open(ITEMS, MergeOptions.DEFAULTS, "crashing", 0)) {
            for (long id = 1; id <= 3; id++) {
                job.upsert(id, "old history");
                job.commitAs(id);
            }
            job.upsert(9L, "converted");
            List<PartitionWriteResult> results = job.writer().prepare();
            DataFile noted = results.get(0).upsertFiles().get(0);

            Path log = dir.resolve("_delta_log");
            String firstCommit = Files.readString(log.resolve(String.format("%020d.json", 0)));
            try (Stream<Path> files = Files.list(log)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            StringBuilder converted = new StringBuilder();
            for (String line : firstCommit.split("\n")) {
                if (line.startsWith("{\"protocol\"") || line.startsWith("{\"metaData\"")) {
                    converted.append(line).append('\n');
                }
            }
            converted.append(
                    String.format(
                            "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%d,"
                                    + "\"modificationTime\":%d,\"dataChange\":true}}%n",
                            Path.of(java.net.URI.create(noted.path())).getFileName(),
                            noted.sizeBytes(),
                            noted.modificationTime()));
            Files.writeString(log.resolve(String.format("%020d.json", 0)), converted);

            try (UpsertHarness restarted = UpsertHarness.restarted(job, 0, 3)) {
                assertThat(restarted.writer().cleanUpEarlierStarts()).isZero();
            }
            assertThat(exists(noted.path())).isTrue();
            assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
            assertThat(Rows.sorted(job.read()))
                    .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {9L, "converted"})));
        }
    }

    /**
     * A writer that restarts cleans up after its own earlier start only: the files another writer
     * noted (in batch mode, a finished writer whose results wait for the end of the job) stay.
     */
    @Test
    void aRestartedWriterLeavesTheFilesOfAnotherWriterAlone() {
        try (UpsertHarness first = open(BY_DAY, MergeOptions.DEFAULTS, "batch", 0);
                UpsertHarness finished = UpsertHarness.attach(first, 1)) {
            finished.upsert(2L, "b", "finished");
            List<String> waiting = new ArrayList<>();
            finished.writer().prepare().forEach(result -> waiting.addAll(result.writtenPaths()));
            first.upsert(1L, "a", "failed");
            List<String> lost = new ArrayList<>();
            first.writer().prepare().forEach(result -> lost.addAll(result.writtenPaths()));

            try (UpsertHarness restarted = UpsertHarness.restarted(first, 0, 0)) {
                restarted.writer().cleanUpEarlierStarts();
            }

            assertThat(waiting).isNotEmpty().allMatch(CommitProtocolTest::exists);
            assertThat(lost).isNotEmpty().noneMatch(CommitProtocolTest::exists);
        }
    }

    /**
     * A batch run whose only changes delete keys the table does not hold: its end-of-input
     * checkpoint changes no file, yet its writers staged the deleted keys and noted them in the
     * journal. Committing it must still resolve the lineage — nothing may stay behind.
     */
    @Test
    void aBatchRunThatOnlyDeletesAbsentKeysLeavesNoJournalAndNoStagedKeys() {
        try (UpsertHarness seed = open(ITEMS)) {
            seed.upsert(1L, "kept");
            seed.commit();
        }
        try (UpsertHarness batch = open(ITEMS, MergeOptions.DEFAULTS, "batch-run", 0)) {
            for (long id = 1000; id <= 1000 + DeletedKeys.INLINE_LIMIT; id++) {
                batch.delete(id, null);
            }
            List<PartitionWriteResult> results = batch.prepareAs(CheckpointResults.END_OF_INPUT);
            assertThat(stagedKeyFiles()).hasSize(1);
            assertThat(journalEntries("batch-run")).isNotEmpty();

            batch.commitPrepared(CheckpointResults.END_OF_INPUT, results);

            assertThat(journalEntries("batch-run")).isEmpty();
            assertThat(stagedKeyFiles()).isEmpty();
            assertThat(Rows.sorted(batch.read()))
                    .isEqualTo(Rows.sorted(List.<Object[]>of(new Object[] {1L, "kept"})));
        }
    }

    /**
     * A batch run whose end brings no result at all (the writer that wrote these files failed and
     * its input was re-read by a writer that found nothing to change): the files it noted are still
     * cleaned up when the run ends.
     */
    @Test
    void aBatchRunEndingWithoutResultsStillCleansUpWhatItsWritersNoted() {
        try (UpsertHarness batch = open(ITEMS, MergeOptions.DEFAULTS, "batch-run", 0)) {
            batch.upsert(1L, "lost");
            List<String> written = new ArrayList<>();
            batch.writer().prepare().forEach(result -> written.addAll(result.writtenPaths()));
            assertThat(written).isNotEmpty().allMatch(CommitProtocolTest::exists);

            System.err.println(
                    "OUTCOME " + batch.commitPrepared(CheckpointResults.END_OF_INPUT, List.of()));

            assertThat(journalEntries("batch-run")).isEmpty();
            assertThat(written).noneMatch(CommitProtocolTest::exists);
            assertThat(batch.read()).isEmpty();
        }
    }

    /**
     * The end-of-input checkpoint of a streaming job brings no change at all: the lineage is closed
     * all the same, and a replay of it after a restore is recognized as committed.
     */
    @Test
    void anEndOfInputCheckpointWithoutChangesStillClosesTheLineageAndReplaysAsCommitted() {
        try (UpsertHarness job = open(ITEMS, MergeOptions.DEFAULTS, "bounded-stream", 0)) {
            for (long id = 1000; id <= 1000 + DeletedKeys.INLINE_LIMIT; id++) {
                job.delete(id, null);
            }
            List<PartitionWriteResult> results = job.prepareAs(7);
            CheckpointResults last = new CheckpointResults("bounded-stream", 7, results, true);
            assertThat(UpsertHarness.committerOf(job).commit(last).status())
                    .isEqualTo(CommitOutcome.Status.COMMITTED);
            assertThat(journalEntries("bounded-stream")).isEmpty();
            assertThat(stagedKeyFiles()).isEmpty();

            CommitOutcome replay = UpsertHarness.committerOf(job).commit(last);

            assertThat(replay.status()).isEqualTo(CommitOutcome.Status.ALREADY_COMMITTED);
        }
    }

    private static boolean exists(String path) {
        return Files.exists(Path.of(java.net.URI.create(path)));
    }

    private List<String> stagedKeyFiles() {
        Path staged = dir.resolve("_deltalite/staged");
        if (!Files.isDirectory(staged)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(staged)) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> !name.startsWith("."))
                    .toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private List<String> journalEntries() {
        return journalEntries("");
    }

    /** The journal entries of one app id's lineage, or of all when {@code appId} is empty. */
    private List<String> journalEntries(String appId) {
        Path journal = dir.resolve("_deltalite/journal").resolve(appId);
        if (!Files.isDirectory(journal)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(journal)) {
            return files.filter(Files::isRegularFile)
                    .map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(".files") && !name.startsWith("."))
                    .toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Keys 0..29 in three files of ten, each committed as its own checkpoint. */
    private static void seedThreeFiles(UpsertHarness harness) {
        for (long first = 0; first < 30; first += 10) {
            for (long id = first; id < first + 10; id++) {
                harness.upsert(id, "initial");
            }
            harness.commit();
        }
    }

    /**
     * A writer prepares checkpoint 2 and its job fails before the checkpoint completes. The job
     * restores checkpoint 1, and the restarted writer reaches the end of its input before the next
     * checkpoint: Flink numbers those last results after the last checkpoint the writer saw, the
     * restored one, so the writer prepares checkpoint 2 again, with other files. Once the job ends,
     * nothing of the first attempt's checkpoint 2 may remain.
     */
    @Test
    void aCheckpointIdPreparedAgainAtTheEndOfTheInputAfterARestoreLeavesNoFileOfTheAttemptBefore() {
        try (UpsertHarness first = open(ITEMS)) {
            first.upsert(1L, "one");
            first.commit();
            first.upsert(2L, "two, first attempt");
            first.upsert(3L, "three, first attempt");
            first.prepareAs(2);
            // The job fails: checkpoint 2 never completes, its files stay noted.
            first.writer().discardUncommittable();
            assertThat(DeltaHistory.uncommittedDataFiles(dir)).isNotEmpty();

            try (UpsertHarness second = UpsertHarness.restarted(first, 0, 1)) {
                endTheInputAtCheckpointTwo(second);
                assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
                assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
                assertThat(DeltaHistory.journalNotes(dir)).isEmpty();
            }
        }
    }

    /**
     * As above, but the failed attempt had also prepared checkpoint 3 (its own end of input). The
     * job ends at checkpoint 2, so checkpoint 3 is neither committed nor refused: an intermediate
     * savepoint numbered 3 could still be resumed. Its files stay, kept by their note, for the
     * maintenance pass; nothing else is left.
     */
    @Test
    void notesOfCheckpointsAfterTheLastOneOfAnEndedJobStayForMaintenance() {
        try (UpsertHarness first = open(ITEMS)) {
            first.upsert(1L, "one");
            first.commit();
            first.upsert(2L, "two, first attempt");
            first.prepareAs(2);
            first.upsert(3L, "three, first attempt");
            first.prepareAs(3);
            first.writer().discardUncommittable();

            try (UpsertHarness second = UpsertHarness.restarted(first, 0, 1)) {
                endTheInputAtCheckpointTwo(second);
                assertThat(DeltaHistory.journalNotes(dir))
                        .singleElement()
                        .asString()
                        .contains("00000000000000000003-w0-");
                assertThat(DeltaHistory.uncommittedDataFiles(dir)).isNotEmpty();
                assertThat(DeltaHistory.uncommittedFilesNoNoteKeeps(dir)).isEmpty();
                assertThat(DeltaHistory.notesNotKeptForMaintenance(dir)).isEmpty();
                assertThat(DeltaHistory.missingReferencedFiles(dir)).isEmpty();
            }
        }
    }

    /**
     * The restarted writer of the two tests above: it updates key 2 and reaches the end of its
     * input before any checkpoint, so its last results are checkpoint 2 (the restored 1, plus 1),
     * which the job commits as its last.
     */
    private static void endTheInputAtCheckpointTwo(UpsertHarness restarted) {
        restarted.writer().cleanUpEarlierStarts();
        restarted.upsert(2L, "two");
        List<PartitionWriteResult> results = restarted.prepareAs(2);
        UpsertHarness.committerOf(restarted)
                .commit(new CheckpointResults(UpsertHarness.APP_ID, 2, results, true));
        assertThat(Rows.sorted(restarted.read()))
                .isEqualTo(
                        Rows.sorted(List.of(new Object[] {1L, "one"}, new Object[] {2L, "two"})));
    }

    private static List<Object[]> seededWith(long id, String value) {
        List<Object[]> rows = new ArrayList<>();
        for (long key = 0; key < 30; key++) {
            rows.add(new Object[] {key, key == id ? value : "initial"});
        }
        return rows;
    }

    private static void replace(List<Object[]> rows, long id, String value) {
        rows.removeIf(row -> (Long) row[0] == id);
        rows.add(new Object[] {id, value});
    }

    private UpsertHarness open(TableDefinition definition) {
        return open(definition, MergeOptions.DEFAULTS);
    }

    private UpsertHarness open(TableDefinition definition, MergeOptions options) {
        return UpsertHarness.open(location(), definition, options);
    }

    private UpsertHarness open(
            TableDefinition definition, MergeOptions options, String appId, int subtask) {
        return UpsertHarness.open(location(), definition, options, appId, subtask);
    }

    private String location() {
        return dir.toString();
    }
}
