package io.deltalite.flink.internal.compat;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * {@link Sink} as the Flink 1.20 line declares it, minus the deprecated abstract {@code
 * createWriter(Sink.InitContext)}: Flink 1.20.2 and later make writers only through {@code
 * createWriter(WriterInitContext)} and {@code restoreWriter}, which the sink implements. A caller
 * of the old method (a third-party operator written for Flink 1.14-1.18) is told so.
 */
@Internal
public interface SinkV2<T> extends Sink<T> {
    @Override
    @SuppressWarnings("deprecation")
    default SinkWriter<T> createWriter(Sink.InitContext context) {
        throw new UnsupportedOperationException(
                "deltalite makes its writers through createWriter(WriterInitContext) only; "
                        + "Sink.createWriter(Sink.InitContext) is the deprecated path that Flink "
                        + "1.20 no longer calls. Run the job on Flink 1.20.2 or later through "
                        + "DataStream.sinkTo(...) or SQL.");
    }
}
