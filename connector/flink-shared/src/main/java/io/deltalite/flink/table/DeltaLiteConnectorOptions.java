package io.deltalite.flink.table;

import io.deltalite.flink.sink.DeltaLiteOptions;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.NullKeyPolicy;
import io.deltalite.flink.sink.ParquetCompression;
import io.deltalite.flink.sink.PruneStrategy;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * The options of {@code 'connector' = 'deltalite'} tables in Flink SQL.
 *
 * <pre>{@code
 * CREATE TABLE orders (
 *   order_id BIGINT,
 *   day DATE,
 *   amount DECIMAL(12, 2),
 *   PRIMARY KEY (order_id) NOT ENFORCED
 * ) PARTITIONED BY (day) WITH (
 *   'connector' = 'deltalite',
 *   'path' = 's3a://bucket/orders',
 *   'sink.max-parallel-files' = '8',
 *   'hadoop.fs.s3a.endpoint' = 'https://s3.eu-west-1.amazonaws.com',
 *   'delta.checkpointInterval' = '20'
 * );
 * }</pre>
 *
 * <p>Each {@code sink.*} option is the {@link DeltaLiteOptions} option of the same name, with the
 * same default. Besides the options below: every option starting with {@value #HADOOP_PREFIX} is a
 * storage setting passed to Hadoop without the prefix ({@code hadoop.fs.s3a.endpoint} sets {@code
 * fs.s3a.endpoint}); every option starting with {@value #DELTA_PREFIX} is a Delta table property of
 * a table the sink creates.
 */
@PublicEvolving
public final class DeltaLiteConnectorOptions {
    private DeltaLiteConnectorOptions() {}

    /** Prefix of storage settings, passed to Hadoop without it. */
    public static final String HADOOP_PREFIX = "hadoop.";

    /** Prefix of Delta table properties, for tables the sink creates. */
    public static final String DELTA_PREFIX = "delta.";

    public static final ConfigOption<String> PATH =
            ConfigOptions.key("path")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Location of the Delta table: a local path, file:// or s3a://.");

    public static final ConfigOption<Integer> SINK_PARALLELISM = FactoryUtil.SINK_PARALLELISM;

    public static final ConfigOption<String> SINK_APP_ID =
            ConfigOptions.key("sink.app-id")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Prefix of the Delta transaction application ids of the sink's"
                                    + " commits (default 'deltalite'); the full id adds the Flink"
                                    + " job id and a nonce of the submission, so every submission"
                                    + " commits all its checkpoints and replays are recognized.");

    public static final ConfigOption<Integer> SINK_MAX_PARALLEL_FILES =
            ConfigOptions.key("sink." + DeltaLiteOptions.MAX_PARALLEL_FILES.key())
                    .intType()
                    .defaultValue(DeltaLiteOptions.MAX_PARALLEL_FILES.defaultValue())
                    .withDescription(DeltaLiteOptions.MAX_PARALLEL_FILES.description());

    public static final ConfigOption<Integer> SINK_MAX_PARALLEL_PARTITIONS =
            ConfigOptions.key("sink." + DeltaLiteOptions.MAX_PARALLEL_PARTITIONS.key())
                    .intType()
                    .defaultValue(DeltaLiteOptions.MAX_PARALLEL_PARTITIONS.defaultValue())
                    .withDescription(DeltaLiteOptions.MAX_PARALLEL_PARTITIONS.description());

    public static final ConfigOption<MemorySize> SINK_MAX_BUFFERED_BYTES =
            ConfigOptions.key("sink." + DeltaLiteOptions.MAX_BUFFERED_BYTES.key())
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(DeltaLiteOptions.MAX_BUFFERED_BYTES.description());

    public static final ConfigOption<MemorySize> SINK_TARGET_FILE_SIZE =
            ConfigOptions.key("sink." + DeltaLiteOptions.TARGET_FILE_SIZE.key())
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(DeltaLiteOptions.TARGET_FILE_SIZE.description());

    public static final ConfigOption<MemorySize> SINK_ROW_GROUP_SIZE =
            ConfigOptions.key("sink." + DeltaLiteOptions.ROW_GROUP_SIZE.key())
                    .memoryType()
                    .defaultValue(DeltaLiteOptions.ROW_GROUP_SIZE.defaultValue())
                    .withDescription(DeltaLiteOptions.ROW_GROUP_SIZE.description());

    public static final ConfigOption<Integer> SINK_READ_BATCH_SIZE =
            ConfigOptions.key("sink." + DeltaLiteOptions.READ_BATCH_SIZE.key())
                    .intType()
                    .defaultValue(DeltaLiteOptions.READ_BATCH_SIZE.defaultValue())
                    .withDescription(DeltaLiteOptions.READ_BATCH_SIZE.description());

    public static final ConfigOption<ParquetCompression> SINK_PARQUET_COMPRESSION =
            ConfigOptions.key("sink." + DeltaLiteOptions.PARQUET_COMPRESSION.key())
                    .enumType(ParquetCompression.class)
                    .defaultValue(DeltaLiteOptions.PARQUET_COMPRESSION.defaultValue())
                    .withDescription(DeltaLiteOptions.PARQUET_COMPRESSION.description());

    public static final ConfigOption<KeyIndexMode> SINK_KEY_INDEX =
            ConfigOptions.key("sink." + DeltaLiteOptions.KEY_INDEX.key())
                    .enumType(KeyIndexMode.class)
                    .defaultValue(DeltaLiteOptions.KEY_INDEX.defaultValue())
                    .withDescription(DeltaLiteOptions.KEY_INDEX.description());

    public static final ConfigOption<MemorySize> SINK_KEY_INDEX_MAX_MEMORY =
            ConfigOptions.key("sink." + DeltaLiteOptions.KEY_INDEX_MAX_MEMORY.key())
                    .memoryType()
                    .defaultValue(DeltaLiteOptions.KEY_INDEX_MAX_MEMORY.defaultValue())
                    .withDescription(DeltaLiteOptions.KEY_INDEX_MAX_MEMORY.description());

    public static final ConfigOption<Boolean> SINK_KEY_INDEX_VALIDATE =
            ConfigOptions.key("sink." + DeltaLiteOptions.KEY_INDEX_VALIDATE.key())
                    .booleanType()
                    .defaultValue(DeltaLiteOptions.KEY_INDEX_VALIDATE.defaultValue())
                    .withDescription(DeltaLiteOptions.KEY_INDEX_VALIDATE.description());

    public static final ConfigOption<PruneStrategy> SINK_PRUNE_STRATEGY =
            ConfigOptions.key("sink." + DeltaLiteOptions.PRUNE_STRATEGY.key())
                    .enumType(PruneStrategy.class)
                    .defaultValue(DeltaLiteOptions.PRUNE_STRATEGY.defaultValue())
                    .withDescription(DeltaLiteOptions.PRUNE_STRATEGY.description());

    public static final ConfigOption<String> SINK_DISTRIBUTION =
            ConfigOptions.key("sink." + DeltaLiteOptions.DISTRIBUTION.key())
                    .stringType()
                    .defaultValue(DeltaLiteOptions.DISTRIBUTION.defaultValue())
                    .withDescription(DeltaLiteOptions.DISTRIBUTION.description());

    public static final ConfigOption<String> SINK_WRITE_MODE =
            ConfigOptions.key("sink." + DeltaLiteOptions.WRITE_MODE.key())
                    .stringType()
                    .defaultValue(DeltaLiteOptions.WRITE_MODE.defaultValue())
                    .withDescription(DeltaLiteOptions.WRITE_MODE.description());

    public static final ConfigOption<String> SINK_SCHEMA_EVOLUTION =
            ConfigOptions.key("sink." + DeltaLiteOptions.SCHEMA_EVOLUTION.key())
                    .stringType()
                    .defaultValue(DeltaLiteOptions.SCHEMA_EVOLUTION.defaultValue())
                    .withDescription(DeltaLiteOptions.SCHEMA_EVOLUTION.description());

    public static final ConfigOption<Map<String, String>> SINK_SCHEMA_EVOLUTION_RENAMES =
            ConfigOptions.key("sink." + DeltaLiteOptions.SCHEMA_EVOLUTION_RENAMES.key())
                    .mapType()
                    .defaultValue(DeltaLiteOptions.SCHEMA_EVOLUTION_RENAMES.defaultValue())
                    .withDescription(DeltaLiteOptions.SCHEMA_EVOLUTION_RENAMES.description());

    public static final ConfigOption<Boolean> SINK_SCHEMA_EVOLUTION_DROP_COLUMNS =
            ConfigOptions.key("sink." + DeltaLiteOptions.SCHEMA_EVOLUTION_DROP_COLUMNS.key())
                    .booleanType()
                    .defaultValue(DeltaLiteOptions.SCHEMA_EVOLUTION_DROP_COLUMNS.defaultValue())
                    .withDescription(DeltaLiteOptions.SCHEMA_EVOLUTION_DROP_COLUMNS.description());

    public static final ConfigOption<Double> SINK_DV_REWRITE_THRESHOLD =
            ConfigOptions.key("sink." + DeltaLiteOptions.DV_REWRITE_THRESHOLD.key())
                    .doubleType()
                    .defaultValue(DeltaLiteOptions.DV_REWRITE_THRESHOLD.defaultValue())
                    .withDescription(DeltaLiteOptions.DV_REWRITE_THRESHOLD.description());

    public static final ConfigOption<Boolean> SINK_COMPACTION_ENABLED =
            ConfigOptions.key("sink." + DeltaLiteOptions.COMPACTION_ENABLED.key())
                    .booleanType()
                    .defaultValue(DeltaLiteOptions.COMPACTION_ENABLED.defaultValue())
                    .withDescription(DeltaLiteOptions.COMPACTION_ENABLED.description());

    public static final ConfigOption<MemorySize> SINK_COMPACTION_SMALL_FILE_SIZE =
            ConfigOptions.key("sink." + DeltaLiteOptions.COMPACTION_SMALL_FILE_SIZE.key())
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(DeltaLiteOptions.COMPACTION_SMALL_FILE_SIZE.description());

    public static final ConfigOption<MemorySize> SINK_COMPACTION_MAX_BYTES_PER_CHECKPOINT =
            ConfigOptions.key("sink." + DeltaLiteOptions.COMPACTION_MAX_BYTES_PER_CHECKPOINT.key())
                    .memoryType()
                    .defaultValue(
                            DeltaLiteOptions.COMPACTION_MAX_BYTES_PER_CHECKPOINT.defaultValue())
                    .withDescription(
                            DeltaLiteOptions.COMPACTION_MAX_BYTES_PER_CHECKPOINT.description());

    public static final ConfigOption<Double> SINK_COMPACTION_DELETED_ROWS_THRESHOLD =
            ConfigOptions.key("sink." + DeltaLiteOptions.COMPACTION_DELETED_ROWS_THRESHOLD.key())
                    .doubleType()
                    .defaultValue(DeltaLiteOptions.COMPACTION_DELETED_ROWS_THRESHOLD.defaultValue())
                    .withDescription(
                            DeltaLiteOptions.COMPACTION_DELETED_ROWS_THRESHOLD.description());

    public static final ConfigOption<Integer> SINK_COMMIT_RETRIES =
            ConfigOptions.key("sink." + DeltaLiteOptions.COMMIT_RETRIES.key())
                    .intType()
                    .defaultValue(DeltaLiteOptions.COMMIT_RETRIES.defaultValue())
                    .withDescription(DeltaLiteOptions.COMMIT_RETRIES.description());

    public static final ConfigOption<java.time.Duration> SINK_HEARTBEAT_INTERVAL =
            ConfigOptions.key("sink." + DeltaLiteOptions.HEARTBEAT_INTERVAL.key())
                    .durationType()
                    .defaultValue(DeltaLiteOptions.HEARTBEAT_INTERVAL.defaultValue())
                    .withDescription(DeltaLiteOptions.HEARTBEAT_INTERVAL.description());

    public static final ConfigOption<Boolean> SINK_WARM_UP =
            ConfigOptions.key("sink." + DeltaLiteOptions.WARM_UP.key())
                    .booleanType()
                    .defaultValue(DeltaLiteOptions.WARM_UP.defaultValue())
                    .withDescription(DeltaLiteOptions.WARM_UP.description());

    public static final ConfigOption<NullKeyPolicy> SINK_NULL_KEY_POLICY =
            ConfigOptions.key("sink." + DeltaLiteOptions.NULL_KEY_POLICY.key())
                    .enumType(NullKeyPolicy.class)
                    .defaultValue(DeltaLiteOptions.NULL_KEY_POLICY.defaultValue())
                    .withDescription(DeltaLiteOptions.NULL_KEY_POLICY.description());

    public static final ConfigOption<Boolean> SINK_S3_SINGLE_WRITER =
            ConfigOptions.key("sink." + DeltaLiteOptions.S3_SINGLE_WRITER.key())
                    .booleanType()
                    .defaultValue(DeltaLiteOptions.S3_SINGLE_WRITER.defaultValue())
                    .withDescription(DeltaLiteOptions.S3_SINGLE_WRITER.description());
}
