package io.deltalite.flink.internal.sink;

import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.result.CheckpointResults;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.sink.Distribution;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the parts of the sink's operator graph for {@code DeltaLiteSink}: the keyBy (on partition
 * values or on the primary key) before the writers, the writers, the parallelism-1 aggregator, the
 * committer.
 */
@Internal
public final class SinkTopology {
    private static final Logger LOG = LoggerFactory.getLogger(SinkTopology.class);

    private SinkTopology() {}

    public static StatefulSinkWriter<RowData, WriterState> writer(
            SinkConfig config, WriterInitContext context, Collection<WriterState> restored) {
        FlinkVersionCheck.checkRunningFlink();
        return new DeltaLiteWriter(config, context, restored);
    }

    public static Committer<CheckpointResults> committer(
            SinkConfig config, CommitterInitContext context) {
        return committer(config, context, context.metricGroup(), 0);
    }

    /**
     * The committer of one table among several, its metrics in {@code metrics}; it checks the
     * checkpoints up to {@code checkedUpTo} as it checks those a job restored (their files exist,
     * fit the table's partitioning, hold no column the table no longer reads), for a table whose
     * schema changed after they were merged. 0 checks only what the job restored.
     */
    public static Committer<CheckpointResults> committer(
            SinkConfig config,
            CommitterInitContext context,
            MetricGroup metrics,
            long checkedUpTo) {
        FlinkVersionCheck.checkRunningFlink();
        return new DeltaLiteCommitter(config, context, metrics, checkedUpTo);
    }

