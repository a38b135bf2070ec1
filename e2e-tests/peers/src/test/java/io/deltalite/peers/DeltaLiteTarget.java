package io.deltalite.peers;

import io.deltalite.flink.sink.DeltaLiteOptions;
import io.deltalite.flink.sink.DeltaLiteSink;
import io.deltalite.flink.sink.DeltaLiteSinkBuilder;
import io.deltalite.flink.sink.Distribution;
import io.deltalite.flink.sink.WriteMode;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;

/**
 * deltalite with its defaults but for the write mode and distribution; the sink creates the table.
 */
final class DeltaLiteTarget implements Target {
    /** Commit times reported by the sink's listener (the mini cluster runs in this JVM). */
    private static final Map<Long, Long> COMMITTED = new ConcurrentHashMap<>();

    private final WriteMode mode;
    private final Distribution distribution;

    DeltaLiteTarget(WriteMode mode, Distribution distribution) {
        this.mode = mode;
        this.distribution = distribution;
    }

    @Override
    public void create(Path table, boolean partitionedByDay) {}

    @Override
    public void sink(
            DataStream<RowData> changes, Path table, boolean partitionedByDay, int parallelism) {
        DeltaLiteSinkBuilder builder =
                DeltaLiteSink.forTable(table.toString())
                        .rowType(ROW_TYPE)
                        .option(DeltaLiteOptions.WRITE_MODE, mode.toString())
                        .option(DeltaLiteOptions.DISTRIBUTION, distribution.toString())
                        .commitListener(
                                (checkpoint, stats, millis) ->
                                        COMMITTED.put(checkpoint, System.currentTimeMillis()));
        // Options to try against the defaults (k=v;k=v, given to the child JVM through
        // bench.childFlags as -Dbench.deltaliteOptions=...); empty in every published run
        // unless its section says otherwise.
        for (String option : System.getProperty("bench.deltaliteOptions", "").split(";")) {
            if (!option.isBlank()) {
                String[] keyValue = option.split("=", 2);
                builder.option(
                        org.apache.flink.configuration.ConfigOptions.key(keyValue[0].trim())
                                .stringType()
                                .noDefaultValue(),
                        keyValue[1].trim());
            }
        }
        if (partitionedByDay) {
            builder.primaryKey("day", "id").partitionKey("day");
        } else {
            builder.primaryKey("id");
        }
        changes.sinkTo(builder.build()).setParallelism(parallelism).name("deltalite");
    }

    @Override
    public Map<Long, Long> commitTimes(Path table, long jobStartMillis) {
        return Map.copyOf(COMMITTED);
    }
}
