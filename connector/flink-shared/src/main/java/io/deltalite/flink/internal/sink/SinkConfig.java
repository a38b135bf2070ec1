package io.deltalite.flink.internal.sink;

import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.SchemaEvolutionPolicy;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.sink.CommitListener;
import io.deltalite.flink.sink.DeltaLiteOptions;
import io.deltalite.flink.sink.Distribution;
import io.deltalite.flink.sink.SchemaEvolution;
import io.deltalite.flink.sink.WriteMode;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.types.logical.RowType;

/**
 * Everything the sink's operators need, parsed and checked once when the job is built, and shipped
 * with the job graph. Storage settings may hold secrets: {@link #toString()} shows only their keys.
 */
@Internal
public final class SinkConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String location;
    private final RowType rowType;
    private final TableDefinition definition;
    private final String appIdPrefix;
    private final String submission;
    private final MergeOptions mergeOptions;
    private final int maxParallelPartitions;
    private final StorageSettings storage;
    private final CommitListener commitListener;
    private final Distribution distribution;
    private final java.time.Duration heartbeatInterval;
    private final boolean warmUp;

    /** The partition columns of the table as found when the job was built; null if unknown. */
    private final List<String> tablePartitionColumns;

    private SinkConfig(
            String location,
            RowType rowType,
            TableDefinition definition,
            String appIdPrefix,
            String submission,
            MergeOptions mergeOptions,
            int maxParallelPartitions,
            StorageSettings storage,
            CommitListener commitListener,
            Distribution distribution,
            java.time.Duration heartbeatInterval,
            boolean warmUp,
            List<String> tablePartitionColumns) {
        this.commitListener = commitListener;
        this.heartbeatInterval = heartbeatInterval;
        this.warmUp = warmUp;
        this.distribution = distribution;
        this.appIdPrefix = appIdPrefix;
        this.submission = submission;
        this.tablePartitionColumns =
                tablePartitionColumns == null ? null : List.copyOf(tablePartitionColumns);
        this.location = location;
        this.rowType = rowType;
        this.definition = definition;
        this.mergeOptions = mergeOptions;
        this.maxParallelPartitions = maxParallelPartitions;
        this.storage = storage;
    }

    /**
     * The properties of a table the sink creates: an upsert table gets deletion vectors unless the
     * write mode is copy-on-write (they apply only to a table created here; an existing table keeps
     * its own).
     */
    private static Map<String, String> creationProperties(
            Map<String, String> tableProperties,
            WriteMode writeMode,
            List<String> primaryKey,
            String location) {
        String declared = tableProperties.get(ENABLE_DELETION_VECTORS);
        if (writeMode == WriteMode.DELETION_VECTORS
                && declared != null
                && !"true".equalsIgnoreCase(declared.trim())) {
            throw new IllegalArgumentException(
                    "The sink of "
                            + location
                            + " has write-mode 'deletion-vectors' but the table property "
                            + ENABLE_DELETION_VECTORS
                            + " = '"
                            + declared
                            + "'. Drop the property or choose write-mode 'copy-on-write'.");
        }
        if (declared != null || writeMode == WriteMode.COPY_ON_WRITE || primaryKey.isEmpty()) {
            return tableProperties;
        }
        Map<String, String> properties = new java.util.LinkedHashMap<>(tableProperties);
        properties.put(ENABLE_DELETION_VECTORS, "true");
        return properties;
    }

    private static final String ENABLE_DELETION_VECTORS = "delta.enableDeletionVectors";

    /**
     * @param appId the user's transaction application id, or null for {@code deltalite}; either way
     *     it is the prefix of the ids the job's checkpoints are committed under
     */
    public static SinkConfig create(
            String location,
            RowType rowType,
            List<String> primaryKey,
            List<String> partitionKey,
            String appId,
            Configuration options,
            Map<String, String> hadoopOptions,
            Map<String, String> tableProperties,
            CommitListener commitListener) {
        return create(
                location,
                rowType,
                primaryKey,
                partitionKey,
                appId,
                options,
                hadoopOptions,
                tableProperties,
                commitListener,
                // Fixed when the job is built: every operator of one submission shares it.
                newSubmission());
    }

    /** A nonce for the transaction app ids of one submission of a job. */
    public static String newSubmission() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * As {@link #create(String, RowType, List, List, String, Configuration, Map, Map,
     * CommitListener)}, for one of several tables a job writes: its transaction app ids end in
     * {@code submission}, which every table of the job shares ({@link #newSubmission()}).
     */
    public static SinkConfig create(
            String location,
            RowType rowType,
            List<String> primaryKey,
            List<String> partitionKey,
            String appId,
            Configuration options,
            Map<String, String> hadoopOptions,
            Map<String, String> tableProperties,
            CommitListener commitListener,
            String submission) {
        WriteMode writeMode = WriteMode.parse(options.get(DeltaLiteOptions.WRITE_MODE));
        TableDefinition definition =
                new TableDefinition(
                        FlinkTypes.toFields(rowType),
                        primaryKey,
                        partitionKey,
                        creationProperties(tableProperties, writeMode, primaryKey, location),
                        new SchemaEvolutionPolicy(
                                SchemaEvolution.parse(
                                        options.get(DeltaLiteOptions.SCHEMA_EVOLUTION)),
                                options.get(DeltaLiteOptions.SCHEMA_EVOLUTION_RENAMES),
                                options.get(DeltaLiteOptions.SCHEMA_EVOLUTION_DROP_COLUMNS)));
        // Checks the key columns and types now, at job build time, rather than on the cluster.
        definition.toSchema();
        MergeOptions merge = mergeOptions(options, writeMode);
        int partitions = options.get(DeltaLiteOptions.MAX_PARALLEL_PARTITIONS);
        if (partitions < 1) {
            throw new IllegalArgumentException(
                    "max-parallel-partitions must be positive, but is " + partitions);
        }
        java.time.Duration heartbeat = options.get(DeltaLiteOptions.HEARTBEAT_INTERVAL);
        if (heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException(
                    "heartbeat-interval must be positive, but is " + heartbeat);
        }
        return new SinkConfig(
                location,
                rowType,
                definition,
                appId != null ? appId : "deltalite",
                submission,
                merge,
                partitions,
                new StorageSettings(hadoopOptions, options.get(DeltaLiteOptions.S3_SINGLE_WRITER)),
                commitListener,
                Distribution.parse(options.get(DeltaLiteOptions.DISTRIBUTION)),
                heartbeat,
                options.get(DeltaLiteOptions.WARM_UP),
                null);
    }

    /** This configuration, knowing the table's partition columns. */
    public SinkConfig withTablePartitionColumns(List<String> columns) {
        return new SinkConfig(
                location,
                rowType,
                definition,
                appIdPrefix,
                submission,
                mergeOptions,
                maxParallelPartitions,
                storage,
                commitListener,
                distribution,
                heartbeatInterval,
                warmUp,
                columns);
    }

    /**
     * The partition columns of the table — of the existing table, or those declared for a table the
     * sink creates — when the table could be read while the job was built.
     */
    public java.util.Optional<List<String>> tablePartitionColumns() {
        return java.util.Optional.ofNullable(tablePartitionColumns);
    }

    /** The merge engine's options from the sink's (or a maintenance tool's) configuration. */
    public static MergeOptions mergeOptions(Configuration options, WriteMode writeMode) {
        return new MergeOptions(
                options.get(DeltaLiteOptions.MAX_PARALLEL_FILES),
                options.getOptional(DeltaLiteOptions.MAX_BUFFERED_BYTES)
                        .map(MemorySize::getBytes)
                        .orElse(MergeOptions.AUTO_BUFFERED_BYTES),
                options.getOptional(DeltaLiteOptions.TARGET_FILE_SIZE)
                        .map(SinkConfig::positiveTargetFileSize)
                        .orElse(0L),
                options.get(DeltaLiteOptions.ROW_GROUP_SIZE).getBytes(),
                options.get(DeltaLiteOptions.READ_BATCH_SIZE),
                options.get(DeltaLiteOptions.PRUNE_STRATEGY),
                options.get(DeltaLiteOptions.COMMIT_RETRIES),
                options.get(DeltaLiteOptions.NULL_KEY_POLICY),
                writeMode,
                options.get(DeltaLiteOptions.DV_REWRITE_THRESHOLD),
                new CompactionOptions(
                        options.get(DeltaLiteOptions.COMPACTION_ENABLED),
                        options.getOptional(DeltaLiteOptions.COMPACTION_SMALL_FILE_SIZE)
                                .map(MemorySize::getBytes)
                                .orElse(0L),
                        options.get(DeltaLiteOptions.COMPACTION_MAX_BYTES_PER_CHECKPOINT)
                                .getBytes(),
                        options.get(DeltaLiteOptions.COMPACTION_DELETED_ROWS_THRESHOLD)),
                options.get(DeltaLiteOptions.PARQUET_COMPRESSION),
                new KeyIndexOptions(
                        options.get(DeltaLiteOptions.KEY_INDEX),
                        options.get(DeltaLiteOptions.KEY_INDEX_MAX_MEMORY).getBytes(),
                        options.get(DeltaLiteOptions.KEY_INDEX_VALIDATE)));
    }

    /** A target file size that is set must be a size: 0 is not "unset". */
    private static long positiveTargetFileSize(MemorySize size) {
        if (size.getBytes() <= 0) {
            throw new IllegalArgumentException(
                    "target-file-size must be positive, but is "
                            + size
                            + ". Leave it unset to use the table's delta.targetFileSize (else 128"
                            + " MiB).");
        }
        return size.getBytes();
    }

    /** Whether the first writer in a class loader warms up the merge on a throwaway table. */
    public boolean warmUp() {
        return warmUp;
    }

    /** How often running writers and the committer refresh the lineage's heartbeat. */
    public java.time.Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /** How the changes are spread over the writer subtasks. */
    public Distribution distribution() {
        return distribution;
    }

    /** The user's listener of commits, or null. */
    public CommitListener commitListener() {
        return commitListener;
    }

    public String location() {
        return location;
    }

    public RowType rowType() {
        return rowType;
    }

    public TableDefinition definition() {
        return definition;
    }

    /** The user's app id, or {@code deltalite}: the prefix of every transaction app id. */
    public String appIdPrefix() {
        return appIdPrefix;
    }

    /**
     * The Delta transaction app id of the checkpoints the job {@code jobId} prepares: the prefix,
     * the job id and a nonce fixed when the job was built. Checkpoint ids only grow within one job
     * (across its failovers and rescales), so {@code (app id, checkpoint id)} names one checkpoint
     * forever; a job submitted again — without state, or from a savepoint — gets a new app id,
     * because its checkpoint ids may repeat earlier ones (see {@code CheckpointCommitter}).
     */
    public String transactionAppId(String jobId) {
        return transactionAppId(appIdPrefix, jobId, submission);
    }

    /**
     * The transaction app id of the checkpoints the job {@code jobId} prepares in the submission
     * {@code submission}, its ids prefixed by {@code appId} (null for {@code deltalite}).
     */
    public static String transactionAppId(String appId, String jobId, String submission) {
        return (appId != null ? appId : "deltalite") + "-" + jobId + "-" + submission;
    }

    public MergeOptions mergeOptions() {
        return mergeOptions;
    }

    public int maxParallelPartitions() {
        return maxParallelPartitions;
    }

    public Map<String, String> hadoopOptions() {
        return storage.hadoopOptions();
    }

    /** The storage settings of the table: Hadoop options and S3 single-writer mode. */
    public StorageSettings storage() {
        return storage;
    }

    @Override
    public String toString() {
        return "SinkConfig{location="
                + location
                + ", primaryKey="
                + definition.primaryKey()
                + ", partitionColumns="
                + definition.partitionColumns()
                + ", appId="
                + appIdPrefix
                + ", options="
                + mergeOptions
                + ", distribution="
                + distribution
                + ", maxParallelPartitions="
                + maxParallelPartitions
                + ", storage="
                + storage
                + "}";
    }
}
