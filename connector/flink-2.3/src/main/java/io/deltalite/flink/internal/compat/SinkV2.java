package io.deltalite.flink.internal.compat;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;

/**
 * {@link Sink} as the Flink 2.x line declares it: {@code createWriter(WriterInitContext)} is the
 * only way to make a writer. Nothing to add here; the 1.20 line's twin answers the deprecated
 * {@code createWriter(Sink.InitContext)} that Flink 1.20 still declares.
 */
@Internal
public interface SinkV2<T> extends Sink<T> {}
