package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.internal.sink.SinkConfig;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.sink.DeltaLiteOptions;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.types.logical.RowType;

/**
 * What a pipeline's sink knows of every table it writes, fixed when the pipeline is built: where
 * each table lives, the sink options, the storage settings, the properties and partition columns of
 * the tables it creates, and the transaction app ids of this submission. Each table's writers and
 * committer get a {@link SinkConfig} of their own from it ({@link #tableConfig}).
 *
 * <p>Every table is written distributed by key (the pipeline's partitioner routes each key to one
 * writer, {@link KeyHashFunctionProvider}), and no writer changes a table's schema: the metadata
 * applier does, before the writers see the change.
 */
public final class PipelineSettings implements Serializable {
    private static final long serialVersionUID = 1L;

    private final TableLocations locations;
    private final Configuration sinkOptions;
    private final Map<String, String> hadoopOptions;
    private final Map<String, String> tableProperties;
    private final Map<TableId, List<String>> partitionKeys;
    private final String appId;
    private final String submission;
    private final int tablesAtOnce;

    /**
     * @param sinkOptions deltalite's sink options ({@link DeltaLiteOptions}); distribution and
     *     schema evolution are the pipeline's
     * @param partitionKeys the partition columns of tables the pipeline creates whose {@code
     *     CreateTableEvent} names none
     * @param appId the prefix of the transaction app ids, or null for {@code deltalite}
     * @param tablesAtOnce how many tables one writer merges, and the committer commits, at once
     */
    public PipelineSettings(
            TableLocations locations,
            Configuration sinkOptions,
            Map<String, String> hadoopOptions,
            Map<String, String> tableProperties,
            Map<TableId, List<String>> partitionKeys,
            String appId,
            int tablesAtOnce) {
        if (tablesAtOnce < 1) {
            throw new IllegalArgumentException(
                    "tables.parallel-merges must be positive, but is " + tablesAtOnce);
        }
        this.tablesAtOnce = tablesAtOnce;
        this.locations = locations;
        this.sinkOptions = new Configuration(sinkOptions);
        this.sinkOptions.set(DeltaLiteOptions.DISTRIBUTION, "key");
        this.sinkOptions.set(DeltaLiteOptions.SCHEMA_EVOLUTION, "none");
        this.hadoopOptions = Map.copyOf(hadoopOptions);
        this.tableProperties = Map.copyOf(tableProperties);
        this.partitionKeys = Map.copyOf(partitionKeys);
        this.appId = appId;
        // Fixed when the pipeline is built: every operator of one submission shares it.
        this.submission = SinkConfig.newSubmission();
    }

    /** How many tables one writer merges at once at a flush or a checkpoint. */
    public int tablesAtOnce() {
        return tablesAtOnce;
    }

    public TableLocations locations() {
        return locations;
    }

    public StorageSettings storage() {
        return new StorageSettings(
                hadoopOptions, sinkOptions.get(DeltaLiteOptions.S3_SINGLE_WRITER));
    }

    public Map<String, String> tableProperties() {
        return tableProperties;
    }

    public Map<TableId, List<String>> partitionKeys() {
        return partitionKeys;
    }

    /** The partition columns of a table the pipeline creates with {@code schema}. */
    public List<String> partitionKeysOf(TableId table, Schema schema) {
        return schema.partitionKeys().isEmpty()
                ? partitionKeys.getOrDefault(table, List.of())
                : schema.partitionKeys();
    }

    /** The configuration of the writers and committer of {@code table} with {@code schema}. */
    public SinkConfig tableConfig(TableId table, Schema schema) {
        return tableConfig(
                locations.of(table),
                PipelineSchemas.rowType(schema),
                schema.primaryKeys(),
                partitionKeysOf(table, schema));
    }

    /** The configuration of the writers and committer of the table at {@code location}. */
    public SinkConfig tableConfig(
            String location, RowType rowType, List<String> primaryKey, List<String> partitionKey) {
        return SinkConfig.create(
                location,
                rowType,
                primaryKey,
                partitionKey,
                appId,
                sinkOptions,
                hadoopOptions,
                tableProperties,
                null,
                submission);
    }

    /** The transaction app id of the checkpoints the job {@code jobId} prepares, every table's. */
    public String transactionAppId(String jobId) {
        return SinkConfig.transactionAppId(appId, jobId, submission);
    }

    @Override
    public String toString() {
        return "PipelineSettings{"
                + locations
                + ", options="
                + sinkOptions.toMap()
                + ", hadoop option keys="
                + hadoopOptions.keySet()
                + ", partitionKeys="
                + partitionKeys
                + "}";
    }
}
