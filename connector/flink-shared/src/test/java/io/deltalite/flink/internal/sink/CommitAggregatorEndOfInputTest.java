package io.deltalite.flink.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.compat.Committables;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.value.ColumnStatistics;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletedKeys;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.UpsertStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/**
 * With checkpoints, Flink 2 sends a writer's last results with a checkpoint id (the one after the
 * last it knew), never as "end of input": the aggregator must still find the checkpoint that ends
 * every writer's input — the one of the last writer to end — so that the committer can close the
 * job's lineage after it.
 */
class CommitAggregatorEndOfInputTest {
    private static final String APP = "job-app";

    private static SinkConfig config() {
        return SinkConfig.create(
                "file:/tmp/aggregator-table",
                RowType.of(new LogicalType[] {new BigIntType(false)}, new String[] {"id"}),
                List.of("id"),
                List.of(),
                null,
                new Configuration(),
                Map.of(),
                Map.of(),
                null);
    }

    /** The sink of the jobs that fail over (its app ids name a submission). */
    private static final SinkConfig SUBMITTED = config();

    private static PartitionWriteResult result(int n) {
        DataFile file =
                new DataFile(
                        "file:/tmp/aggregator-table/" + n + ".parquet",
                        100,
                        1L,
                        1,
                        List.of(new ColumnStatistics(1L, 1L, 0)),
                        null,
                        "{\"numRecords\":1}");
        return new PartitionWriteResult(
                new PartitionValues(List.of()),
                0,
                "0:x",
                List.of(),
                List.of(file),
                List.of(),
                DeletedKeys.NONE,
                UpsertStats.EMPTY);
    }

    private static OneInputStreamOperatorTestHarness<
                    CommittableMessage<WriteResult>, CommittableMessage<CheckpointResults>>
            aggregator() throws Exception {
        OneInputStreamOperatorTestHarness<
                        CommittableMessage<WriteResult>, CommittableMessage<CheckpointResults>>
                harness =
                        new OneInputStreamOperatorTestHarness<>(
                                CommitAggregator.ofOneTable(config()));
        // The harness copies what the operator emits with this serializer (the job's own).
        harness.setup(
                CommittableMessageTypeInfo.of(Serializers.CommittableSerializer::new)
                        .createSerializer(new SerializerConfigImpl()));
        harness.open();
        return harness;
    }

    /**
     * The aggregator of job {@code job} — a failover restarts it in the same job — restored from
     * {@code restored} taken at checkpoint {@code checkpoint}.
     */
    private static OneInputStreamOperatorTestHarness<
                    CommittableMessage<WriteResult>, CommittableMessage<CheckpointResults>>
            aggregatorOf(JobID job, OperatorSubtaskState restored, long checkpoint)
                    throws Exception {
        // One job, one submission: the failover keeps the transaction app id.
        OneInputStreamOperatorTestHarness<
                        CommittableMessage<WriteResult>, CommittableMessage<CheckpointResults>>
                harness =
                        new OneInputStreamOperatorTestHarness<>(
                                CommitAggregator.ofOneTable(SUBMITTED),
                                new MockEnvironmentBuilder().setJobID(job).build());
        harness.setup(
                CommittableMessageTypeInfo.of(Serializers.CommittableSerializer::new)
                        .createSerializer(new SerializerConfigImpl()));
        if (restored != null) {
            harness.setRestoredCheckpointId(checkpoint);
            harness.initializeState(restored);
        }
        harness.open();
        return harness;
    }

    private static void send(
            OneInputStreamOperatorTestHarness<CommittableMessage<WriteResult>, ?> harness,
            int subtask,
            long checkpoint,
            WriteResult result)
            throws Exception {
        send(harness, subtask, 2, checkpoint, result);
    }

    private static void send(
            OneInputStreamOperatorTestHarness<CommittableMessage<WriteResult>, ?> harness,
            int subtask,
            int writers,
            long checkpoint,
            WriteResult result)
            throws Exception {
        harness.processElement(
                new StreamRecord<>(
                        Committables.<WriteResult>summary(subtask, writers, checkpoint, 1)));
        sendResult(harness, subtask, checkpoint, result);
    }

    /** Only the summary of a writer's part of a checkpoint: its result is still in flight. */
    private static void sendSummary(
            OneInputStreamOperatorTestHarness<CommittableMessage<WriteResult>, ?> harness,
            int subtask,
            long checkpoint)
            throws Exception {
        harness.processElement(
                new StreamRecord<>(Committables.<WriteResult>summary(subtask, 2, checkpoint, 1)));
    }

