package io.deltalite.flink.table;

import static io.deltalite.flink.table.DeltaLiteConnectorOptions.DELTA_PREFIX;
import static io.deltalite.flink.table.DeltaLiteConnectorOptions.HADOOP_PREFIX;

import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.sink.DeltaLiteOptions;
import io.deltalite.flink.sink.DeltaLiteSink;
import io.deltalite.flink.sink.DeltaLiteSinkBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

/**
 * The factory of {@code 'connector' = 'deltalite'} tables. A table with {@code PRIMARY KEY (...)
 * NOT ENFORCED} takes inserts, updates and deletes; a table without one is append-only. Options:
 * {@link DeltaLiteConnectorOptions}.
 */
@PublicEvolving
public final class DeltaLiteDynamicTableFactory implements DynamicTableSinkFactory {
    public static final String IDENTIFIER = "deltalite";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(DeltaLiteConnectorOptions.PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                DeltaLiteConnectorOptions.SINK_PARALLELISM,
                DeltaLiteConnectorOptions.SINK_APP_ID,
                DeltaLiteConnectorOptions.SINK_MAX_PARALLEL_FILES,
                DeltaLiteConnectorOptions.SINK_MAX_PARALLEL_PARTITIONS,
                DeltaLiteConnectorOptions.SINK_MAX_BUFFERED_BYTES,
                DeltaLiteConnectorOptions.SINK_TARGET_FILE_SIZE,
                DeltaLiteConnectorOptions.SINK_ROW_GROUP_SIZE,
                DeltaLiteConnectorOptions.SINK_PARQUET_COMPRESSION,
                DeltaLiteConnectorOptions.SINK_READ_BATCH_SIZE,
                DeltaLiteConnectorOptions.SINK_PRUNE_STRATEGY,
                DeltaLiteConnectorOptions.SINK_KEY_INDEX,
                DeltaLiteConnectorOptions.SINK_KEY_INDEX_MAX_MEMORY,
                DeltaLiteConnectorOptions.SINK_KEY_INDEX_VALIDATE,
                DeltaLiteConnectorOptions.SINK_WRITE_MODE,
                DeltaLiteConnectorOptions.SINK_SCHEMA_EVOLUTION,
                DeltaLiteConnectorOptions.SINK_SCHEMA_EVOLUTION_RENAMES,
                DeltaLiteConnectorOptions.SINK_SCHEMA_EVOLUTION_DROP_COLUMNS,
                DeltaLiteConnectorOptions.SINK_DISTRIBUTION,
                DeltaLiteConnectorOptions.SINK_DV_REWRITE_THRESHOLD,
                DeltaLiteConnectorOptions.SINK_COMPACTION_ENABLED,
                DeltaLiteConnectorOptions.SINK_COMPACTION_SMALL_FILE_SIZE,
                DeltaLiteConnectorOptions.SINK_COMPACTION_MAX_BYTES_PER_CHECKPOINT,
                DeltaLiteConnectorOptions.SINK_COMPACTION_DELETED_ROWS_THRESHOLD,
                DeltaLiteConnectorOptions.SINK_COMMIT_RETRIES,
                DeltaLiteConnectorOptions.SINK_HEARTBEAT_INTERVAL,
                DeltaLiteConnectorOptions.SINK_WARM_UP,
                DeltaLiteConnectorOptions.SINK_NULL_KEY_POLICY,
                DeltaLiteConnectorOptions.SINK_S3_SINGLE_WRITER);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validateExcept(HADOOP_PREFIX, DELTA_PREFIX);
        ReadableConfig options = helper.getOptions();
        ResolvedCatalogTable table = context.getCatalogTable();
        String name = context.getObjectIdentifier().asSummaryString();
        List<String> primaryKey =
                table.getResolvedSchema()
                        .getPrimaryKey()
                        .map(UniqueConstraint::getColumns)
                        .orElse(List.of());
        List<String> partitionKey = table.getPartitionKeys();
        RowType rowType = (RowType) context.getPhysicalRowDataType().getLogicalType();

