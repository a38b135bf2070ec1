package io.deltalite.flink.cdc.internal;

import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.function.HashFunctionProvider;
import org.apache.flink.cdc.common.sink.DataSink;
import org.apache.flink.cdc.common.sink.EventSinkProvider;
import org.apache.flink.cdc.common.sink.FlinkSinkProvider;
import org.apache.flink.cdc.common.sink.MetadataApplier;

/**
 * deltalite as a pipeline's sink: the event sink, the metadata applier that creates and changes the
 * tables on the JobManager, and the hash function that keeps each key on one writer.
 */
public final class DeltaLiteDataSink implements DataSink {
    private final PipelineSettings settings;

    public DeltaLiteDataSink(PipelineSettings settings) {
        this.settings = settings;
    }

    @Override
    public EventSinkProvider getEventSinkProvider() {
        return FlinkSinkProvider.of(new DeltaLiteEventSink(settings));
    }

    @Override
    public MetadataApplier getMetadataApplier() {
        return new DeltaLiteMetadataApplier(settings);
    }

    @Override
    public HashFunctionProvider<DataChangeEvent> getDataChangeEventHashFunctionProvider(
            int parallelism) {
        return new KeyHashFunctionProvider(settings, parallelism);
    }

    @Override
    public HashFunctionProvider<DataChangeEvent> getDataChangeEventHashFunctionProvider() {
        throw new UnsupportedOperationException(
                "deltalite routes keys by the sink's parallelism:"
                        + " getDataChangeEventHashFunctionProvider(int)");
    }
}
