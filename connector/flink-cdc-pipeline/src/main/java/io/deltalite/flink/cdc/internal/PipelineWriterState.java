package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.internal.sink.WriterState;

/** The state of one pipeline writer for one table: the table's writer's own state. */
public record PipelineWriterState(String location, WriterState state) {}