    /** Only the result of a writer's part of a checkpoint, whose summary came before. */
    private static void sendResult(
            OneInputStreamOperatorTestHarness<CommittableMessage<WriteResult>, ?> harness,
            int subtask,
            long checkpoint,
            WriteResult result)
            throws Exception {
        harness.processElement(
                new StreamRecord<>(new CommittableWithLineage<>(result, checkpoint, subtask)));
    }

    @SuppressWarnings("unchecked")
    private static List<CheckpointResults> committables(
            OneInputStreamOperatorTestHarness<?, CommittableMessage<CheckpointResults>> harness) {
        List<CheckpointResults> out = new ArrayList<>();
        for (Object o : harness.getOutput()) {
            if (o instanceof StreamRecord<?> record
                    && record.getValue() instanceof CommittableWithLineage<?> withLineage) {
                out.add((CheckpointResults) withLineage.getCommittable());
            }
        }
        return out;
    }

    /** The checkpoint ids of the summaries the aggregator sent to the committer, in order. */
    private static List<Long> summaries(OneInputStreamOperatorTestHarness<?, ?> harness) {
        List<Long> out = new ArrayList<>();
        for (Object o : harness.getOutput()) {
            if (o instanceof StreamRecord<?> record
                    && record.getValue() instanceof CommittableSummary<?> summary) {
                out.add(Committables.checkpointId(summary));
            }
        }
        return out;
    }

    /**
     * Both writers end in checkpoint 3, which completes; its commit fails and the job restores
     * checkpoint 3. Flink runs the writers again (the writer operator keeps no "ended" flag), their
     * input ends at once, and each announces its end again — empty, as checkpoint 4. The committer
     * refuses a second summary of a checkpoint ("Received duplicate committable summary"), on every
     * restart: checkpoint 4 must go out once.
     */
    @Test
    void writersThatEndedBeforeARestoreAnnounceTheirEndAgainAndTheCheckpointGoesOutOnce()
            throws Exception {
        JobID job = new JobID();
        String app = SUBMITTED.transactionAppId(job.toHexString());
        OperatorSubtaskState atCheckpoint3;
        try (var before = aggregatorOf(job, null, 0)) {
            send(before, 0, 3, new WriteResult(app, List.of(result(1)), true));
            send(before, 1, 3, new WriteResult(app, List.of(result(2)), true));
            assertThat(summaries(before)).containsExactly(3L);
            atCheckpoint3 = before.snapshot(3, 3);
        }
        try (var after = aggregatorOf(job, atCheckpoint3, 3)) {
            send(after, 0, 4, new WriteResult(app, List.of(), true));
            send(after, 1, 4, new WriteResult(app, List.of(), true));
            after.endInput();

            assertThat(summaries(after)).doesNotHaveDuplicates();
            assertThat(committables(after))
                    .allSatisfy(checkpoint -> assertThat(checkpoint.results()).isEmpty());
        }
    }

    /**
     * Writer 1 ended in checkpoint 3, writer 0 runs on. After the restore of checkpoint 3, writer 0
     * replays its input and ends as checkpoint 4 — which goes out at once, since writer 1 had ended
     * — and only then does writer 1, run again, announce its end again as checkpoint 4. Writer 0's
     * results go out once, in the committable that ends the input.
     */
    @Test
    void aWriterThatEndedBeforeARestoreAnnouncingItsEndAfterTheOthersSendsNothingTwice()
            throws Exception {
        JobID job = new JobID();
        String app = SUBMITTED.transactionAppId(job.toHexString());
        OperatorSubtaskState atCheckpoint3;
        try (var before = aggregatorOf(job, null, 0)) {
            send(before, 0, 3, new WriteResult(app, List.of(result(1)), false));
            send(before, 1, 3, new WriteResult(app, List.of(result(2)), true));
            atCheckpoint3 = before.snapshot(3, 3);
        }
        try (var after = aggregatorOf(job, atCheckpoint3, 3)) {
            send(after, 0, 4, new WriteResult(app, List.of(result(3)), true));
            send(after, 1, 4, new WriteResult(app, List.of(), true));
            after.endInput();

            assertThat(summaries(after)).containsExactly(4L);
            assertThat(committables(after))
                    .singleElement()
                    .satisfies(
                            checkpoint -> {
                                assertThat(checkpoint.endsInput()).isTrue();
                                assertThat(checkpoint.results()).hasSize(1);
                            });
        }
    }

