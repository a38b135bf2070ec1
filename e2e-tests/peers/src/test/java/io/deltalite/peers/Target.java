package io.deltalite.peers;

import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * One system's sink, as a user would configure it (PEERS.md: "Configuring them fairly"). Each
 * implementation is loaded only in a JVM whose class path holds that system's jars.
 */
interface Target {
    /** The rows every system receives: the key is {@code id}, with {@code day} when partitioned. */
    RowType ROW_TYPE =
            RowType.of(
                    new LogicalType[] {
                        new BigIntType(false),
                        new VarCharType(false, VarCharType.MAX_LENGTH),
                        new BigIntType(),
                        new VarCharType(VarCharType.MAX_LENGTH)
                    },
                    new String[] {"id", "day", "amount", "note"});

    /** Creates the empty table (or nothing, where the sink creates it). */
    void create(Path table, boolean partitionedByDay) throws Exception;

    /** Adds the sink, at {@code parallelism}, to the job. */
    void sink(DataStream<RowData> changes, Path table, boolean partitionedByDay, int parallelism);

    /**
     * When each checkpoint of the job that started at {@code jobStartMillis} made its rows visible
     * to readers: checkpoint id to epoch millis. Commits before that instant are an earlier job's
     * (the bulk load before a CDC run numbers its checkpoints from 1 too) and are left out.
     */
    Map<Long, Long> commitTimes(Path table, long jobStartMillis) throws Exception;
}
