package io.deltalite.flink.cdc;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.event.Event;
import org.apache.flink.cdc.common.event.SchemaChangeEventType;
import org.apache.flink.cdc.common.function.HashFunctionProvider;
import org.apache.flink.cdc.common.pipeline.SchemaChangeBehavior;
import org.apache.flink.cdc.common.sink.DataSink;
import org.apache.flink.cdc.common.sink.FlinkSinkProvider;
import org.apache.flink.cdc.common.sink.MetadataApplier;
import org.apache.flink.cdc.runtime.operators.schema.regular.SchemaOperatorFactory;
import org.apache.flink.cdc.runtime.operators.sink.DataSinkWriterOperatorFactory;
import org.apache.flink.cdc.runtime.partitioning.EventPartitioner;
import org.apache.flink.cdc.runtime.partitioning.PartitioningEventKeySelector;
import org.apache.flink.cdc.runtime.partitioning.PostPartitionProcessor;
import org.apache.flink.cdc.runtime.partitioning.RegularPrePartitionOperator;
import org.apache.flink.cdc.runtime.typeutils.EventTypeInfo;
import org.apache.flink.cdc.runtime.typeutils.PartitioningEventTypeInfo;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.shaded.guava31.com.google.common.hash.Hashing;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.WithPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.runtime.operators.sink.CommitterOperatorFactory;

/**
 * A Flink CDC pipeline's topology from its source on, wired from flink-cdc-runtime's operators as
 * Flink CDC 3.5's composer wires the regular topology ({@code FlinkPipelineComposer#translate},
 * {@code SchemaOperatorTranslator}, {@code PartitioningTranslator#translateRegular}, {@code
 * DataSinkTranslator#sinkTo}): the composer itself is not published where these tests run. The
 * schema operator and its coordinator run the sink's metadata applier; the partitioner routes by
 * the sink's hash function; the sink writer operator flushes the sink for each {@code FlushEvent};
 * the committer is attached because the sink is a {@code TwoPhaseCommittingSink}.
 */
public final class PipelineTopology {
    /** The composer's default uid of the schema operator (pipeline option schema.operator.uid). */
    private static final String SCHEMA_OPERATOR_UID = "$$_schema_operator_$$";

    private PipelineTopology() {}

    /**
     * Adds {@code dataSink} after {@code events}, every operator at the parallelism of {@code
     * events} (the pipeline's parallelism: the schema coordinator waits for as many sink flushes as
     * the schema operator has subtasks), under the default schema change behaviour (LENIENT) and
     * the sink's default schema changes (all but drop.table and truncate.table).
     */
    public static void sinkTo(DataStream<Event> events, DataSink dataSink) {
        int upstream = events.getParallelism();
        int sinkParallelism = upstream;
        MetadataApplier applier =
                dataSink.getMetadataApplier()
                        .setAcceptedSchemaEvolutionTypes(
                                EnumSet.complementOf(
                                        EnumSet.of(
                                                SchemaChangeEventType.DROP_TABLE,
                                                SchemaChangeEventType.TRUNCATE_TABLE)));
        DataStream<Event> evolved =
                events.transform(
                                "SchemaOperator",
                                new EventTypeInfo(),
                                new SchemaOperatorFactory(
                                        applier,
                                        List.of(),
                                        Duration.ofMinutes(3),
                                        SchemaChangeBehavior.LENIENT,
                                        "UTC"))
                        .uid(SCHEMA_OPERATOR_UID)
                        .setParallelism(upstream);
        OperatorID schemaOperator = operatorId(SCHEMA_OPERATOR_UID);
        HashFunctionProvider<DataChangeEvent> hash =
                dataSink.getDataChangeEventHashFunctionProvider(sinkParallelism);
        DataStream<Event> partitioned =
                evolved.transform(
                                "PrePartition",
                                new PartitioningEventTypeInfo(),
                                new RegularPrePartitionOperator(
                                        schemaOperator, sinkParallelism, hash))
                        .uid("pre-partition")
                        .setParallelism(upstream)
                        .partitionCustom(new EventPartitioner(), new PartitioningEventKeySelector())
                        .map(new PostPartitionProcessor(), new EventTypeInfo())
                        .name("PostPartition")
                        .uid("post-partition")
                        .setParallelism(sinkParallelism);
        sinkWithCommitter(
                partitioned,
                ((FlinkSinkProvider) dataSink.getEventSinkProvider()).getSink(),
                schemaOperator,
                sinkParallelism);
    }

    @SuppressWarnings("unchecked")
    private static <C> void sinkWithCommitter(
            DataStream<Event> input, Sink<Event> sink, OperatorID schemaOperator, int parallelism) {
        TypeInformation<CommittableMessage<C>> type =
                CommittableMessageTypeInfo.of(() -> committableSerializer(sink));
        DataStream<CommittableMessage<C>> written =
                input.transform(
                                "Sink Writer: deltalite",
                                type,
                                new DataSinkWriterOperatorFactory<C>(sink, false, schemaOperator))
                        .uid("sink-writer")
                        .setParallelism(parallelism);
        DataStream<CommittableMessage<C>> preCommitted =
                ((WithPreCommitTopology<Event, C>) sink).addPreCommitTopology(written);
        preCommitted
                .transform(
                        "Sink Committer: deltalite",
                        type,
                        new CommitterOperatorFactory<>((SupportsCommitter<C>) sink, false, true))
                .uid("sink-committer")
                .setParallelism(parallelism);
    }

    /** As the composer finds it: declared on the sink's own class. */
    @SuppressWarnings("unchecked")
    private static <C> SimpleVersionedSerializer<C> committableSerializer(Object sink) {
        try {
            return (SimpleVersionedSerializer<C>)
                    sink.getClass().getDeclaredMethod("getCommittableSerializer").invoke(sink);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the sink declares no getCommittableSerializer()", e);
        }
    }

    /** The operator id Flink derives from {@code uid} (as the composer's OperatorIDGenerator). */
    private static OperatorID operatorId(String uid) {
        return new OperatorID(
                Hashing.murmur3_128(0).newHasher().putString(uid, UTF_8).hash().asBytes());
    }
}
