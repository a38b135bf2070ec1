package io.deltalite.examples;

import io.deltalite.flink.sink.DeltaLiteSink;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * The example's CDC upsert job — {@link OrderChanges} into a Delta table partitioned by day, keyed
 * by order — as a program to submit to a Flink cluster. It builds and submits the job and does
 * nothing else: no table preparation, no verification ({@link CdcUpsertExample} does both around a
 * local run).
 *
 * <pre>
 *   flink run examples/target/deltalite-examples-*-job.jar --table PATH
 *       [--orders 100000] [--rounds 4] [--rate 60000] [--checkpoint-interval 2000]
 * </pre>
 *
 * <p>{@code --rate} limits the source to that many records per second (about half of them are
 * changes, the rest no-op markers); {@code --checkpoint-interval} is in milliseconds. Parallelism
 * is the cluster's; the source always runs with parallelism 1, because the order of changes to one
 * order matters. The table should be new for its content to equal {@link
 * OrderChanges#expectedTable()}.
 *
 * @param table where the table is written: a local path, file:// or s3a:// URI
 * @param orders how many orders; coprime to 7919
 * @param rounds how many rounds of changes (round 0 inserts every order)
 * @param recordsPerSecond the source's rate limit
 * @param checkpointIntervalMillis how often Flink checkpoints, hence how often the sink commits
 */
public record CdcUpsertJob(
        String table, int orders, int rounds, int recordsPerSecond, long checkpointIntervalMillis) {
    public static final String NAME = "deltalite CDC upsert example";

    private static final List<String> ARGUMENTS =
            List.of("table", "orders", "rounds", "rate", "checkpoint-interval");

    public CdcUpsertJob {
        if (table == null || table.isBlank()) {
            throw new IllegalArgumentException("--table is required: where to write the table");
        }
        if (recordsPerSecond <= 0 || checkpointIntervalMillis <= 0) {
            throw new IllegalArgumentException(
                    "--rate and --checkpoint-interval must be positive; got "
                            + recordsPerSecond
                            + " and "
                            + checkpointIntervalMillis);
        }
        new OrderTimeline(orders, rounds); // checks orders and rounds
    }

    /** The example's defaults: 4 rounds, 60,000 records per second, a checkpoint every 2 s. */
    public static CdcUpsertJob withDefaults(String table, int orders) {
        return new CdcUpsertJob(table, orders, 4, 60_000, 2_000);
    }

    /**
     * Parses {@code --table PATH [--orders N] [--rounds N] [--rate N] [--checkpoint-interval MS]}.
     */
    public static CdcUpsertJob fromArgs(String[] args) {
        // Parsed here rather than with Flink's ParameterTool, whose package differs between the
        // Flink lines the example is built for.
        Map<String, String> parameters = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i].startsWith("--") ? args[i].substring(2) : null;
            if (name == null || !ARGUMENTS.contains(name) || i + 1 == args.length) {
                throw new IllegalArgumentException(
                        (name == null || ARGUMENTS.contains(name)
                                        ? "Expected --name value pairs, got '" + args[i] + "'"
                                        : "Unknown argument --" + name)
                                + "; the job takes --"
                                + String.join(", --", ARGUMENTS));
            }
            parameters.put(name, args[i + 1]);
        }
        CdcUpsertJob defaults = withDefaults(parameters.get("table"), 100_000);
        return new CdcUpsertJob(
                defaults.table(),
                Integer.parseInt(
                        parameters.getOrDefault("orders", String.valueOf(defaults.orders()))),
                Integer.parseInt(
                        parameters.getOrDefault("rounds", String.valueOf(defaults.rounds()))),
                Integer.parseInt(
                        parameters.getOrDefault(
                                "rate", String.valueOf(defaults.recordsPerSecond()))),
                Long.parseLong(
                        parameters.getOrDefault(
                                "checkpoint-interval",
                                String.valueOf(defaults.checkpointIntervalMillis()))));
    }

    public static void main(String[] args) throws Exception {
        CdcUpsertJob job = fromArgs(args);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        job.addTo(env);
        env.execute(NAME);
    }

    /** The stream of changes the job upserts. */
    public OrderChanges changes() {
        return new OrderChanges(orders, rounds);
    }

    /** Adds the job to {@code env}: checkpointing, the change source and the deltalite sink. */
    public void addTo(StreamExecutionEnvironment env) {
        OrderChanges changes = changes();
        env.enableCheckpointing(checkpointIntervalMillis);

        DataStream<RowData> cdc =
                env.fromSource(
                                new DataGeneratorSource<>(
                                        changes::record,
                                        changes.size(),
                                        RateLimiterStrategy.perSecond(recordsPerSecond),
                                        InternalTypeInfo.of(OrderChanges.ROW_TYPE)),
                                WatermarkStrategy.noWatermarks(),
                                "order-changes")
                        .setParallelism(1)
                        .filter(OrderChanges::isChange)
                        .setParallelism(1)
                        .name("drop-no-ops");

        cdc.sinkTo(
                        DeltaLiteSink.forTable(table)
                                .rowType(OrderChanges.ROW_TYPE)
                                .primaryKey("order_id")
                                .partitionKey("day")
                                .commitListener(
                                        (checkpoint, stats, millis) ->
                                                System.out.printf(
                                                        "commit version %d (checkpoint %d): rows +%d ~%d -%d,"
                                                                + " files +%d -%d (kept %d, probed %d), %d ms%n",
                                                        stats.version(),
                                                        checkpoint,
                                                        stats.rowsInserted(),
                                                        stats.rowsUpdated(),
                                                        stats.rowsDeleted(),
                                                        stats.filesAdded(),
                                                        stats.filesRemoved(),
                                                        stats.filesCarriedOver(),
                                                        stats.filesProbed(),
                                                        millis))
                                .build())
                .name("deltalite");
    }
}