    /**
     * As above, but an unaligned checkpoint 4 is taken between the two announcements: writer 0's
     * went out as checkpoint 4 before it, writer 1's was in flight and is saved with it. Restored
     * from checkpoint 4, Flink replays writer 1's announcement — and the checkpoint 4 the
     * aggregator had sent reaches the committer again from the committer's own state or from the
     * data in flight: the aggregator must not send it a second time.
     */
    @Test
    void anAnnouncementInFlightAtAnUnalignedCheckpointIsNotSentAgainAfterItsRestore()
            throws Exception {
        JobID job = new JobID();
        String app = SUBMITTED.transactionAppId(job.toHexString());
        OperatorSubtaskState atCheckpoint3;
        try (var first = aggregatorOf(job, null, 0)) {
            send(first, 0, 3, new WriteResult(app, List.of(result(1)), true));
            send(first, 1, 3, new WriteResult(app, List.of(result(2)), true));
            atCheckpoint3 = first.snapshot(3, 3);
        }
        OperatorSubtaskState atCheckpoint4;
        try (var second = aggregatorOf(job, atCheckpoint3, 3)) {
            send(second, 0, 4, new WriteResult(app, List.of(), true));
            assertThat(summaries(second)).containsExactly(4L);
            atCheckpoint4 = second.snapshot(4, 4);
        }
        try (var third = aggregatorOf(job, atCheckpoint4, 4)) {
            send(third, 1, 4, new WriteResult(app, List.of(), true));
            third.endInput();

            assertThat(summaries(third)).isEmpty();
        }
    }

    /**
     * A new job (another lineage) starts from an unaligned checkpoint 5 of an earlier one, taken
     * when the aggregator held writer 0's part of it and writer 1's part was in flight. Flink
     * replays writer 1's part first: checkpoint 5 goes out once, whole, before the new job's own.
     */
    @Test
    void aCheckpointOfAnEarlierJobSplitBetweenStateAndDataInFlightGoesOutWhole() throws Exception {
        JobID earlier = new JobID();
        String earlierApp = SUBMITTED.transactionAppId(earlier.toHexString());
        OperatorSubtaskState atCheckpoint5;
        try (var before = aggregatorOf(earlier, null, 0)) {
            send(before, 0, 5, new WriteResult(earlierApp, List.of(result(1)), false));
            atCheckpoint5 = before.snapshot(5, 5);
        }
        JobID later = new JobID();
        String laterApp = SUBMITTED.transactionAppId(later.toHexString());
        try (var after = aggregatorOf(later, atCheckpoint5, 5)) {
            send(after, 1, 5, new WriteResult(earlierApp, List.of(result(2)), false));
            send(after, 0, 6, new WriteResult(laterApp, List.of(result(3)), false));
            send(after, 1, 6, new WriteResult(laterApp, List.of(result(4)), false));

            assertThat(summaries(after)).containsExactly(5L, 6L);
            List<CheckpointResults> out = committables(after);
            assertThat(out.get(0).appId()).isEqualTo(earlierApp);
            assertThat(out.get(0).results()).hasSize(2);
            assertThat(out.get(1).appId()).isEqualTo(laterApp);
            assertThat(out.get(1).results()).hasSize(2);
        }
    }