    /**
     * Spreads the records over the writers as the sink's {@link Distribution} says: keyed by their
     * partition values, so one writer owns each partition (for an existing table the sink did not
     * declare partition columns for, the table's are used); or keyed by their primary key, so all
     * changes of a key reach one writer; a table without a key is appended to by every writer.
     */
    public static DataStream<RowData> distribute(SinkConfig config, DataStream<RowData> input) {
        if (config.distribution() == Distribution.KEY) {
            List<String> primaryKey = config.definition().primaryKey();
            return primaryKey.isEmpty() ? input.rebalance() : input.keyBy(keySelector(config));
        }
        List<String> partitionColumns =
                config.tablePartitionColumns().orElse(config.definition().partitionColumns());
        StreamExecutionEnvironment env = input.getExecutionEnvironment();
        refuseCheckpointsThatSplitAChange(
                config,
                partitionColumns,
                env.getCheckpointConfig(),
                env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE)
                        == RuntimeExecutionMode.BATCH);
        return input.keyBy(
                new ColumnValuesKeySelector(config.rowType(), partitionColumns, "Partition"));
    }

    /**
     * Refuses checkpoints that can split one change where its two halves reach two writers.
     * Unaligned, a barrier may overtake records still in flight to a writer, which then handles
     * them in its next checkpoint; at-least-once, a writer that has the barrier of one input but
     * not yet of another goes on reading the first, so records sent after the barrier join this
     * checkpoint. Either way, what one source sent to two writers may land in two checkpoints.
     * Distributed by partition, with a partition column outside the primary key, an update that
     * moves its row (the delete to one partition's writer, the insert to another's) and a key-only
     * delete (to the null partition's writer) of a row another writer inserts are such halves: one
     * version would show the key twice or not at all, and a key-only delete committed before the
     * insert it follows would leave the row for good. Distributed by key, all changes of a key
     * share one channel and stay in order; with the partition inside the key, a key never changes
     * writer.
     */
    static void refuseCheckpointsThatSplitAChange(
            SinkConfig config,
            List<String> partitionColumns,
            CheckpointConfig checkpoints,
            boolean batch) {
        List<String> primaryKey = config.definition().primaryKey();
        if (primaryKey.isEmpty() || batch || !checkpoints.isCheckpointingEnabled()) {
            // A batch run takes no checkpoints (its one commit holds all its input), whatever
            // mode the checkpoint settings report.
            return;
        }
        String mode;
        String alignedSetting;
        if (checkpoints.isUnalignedCheckpointsEnabled()) {
            mode = "unaligned checkpoints";
            alignedSetting =
                    "turn unaligned checkpoints off for this job"
                            + " (execution.checkpointing.unaligned.enabled: false)";
        } else if (checkpoints.getCheckpointingConsistencyMode()
                == CheckpointingMode.AT_LEAST_ONCE) {
            mode = "at-least-once checkpoints";
            alignedSetting =
                    "checkpoint this job exactly once"
                            + " (execution.checkpointing.mode: EXACTLY_ONCE)";
        } else {
            return;
        }
        List<String> outsideTheKey =
                partitionColumns.stream()
                        .filter(column -> primaryKey.stream().noneMatch(column::equalsIgnoreCase))
                        .toList();
        if (outsideTheKey.isEmpty()) {
            return;
        }
        throw new IllegalStateException(
                String.format(
                        "The deltalite sink for %s cannot run with %s while it is distributed by"
                                + " partition: the table is partitioned by %s, which the primary"
                                + " key %s does not include, so an update that moves a row to"
                                + " another partition, or a delete that carries only its key,"
                                + " reaches two writers, and %s may commit its two halves in two"
                                + " versions (the key twice or missing in between, or a deleted"
                                + " row left in the table). Set 'distribution' = 'key' (all"
                                + " changes of a key then go to one writer, in order), or %s.",
                        config.location(), mode, outsideTheKey, primaryKey, mode, alignedSetting));
    }

    /**
     * The writer each record of {@code config} goes to when the sink is distributed by key, of
     * {@code parallelism} writers over {@code keyGroups} key groups: for a Flink CDC pipeline,
     * whose own partitioner routes the records.
     */
    public static java.util.function.ToIntFunction<RowData> writerOfKey(
            SinkConfig config, int keyGroups, int parallelism) {
        return KeyRouting.writerOfKey(config, keyGroups, parallelism);
    }

    /** The key of a record when the sink is distributed by key. */
    static ColumnValuesKeySelector keySelector(SinkConfig config) {
        return new ColumnValuesKeySelector(
                config.rowType(), config.definition().primaryKey(), "Primary-key");
    }

    /**
     * Checks, when the job is built, the table properties and that the input fits a table that
     * already exists: its features, partition columns, primary key and column types, or that the
     * location can hold a new table. Errors name what differs. When the client cannot reach the
     * storage, the writers check it when they start.
     *
     * @return the configuration, with the table's partition columns when the table was read
     */
    public static SinkConfig checkTable(SinkConfig config) {
        FlinkVersionCheck.checkRunningFlink();
        DeltaTable.checkTableProperties(config.definition(), config.location());
        Optional<TableSchema> existing;
        try {
            existing =
                    DeltaTable.existingSchema(
                            config.location(), config.storage(), config.definition());
        } catch (DeltaLiteException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not read the Delta table at {} while building the job ({}); its"
                            + " schema is checked when the writers start, and all records go to"
                            + " one writer unless partitionKey(...) is declared.",
                    config.location(),
                    e.toString());
            return config;
        }
        // existingSchema has checked that the input fits the table (defaults included)
        return config.withTablePartitionColumns(
                existing.map(TableSchema::partitionColumns)
                        .orElse(config.definition().partitionColumns()));
    }

    /** One committable per checkpoint, from a single aggregator, to the committer. */
    public static DataStream<CommittableMessage<CheckpointResults>> aggregate(
            SinkConfig config, DataStream<CommittableMessage<WriteResult>> writeResults) {
        TypeInformation<CommittableMessage<CheckpointResults>> type =
                CommittableMessageTypeInfo.of(Serializers.CommittableSerializer::new);
        return writeResults
                .global()
                .transform("deltalite-commit-aggregator", type, CommitAggregator.ofOneTable(config))
                .setParallelism(1)
                .setMaxParallelism(1)
                .global();
    }
}
