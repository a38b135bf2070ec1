package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.testing.Spread;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.cdc.common.data.binary.BinaryStringData;
import org.apache.flink.cdc.common.event.CreateTableEvent;
import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.types.DataTypes;
import org.apache.flink.cdc.common.types.RowType;
import org.apache.flink.cdc.runtime.typeutils.BinaryRecordDataGenerator;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/**
 * What a checkpoint of a whole-database sync costs one pipeline writer: {@code bench.tables} tables
 * (200) on local disk, each changed by one row per checkpoint; the time to merge every table at the
 * checkpoint ({@code flush} + {@code prepareCommit}), for three checkpoints, and the threads the
 * table writers hold. Not part of the build:
 *
 * <pre>
 * mvn -B -ntp -pl connector/flink-cdc-pipeline -am test -Dtest=ManyTablesBenchmark \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dbench.tables=200 -Dbench.repetitions=3
 * </pre>
 */
class ManyTablesBenchmark {
    private static final Schema SCHEMA =
            Schema.newBuilder()
                    .physicalColumn("id", DataTypes.BIGINT().notNull())
                    .physicalColumn("v", DataTypes.STRING())
                    .primaryKey("id")
                    .build();

    @Test
    void checkpointsOfManyTables() throws Exception {
        int tables = Integer.getInteger("bench.tables", 200);
        int repetitions = Integer.getInteger("bench.repetitions", 3);
        List<List<Long>> checkpoints =
                List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        int threads = 0;
        for (int repetition = 0; repetition < repetitions; repetition++) {
            Path dir = Files.createTempDirectory("many-tables");
            PipelineSettings settings =
                    new PipelineSettings(
                            TableLocations.under(dir.toString()),
                            new Configuration(),
                            Map.of(),
                            Map.of(),
                            Map.of(),
                            null,
                            4);
            DeltaLiteMetadataApplier applier = new DeltaLiteMetadataApplier(settings);
            for (int t = 0; t < tables; t++) {
                applier.applySchemaChange(new CreateTableEvent(table(t), SCHEMA));
            }
            int before = Thread.activeCount();
            try (DeltaLiteEventWriter writer =
                    new DeltaLiteEventWriter(
                            settings, DeltaLiteEventWriterTest.context(), List.of())) {
                for (int t = 0; t < tables; t++) {
                    writer.write(new CreateTableEvent(table(t), SCHEMA), null);
                }
                for (int checkpoint = 1; checkpoint <= 3; checkpoint++) {
                    for (int t = 0; t < tables; t++) {
                        writer.write(DataChangeEvent.insertEvent(table(t), row(checkpoint)), null);
                    }
                    long started = System.nanoTime();
                    writer.flush(false);
                    writer.prepareCommit();
                    writer.snapshotState(checkpoint);
                    checkpoints.get(checkpoint - 1).add(System.nanoTime() - started);
                }
                threads = Thread.activeCount() - before;
            }
        }
        for (int checkpoint = 1; checkpoint <= 3; checkpoint++) {
            System.out.printf(
                    "BENCH %d tables, checkpoint %d: %s ms (min / median / max of %d)%n",
                    tables,
                    checkpoint,
                    Spread.millis(checkpoints.get(checkpoint - 1)),
                    repetitions);
        }
        System.out.printf("BENCH threads the table writers hold: %d%n", threads);
    }

    private static TableId table(int index) {
        return TableId.tableId("db", "t" + index);
    }

    private static org.apache.flink.cdc.common.data.RecordData row(long id) {
        return new BinaryRecordDataGenerator((RowType) SCHEMA.toRowDataType())
                .generate(new Object[] {id, BinaryStringData.fromString("v" + id)});
    }
}