    /**
     * Checkpoint 5 of an earlier job was declined after writer 0 prepared it (writer 1 skipped it);
     * the aggregator had taken writer 0's summary of 5, its results were in flight, when an
     * unaligned checkpoint 6 was taken that holds writer 1's part of 6. A new job starts from it.
     * Checkpoint 5 must reach the committer before 6: the committer takes a checkpoint at or below
     * one it committed for the same app id as committed already, and 5's changes would be lost.
     */
    @Test
    void anEarlierJobsCheckpointWhoseResultsWereInFlightGoesOutBeforeItsLaterOnes()
            throws Exception {
        JobID earlier = new JobID();
        String earlierApp = SUBMITTED.transactionAppId(earlier.toHexString());
        OperatorSubtaskState atCheckpoint6;
        try (var before = aggregatorOf(earlier, null, 0)) {
            sendSummary(before, 0, 5);
            send(before, 1, 6, new WriteResult(earlierApp, List.of(result(1)), false));
            atCheckpoint6 = before.snapshot(6, 6);
        }
        JobID later = new JobID();
        String laterApp = SUBMITTED.transactionAppId(later.toHexString());
        try (var after = aggregatorOf(later, atCheckpoint6, 6)) {
            // Writer 0's data in flight: its results of 5, then its part of 6.
            sendResult(after, 0, 5, new WriteResult(earlierApp, List.of(result(2)), false));
            send(after, 0, 6, new WriteResult(earlierApp, List.of(result(3)), false));
            send(after, 0, 7, new WriteResult(laterApp, List.of(result(4)), false));
            send(after, 1, 7, new WriteResult(laterApp, List.of(result(5)), false));

            assertThat(summaries(after)).containsExactly(5L, 6L, 7L);
            List<CheckpointResults> out = committables(after);
            assertThat(out)
                    .extracting(CheckpointResults::appId)
                    .containsExactly(earlierApp, earlierApp, laterApp);
            assertThat(out.get(0).results()).hasSize(1);
            assertThat(out.get(1).results()).hasSize(2);
        }
    }

    /**
     * As above, but the new job takes its checkpoint 7 before it read the earlier job's data in
     * flight (which checkpoint 7 saves again), and fails over to it: the earlier job's buckets stay
     * the earlier job's — also 5, whose results are still in flight — and go out in order.
     */
    @Test
    void aFailoverBeforeTheReplayOfAnEarlierJobsDataKeepsItsCheckpointsInOrder() throws Exception {
        JobID earlier = new JobID();
        String earlierApp = SUBMITTED.transactionAppId(earlier.toHexString());
        OperatorSubtaskState atCheckpoint6;
        try (var before = aggregatorOf(earlier, null, 0)) {
            sendSummary(before, 0, 5);
            send(before, 1, 6, new WriteResult(earlierApp, List.of(result(1)), false));
            atCheckpoint6 = before.snapshot(6, 6);
        }
        JobID later = new JobID();
        String laterApp = SUBMITTED.transactionAppId(later.toHexString());
        OperatorSubtaskState atCheckpoint7;
        try (var started = aggregatorOf(later, atCheckpoint6, 6)) {
            atCheckpoint7 = started.snapshot(7, 7);
        }
        try (var again = aggregatorOf(later, atCheckpoint7, 7)) {
            sendResult(again, 0, 5, new WriteResult(earlierApp, List.of(result(2)), false));
            send(again, 0, 6, new WriteResult(earlierApp, List.of(result(3)), false));
            send(again, 0, 8, new WriteResult(laterApp, List.of(result(4)), false));
            send(again, 1, 8, new WriteResult(laterApp, List.of(result(5)), false));

            assertThat(summaries(again)).containsExactly(5L, 6L, 8L);
            assertThat(committables(again))
                    .extracting(CheckpointResults::appId)
                    .containsExactly(earlierApp, earlierApp, laterApp);
        }
    }

    /**
     * As above, but all of the earlier job's checkpoint 5 was in flight (writer 0's summary too):
     * the replay brings a checkpoint the state lacks, and it still goes out before 6.
     */
    @Test
    void anEarlierJobsCheckpointEntirelyInFlightGoesOutBeforeItsLaterOnes() throws Exception {
        JobID earlier = new JobID();
        String earlierApp = SUBMITTED.transactionAppId(earlier.toHexString());
        OperatorSubtaskState atCheckpoint6;
        try (var before = aggregatorOf(earlier, null, 0)) {
            send(before, 1, 6, new WriteResult(earlierApp, List.of(result(1)), false));
            atCheckpoint6 = before.snapshot(6, 6);
        }
        JobID later = new JobID();
        String laterApp = SUBMITTED.transactionAppId(later.toHexString());
        try (var after = aggregatorOf(later, atCheckpoint6, 6)) {
            send(after, 0, 5, new WriteResult(earlierApp, List.of(result(2)), false));
            send(after, 0, 6, new WriteResult(earlierApp, List.of(result(3)), false));
            send(after, 0, 7, new WriteResult(laterApp, List.of(result(4)), false));
            send(after, 1, 7, new WriteResult(laterApp, List.of(result(5)), false));

            assertThat(summaries(after)).containsExactly(5L, 6L, 7L);
            assertThat(committables(after))
                    .extracting(CheckpointResults::appId)
                    .containsExactly(earlierApp, earlierApp, laterApp);
        }
    }

