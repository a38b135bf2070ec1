package io.deltalite.e2e.parity;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.commit.CheckpointCommitter;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.result.PartitionWriteResult;
import io.deltalite.flink.internal.merge.result.WriterShare;
import io.deltalite.flink.internal.merge.rewrite.PartitionMerger;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import io.deltalite.flink.internal.merge.writer.MergeWriter;
import io.deltalite.flink.internal.sink.ColumnValuesKeySelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A deltalite table written as the sink distributed by key writes it: several writers, each with
 * the keys of its own key group, every one of them changing every partition, and one committer
 * combining their results into one commit per batch.
 */
final class KeyedWriters implements AutoCloseable {
    private static final String APP_ID = "keyed";

    private final int[] keyIndexes;
    private final List<MergeWriter> writers = new ArrayList<>();
    private final CheckpointCommitter committer;
    private final ExecutorService files;
    private long checkpoint;

    KeyedWriters(String location, TableDefinition definition, MergeOptions options, int count) {
        this.keyIndexes = definition.toSchema().matchKeyIndexes();
        this.files = Executors.newFixedThreadPool(options.maxParallelFiles());
        DeltaTable table = DeltaTable.open(location, Map.of(), options, definition, true);
        for (int writer = 0; writer < count; writer++) {
            writers.add(
                    new MergeWriter(
                            table,
                            options,
                            APP_ID,
                            writer,
                            count,
                            1,
                            files,
                            WriterShare.keysIn(new KeyGroups("0000000c", writer, writer, count))));
        }
        this.committer =
                new CheckpointCommitter(
                        table, new PartitionMerger(table, options, files), options, APP_ID, 0);
    }

    void upsert(Object[] row) {
        writerOf(row).upsert(row);
    }

    void delete(Object[] row) {
        writerOf(row).delete(row);
    }

    /** Every writer prepares the batch as the next checkpoint; the committer lands it. */
    CommitOutcome commit() {
        checkpoint++;
        List<PartitionWriteResult> results = new ArrayList<>();
        for (MergeWriter writer : writers) {
            results.addAll(writer.prepare());
            writer.prepared(checkpoint);
        }
        return committer.commit(new CheckpointResults(APP_ID, checkpoint, results));
    }

    /** The writer of the row's key, by its values as the sink's key selector spells them. */
    private MergeWriter writerOf(Object[] row) {
        StringBuilder key = new StringBuilder();
        for (int index : keyIndexes) {
            ColumnValuesKeySelector.appendValue(key, row[index]);
        }
        return writers.get(Math.floorMod(key.toString().hashCode(), writers.size()));
    }

    @Override
    public void close() {
        writers.forEach(MergeWriter::close);
        files.shutdownNow();
    }
}
