package io.deltalite.flink.cdc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.sink.SinkTopology;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.ToIntFunction;
import org.apache.flink.cdc.common.data.DecimalData;
import org.apache.flink.cdc.common.data.RecordData;
import org.apache.flink.cdc.common.data.binary.BinaryStringData;
import org.apache.flink.cdc.common.event.DataChangeEvent;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.function.HashFunction;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.types.DataTypes;
import org.apache.flink.cdc.common.types.RowType;
import org.apache.flink.cdc.runtime.typeutils.BinaryRecordDataGenerator;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline's partitioner sends each change to the writer whose key groups hold its key — the
 * writer that the table's own writers compute from the whole converted row when they check every
 * record. A composite key whose columns are not the first ones, beside columns the hash does not
 * read.
 */
class KeyHashFunctionProviderTest {
    private static final TableId ACCOUNTS = TableId.tableId("bank", "accounts");
    private static final Schema SCHEMA =
            Schema.newBuilder()
                    .physicalColumn("note", DataTypes.STRING())
                    .physicalColumn("branch", DataTypes.STRING().notNull())
                    .physicalColumn("balance", DataTypes.DECIMAL(12, 2))
                    .physicalColumn("number", DataTypes.BIGINT().notNull())
                    .primaryKey("number", "branch")
                    .build();
    private static final int WRITERS = 3;

    @TempDir Path dir;

    /**
     * CPU per change of routing by key: the whole record converted, as before, against the key
     * alone, for a table of a BIGINT key and eleven other columns (strings, decimals, timestamps).
     * BENCHMARKS.md §16:
     *
     * <pre>
     * mvn -B -ntp -o -pl connector/flink-cdc-pipeline test -Dtest='KeyHashFunctionProviderTest#cpu*' \
     *     -Dsurefire.excludedGroups= -Dtest.jvm.jit=
     * </pre>
     */
    @Test
    @io.deltalite.flink.testing.Benchmark
    void cpuPerChangeOfRoutingByKey() {
        Schema.Builder builder =
                Schema.newBuilder().physicalColumn("id", DataTypes.BIGINT().notNull());
        for (int i = 0; i < 11; i++) {
            builder.physicalColumn(
                    "c" + i,
                    i % 3 == 0
                            ? DataTypes.STRING()
                            : i % 3 == 1 ? DataTypes.DECIMAL(12, 2) : DataTypes.TIMESTAMP(6));
        }
        Schema wide = builder.primaryKey("id").build();
        TableId orders = TableId.tableId("shop", "orders");
        HashFunction<DataChangeEvent> hash = hashFunction(orders, wide);
        ToIntFunction<RowData> owner = ownerOfRows(orders, wide);
        PipelineRecords records = PipelineRecords.of(wide);
        BinaryRecordDataGenerator rows =
                new BinaryRecordDataGenerator((RowType) wide.toRowDataType());
        Random random = new Random(1);
        java.util.List<DataChangeEvent> events = new java.util.ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            Object[] values = new Object[12];
            values[0] = random.nextLong();
            for (int c = 0; c < 11; c++) {
                values[c + 1] =
                        c % 3 == 0
                                ? BinaryStringData.fromString("value of column " + c + " #" + i)
                                : c % 3 == 1
                                        ? DecimalData.fromBigDecimal(
                                                BigDecimal.valueOf(random.nextInt(1_000_000), 2),
                                                12,
                                                2)
                                        : org.apache.flink.cdc.common.data.TimestampData.fromMillis(
                                                random.nextInt());
            }
            events.add(DataChangeEvent.insertEvent(orders, rows.generate(values)));
        }
        java.lang.management.ThreadMXBean threads =
                java.lang.management.ManagementFactory.getThreadMXBean();
        java.util.List<Long> whole = new java.util.ArrayList<>();
        java.util.List<Long> keyOnly = new java.util.ArrayList<>();
        long sink = 0;
        for (int round = 0; round < 12; round++) {
            long start = threads.getCurrentThreadCpuTime();
            for (DataChangeEvent event : events) {
                sink += owner.applyAsInt(records.toRow(event.after(), RowKind.INSERT));
            }
            long middle = threads.getCurrentThreadCpuTime();
            for (DataChangeEvent event : events) {
                sink -= hash.hashcode(event);
            }
            long end = threads.getCurrentThreadCpuTime();
            if (round >= 2) {
                whole.add((middle - start) / events.size());
                keyOnly.add((end - middle) / events.size());
            }
        }
        assertThat(sink).isZero();
        whole.sort(null);
        keyOnly.sort(null);
        System.out.printf(
                "%n### Routing a change by key, 12 columns, %,d changes, 10 runs%n%n"
                        + "| conversion | CPU ns per change (min / median / max) |%n| --- | --- |%n"
                        + "| whole record (before) | %d / %d / %d |%n"
                        + "| key only (after) | %d / %d / %d |%n",
                events.size(),
                whole.get(0),
                whole.get(whole.size() / 2),
                whole.get(whole.size() - 1),
                keyOnly.get(0),
                keyOnly.get(keyOnly.size() / 2),
                keyOnly.get(keyOnly.size() - 1));
    }

    @Test
    void everyChangeGoesToTheWriterThatOwnsItsKey() {
        HashFunction<DataChangeEvent> hash = hashFunction(ACCOUNTS, SCHEMA);
        ToIntFunction<RowData> owner = ownerOfRows(ACCOUNTS, SCHEMA);
        PipelineRecords records = PipelineRecords.of(SCHEMA);
        BinaryRecordDataGenerator rows =
                new BinaryRecordDataGenerator((RowType) SCHEMA.toRowDataType());
        Random random = new Random(42);
        Set<Integer> writers = new HashSet<>();
        for (int i = 0; i < 2_000; i++) {
            RecordData row =
                    rows.generate(
                            new Object[] {
                                random.nextBoolean()
                                        ? null
                                        : BinaryStringData.fromString("n" + random.nextInt()),
                                BinaryStringData.fromString("b" + random.nextInt(50)),
                                DecimalData.fromBigDecimal(
                                        BigDecimal.valueOf(random.nextInt(100_000), 2), 12, 2),
                                random.nextLong()
                            });
            int expected = owner.applyAsInt(records.toRow(row, RowKind.INSERT));
            writers.add(expected);
            assertThat(hash.hashcode(DataChangeEvent.insertEvent(ACCOUNTS, row)))
                    .isEqualTo(expected);
            assertThat(hash.hashcode(DataChangeEvent.deleteEvent(ACCOUNTS, row)))
                    .isEqualTo(expected);
        }
        assertThat(writers).as("writers the keys went to").hasSize(WRITERS);
    }

    private PipelineSettings settings() {
        return new PipelineSettings(
                TableLocations.under(dir.toString()),
                new Configuration(),
                Map.of(),
                Map.of(),
                Map.of(),
                null,
                4);
    }

    /** The partitioner's hash function: the writer of each change. */
    private HashFunction<DataChangeEvent> hashFunction(TableId table, Schema schema) {
        return new KeyHashFunctionProvider(settings(), WRITERS).getHashFunction(table, schema);
    }

    /** The writer a table's writers compute from a whole converted row when they check it. */
    private ToIntFunction<RowData> ownerOfRows(TableId table, Schema schema) {
        return SinkTopology.writerOfKey(
                settings().tableConfig(table, schema),
                KeyHashFunctionProvider.keyGroups(WRITERS),
                WRITERS);
    }
}