    /**
     * Writer 0 ends right after checkpoint 5 (its last results get id 6); writer 1 takes part in
     * checkpoint 6 (the abort of 6 reached writer 0 first, or an unaligned barrier overtook writer
     * 1's end of data) and ends with id 7. Checkpoint 7 goes out at once — writer 0 sends nothing
     * more — and it, only it, ends the input.
     */
    @Test
    void writersEndingInDifferentCheckpointsEndTheInputWithTheLastOfThem() throws Exception {
        try (OneInputStreamOperatorTestHarness<
                        CommittableMessage<WriteResult>, CommittableMessage<CheckpointResults>>
                harness = aggregator()) {
            send(harness, 0, 5, new WriteResult(APP, List.of(result(1)), false));
            send(harness, 1, 5, new WriteResult(APP, List.of(result(2)), false));
            send(harness, 0, 6, new WriteResult(APP, List.of(result(3)), true));
            send(harness, 1, 6, new WriteResult(APP, List.of(result(4)), false));
            send(harness, 1, 7, new WriteResult(APP, List.of(result(5)), true));

            List<CheckpointResults> out = committables(harness);
            assertThat(out).extracting(CheckpointResults::checkpointId).containsExactly(5L, 6L, 7L);
            assertThat(out)
                    .extracting(CheckpointResults::endsInput)
                    .containsExactly(false, false, true);
        }
    }

    /**
     * Both writers end in checkpoint 6 with nothing left to merge: their empty results still go out
     * as a committable that ends the input.
     */
    @Test
    void anEmptyLastCheckpointStillEndsTheInput() throws Exception {
        try (OneInputStreamOperatorTestHarness<
                        CommittableMessage<WriteResult>, CommittableMessage<CheckpointResults>>
                harness = aggregator()) {
            send(harness, 0, 5, new WriteResult(APP, List.of(result(1)), false));
            send(harness, 1, 5, new WriteResult(APP, List.of(result(2)), false));
            send(harness, 0, 6, new WriteResult(APP, List.of(), true));
            send(harness, 1, 6, new WriteResult(APP, List.of(), true));

            List<CheckpointResults> out = committables(harness);
            assertThat(out).extracting(CheckpointResults::checkpointId).containsExactly(5L, 6L);
            assertThat(out.get(1).endsInput()).isTrue();
            assertThat(out.get(1).results()).isEmpty();
        }
    }

    /** A checkpoint in which only some writers ended does not end the input. */
    @Test
    void aCheckpointWithSomeWritersStillRunningDoesNotEndTheInput() throws Exception {
        try (OneInputStreamOperatorTestHarness<
                        CommittableMessage<WriteResult>, CommittableMessage<CheckpointResults>>
                harness = aggregator()) {
            send(harness, 0, 5, new WriteResult(APP, List.of(result(1)), true));
            send(harness, 1, 5, new WriteResult(APP, List.of(result(2)), false));

            assertThat(committables(harness))
                    .singleElement()
                    .satisfies(checkpoint -> assertThat(checkpoint.endsInput()).isFalse());
        }
    }

    /**
     * Writers 2 and 3 of four ended; then the writers are two (the job was restored at another
     * parallelism, its aggregator keeping what it knew) and both run on: the two that had ended at
     * four say nothing of the two running now, so no checkpoint ends the input — closing the
     * lineage would delete what the running writers write.
     */
    @Test
    void writersThatEndedAtAnotherParallelismDoNotEndTheInput() throws Exception {
        try (OneInputStreamOperatorTestHarness<
                        CommittableMessage<WriteResult>, CommittableMessage<CheckpointResults>>
                harness = aggregator()) {
            for (int writer = 0; writer < 4; writer++) {
                send(
                        harness,
                        writer,
                        4,
                        6,
                        new WriteResult(APP, List.of(result(writer)), writer >= 2));
            }
            send(harness, 0, 2, 8, new WriteResult(APP, List.of(result(10)), false));
            send(harness, 1, 2, 8, new WriteResult(APP, List.of(result(11)), false));

            assertThat(committables(harness))
                    .filteredOn(checkpoint -> checkpoint.checkpointId() == 8)
                    .singleElement()
                    .satisfies(checkpoint -> assertThat(checkpoint.endsInput()).isFalse());
        }
    }
}