        DeltaLiteSinkBuilder builder =
                DeltaLiteSink.forTable(options.get(DeltaLiteConnectorOptions.PATH))
                        .rowType(rowType);
        if (primaryKey.isEmpty()) {
            builder.appendOnly();
        } else {
            builder.primaryKey(primaryKey.toArray(new String[0]));
        }
        builder.partitionKey(partitionKey.toArray(new String[0]));
        options.getOptional(DeltaLiteConnectorOptions.SINK_APP_ID).ifPresent(builder::appId);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_MAX_PARALLEL_FILES,
                DeltaLiteOptions.MAX_PARALLEL_FILES);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_MAX_PARALLEL_PARTITIONS,
                DeltaLiteOptions.MAX_PARALLEL_PARTITIONS);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_MAX_BUFFERED_BYTES,
                DeltaLiteOptions.MAX_BUFFERED_BYTES);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_TARGET_FILE_SIZE,
                DeltaLiteOptions.TARGET_FILE_SIZE);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_ROW_GROUP_SIZE,
                DeltaLiteOptions.ROW_GROUP_SIZE);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_PARQUET_COMPRESSION,
                DeltaLiteOptions.PARQUET_COMPRESSION);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_READ_BATCH_SIZE,
                DeltaLiteOptions.READ_BATCH_SIZE);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_PRUNE_STRATEGY,
                DeltaLiteOptions.PRUNE_STRATEGY);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_KEY_INDEX,
                DeltaLiteOptions.KEY_INDEX);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_KEY_INDEX_MAX_MEMORY,
                DeltaLiteOptions.KEY_INDEX_MAX_MEMORY);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_KEY_INDEX_VALIDATE,
                DeltaLiteOptions.KEY_INDEX_VALIDATE);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_WRITE_MODE,
                DeltaLiteOptions.WRITE_MODE);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_DISTRIBUTION,
                DeltaLiteOptions.DISTRIBUTION);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_DV_REWRITE_THRESHOLD,
                DeltaLiteOptions.DV_REWRITE_THRESHOLD);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_COMPACTION_ENABLED,
                DeltaLiteOptions.COMPACTION_ENABLED);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_COMPACTION_SMALL_FILE_SIZE,
                DeltaLiteOptions.COMPACTION_SMALL_FILE_SIZE);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_COMPACTION_MAX_BYTES_PER_CHECKPOINT,
                DeltaLiteOptions.COMPACTION_MAX_BYTES_PER_CHECKPOINT);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_COMPACTION_DELETED_ROWS_THRESHOLD,
                DeltaLiteOptions.COMPACTION_DELETED_ROWS_THRESHOLD);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_COMMIT_RETRIES,
                DeltaLiteOptions.COMMIT_RETRIES);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_HEARTBEAT_INTERVAL,
                DeltaLiteOptions.HEARTBEAT_INTERVAL);
        copy(options, builder, DeltaLiteConnectorOptions.SINK_WARM_UP, DeltaLiteOptions.WARM_UP);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_SCHEMA_EVOLUTION,
                DeltaLiteOptions.SCHEMA_EVOLUTION);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_SCHEMA_EVOLUTION_RENAMES,
                DeltaLiteOptions.SCHEMA_EVOLUTION_RENAMES);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_SCHEMA_EVOLUTION_DROP_COLUMNS,
                DeltaLiteOptions.SCHEMA_EVOLUTION_DROP_COLUMNS);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_NULL_KEY_POLICY,
                DeltaLiteOptions.NULL_KEY_POLICY);
        copy(
                options,
                builder,
                DeltaLiteConnectorOptions.SINK_S3_SINGLE_WRITER,
                DeltaLiteOptions.S3_SINGLE_WRITER);
        for (Map.Entry<String, String> option : table.getOptions().entrySet()) {
            if (option.getKey().startsWith(HADOOP_PREFIX)) {
                builder.hadoopOption(
                        option.getKey().substring(HADOOP_PREFIX.length()), option.getValue());
            } else if (option.getKey().startsWith(DELTA_PREFIX)) {
                builder.tableProperty(option.getKey(), option.getValue());
            }
        }
        DeltaLiteSink sink;
        try {
            sink = builder.build();
        } catch (DeltaLiteException | IllegalArgumentException e) {
            throw new ValidationException(
                    "Cannot write table " + name + " with deltalite: " + e.getMessage(), e);
        }
        // Update-befores are needed when a key can move between partitions: decided by the
        // table's real partition columns (a DDL without PARTITIONED BY over a partitioned table
        // has none), and asked for when the table could not be read.
        boolean keyContainsPartitionColumns =
                sink.tablePartitionColumns()
                        .map(columns -> containsIgnoringCase(primaryKey, columns))
                        .orElse(false);
        return new DeltaLiteDynamicTableSink(
                sink,
                name,
                !primaryKey.isEmpty(),
                keyContainsPartitionColumns,
                options.getOptional(DeltaLiteConnectorOptions.SINK_PARALLELISM).orElse(null));
    }

    private static boolean containsIgnoringCase(List<String> key, List<String> columns) {
        for (String column : columns) {
            if (key.stream().noneMatch(name -> name.equalsIgnoreCase(column))) {
                return false;
            }
        }
        return true;
    }

    private static <T> void copy(
            ReadableConfig options,
            DeltaLiteSinkBuilder builder,
            ConfigOption<T> sqlOption,
            ConfigOption<T> sinkOption) {
        options.getOptional(sqlOption).ifPresent(value -> builder.option(sinkOption, value));
    }
}
