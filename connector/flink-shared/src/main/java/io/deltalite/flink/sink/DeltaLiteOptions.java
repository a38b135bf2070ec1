package io.deltalite.flink.sink;

import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Every knob of the deltalite sink, with its default. Set them with {@link
 * DeltaLiteSinkBuilder#option(ConfigOption, Object)}:
 *
 * <pre>{@code
 * DeltaLiteSink.forTable("/data/orders")
 *     .rowType(rowType)
 *     .primaryKey("id")
 *     .option(DeltaLiteOptions.MAX_PARALLEL_FILES, 8)
 *     .option(DeltaLiteOptions.TARGET_FILE_SIZE, MemorySize.parse("256mb"))
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class DeltaLiteOptions {
    private DeltaLiteOptions() {}

    public static final ConfigOption<Integer> MAX_PARALLEL_FILES =
            ConfigOptions.key("max-parallel-files")
                    .intType()
                    .defaultValue(4)
                    .withDescription(
                            "Data files one writer reads at the same time, to probe them for"
                                    + " changed keys or to rewrite them. Each rewrite lane writes its"
                                    + " own output file, so this also bounds open output files.");

    public static final ConfigOption<Integer> MAX_PARALLEL_PARTITIONS =
            ConfigOptions.key("max-parallel-partitions")
                    .intType()
                    .defaultValue(2)
                    .withDescription("Partitions one writer merges at the same time.");

    public static final ConfigOption<MemorySize> MAX_BUFFERED_BYTES =
            ConfigOptions.key("max-buffered-bytes")
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(
                            "Heap budget of a writer's change buffer. Past it, the largest"
                                    + " partitions are merged early; their results stay pending"
                                    + " until the checkpoint commits them. Unset, the writers of"
                                    + " a JVM share an eighth of its heap: each gets an equal"
                                    + " part, at most 256 MiB and at least 4 MiB. A single row"
                                    + " may be as large as a set budget, or 64 MiB when unset.");

    public static final ConfigOption<MemorySize> TARGET_FILE_SIZE =
            ConfigOptions.key("target-file-size")
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(
                            "Size at which a new data file is started. Defaults to the table's"
                                    + " delta.targetFileSize, else 128 MiB.");

    public static final ConfigOption<MemorySize> ROW_GROUP_SIZE =
            ConfigOptions.key("row-group-size")
                    .memoryType()
                    .defaultValue(MemorySize.ofMebiBytes(32))
                    .withDescription(
                            "Parquet row-group size of written files. Each open output file holds"
                                    + " up to one row group in memory. In deletion-vector mode a"
                                    + " worn file is rewritten at least a row group per"
                                    + " checkpoint: smaller row groups spread the rewrite finer.");

    public static final ConfigOption<ParquetCompression> PARQUET_COMPRESSION =
            ConfigOptions.key("parquet.compression")
                    .enumType(ParquetCompression.class)
                    .defaultValue(ParquetCompression.ZSTD)
                    .withDescription(
                            "Codec of the Parquet files the sink writes: zstd, snappy, gzip,"
                                    + " lz4_raw or uncompressed. Files already in the table keep"
                                    + " theirs until they are rewritten.");

    public static final ConfigOption<Integer> READ_BATCH_SIZE =
            ConfigOptions.key("read-batch-size")
                    .intType()
                    .defaultValue(8192)
                    .withDescription("Rows per decoded batch when reading data files.");

    public static final ConfigOption<PruneStrategy> PRUNE_STRATEGY =
            ConfigOptions.key("prune-strategy")
                    .enumType(PruneStrategy.class)
                    .defaultValue(PruneStrategy.PROBE)
                    .withDescription(
                            "How files holding changed keys are found: PROBE (statistics, then"
                                    + " read the key columns), STATS (statistics only) or NONE"
                                    + " (rewrite every file of a touched partition).");

    public static final ConfigOption<KeyIndexMode> KEY_INDEX =
            ConfigOptions.key("key-index")
                    .enumType(KeyIndexMode.class)
                    .defaultValue(KeyIndexMode.AUTO)
                    .withDescription(
                            "Whether writers keep an index of where each key's row is, so that a"
                                    + " checkpoint finds the rows it replaces without reading the"
                                    + " key columns of the table's files: AUTO (index a partition"
                                    + " from its second merge on, an unpartitioned table from its"
                                    + " first), ON (from its first) or OFF"
                                    + " (probe the files at every merge). The index lives on the"
                                    + " writer's heap and is rebuilt after a restart.");

    public static final ConfigOption<MemorySize> KEY_INDEX_MAX_MEMORY =
            ConfigOptions.key("key-index.max-memory")
                    .memoryType()
                    .defaultValue(new MemorySize(512L << 20))
                    .withDescription(
                            "Heap one writer's key index may take, at most an eighth of the heap"
                                    + " (about 21-43 bytes per key of"
                                    + " one integral column, 32-64 per other key). Past it the"
                                    + " least recently merged partitions are dropped; a partition"
                                    + " too large alone is probed instead of indexed.");

    public static final ConfigOption<Boolean> KEY_INDEX_VALIDATE =
            ConfigOptions.key("key-index.validate")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Whether every merge also reads the key columns of the files and"
                                    + " fails the checkpoint if they disagree with the key index."
                                    + " Costs what the index saves; for tests and for doubt.");

    public static final ConfigOption<Integer> COMMIT_RETRIES =
            ConfigOptions.key("commit-retries")
                    .intType()
                    .defaultValue(10)
                    .withDescription(
                            "Attempts after the first to land a checkpoint's commit when other"
                                    + " writers commit in between. Partitions they changed are"
                                    + " merged again before each attempt.");

    public static final ConfigOption<NullKeyPolicy> NULL_KEY_POLICY =
            ConfigOptions.key("null-key-policy")
                    .enumType(NullKeyPolicy.class)
                    .defaultValue(NullKeyPolicy.INSERT)
                    .withDescription(
                            "Rows with a null in a primary-key column never match. INSERT them"
                                    + " (as MERGE does), FAIL the checkpoint, or DROP and count"
                                    + " them.");

    public static final ConfigOption<Boolean> S3_SINGLE_WRITER =
            ConfigOptions.key("s3.single-writer")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Start even if the table's S3 endpoint ignores conditional writes"
                                    + " (If-None-Match), which the sink otherwise refuses. Safe only"
                                    + " if exactly one writer ever writes the table: with a second"
                                    + " writer (another job, Spark, a job started twice) commits"
                                    + " overwrite each other and data is lost silently.");

    public static final ConfigOption<String> WRITE_MODE =
            ConfigOptions.key("write-mode")
                    .stringType()
                    .defaultValue(WriteMode.AUTO.toString())
                    .withDescription(
                            "How the old rows of changed keys leave the files that hold them:"
                                    + " copy-on-write (rewrite the files), deletion-vectors (mark"
                                    + " the rows; readers need Delta reader version 3 with"
                                    + " deletion vectors) or auto (deletion vectors when the"
                                    + " table has delta.enableDeletionVectors = true, which a"
                                    + " table the sink creates gets).");

    public static final ConfigOption<String> SCHEMA_EVOLUTION =
            ConfigOptions.key("schema-evolution")
                    .stringType()
                    .defaultValue(SchemaEvolution.NONE.toString())
                    .withDescription(
                            "How an existing table's schema follows the input when the job"
                                    + " starts (one metadata commit before any data): none (refuse"
                                    + " an input that does not fit), add-columns (add nullable"
                                    + " input columns the table lacks) or"
                                    + " add-columns-and-widen-types (also widen int to bigint,"
                                    + " float to double, decimal precision at the same scale;"
                                    + " turns on Delta's type widening feature, which readers"
                                    + " need). A narrowed type is always refused; renames and"
                                    + " drops are asked for with schema-evolution.renames and"
                                    + " schema-evolution.drop-columns.");

    public static final ConfigOption<Map<String, String>> SCHEMA_EVOLUTION_RENAMES =
            ConfigOptions.key("schema-evolution.renames")
                    .mapType()
                    .defaultValue(Map.of())
                    .withDescription(
                            "Columns of an existing table to rename when the job starts, as"
                                    + " 'table_name:input_name,...' (one metadata commit before"
                                    + " any data; done once: a rename whose new name the table"
                                    + " has is skipped). The column keeps its values. Top-level"
                                    + " columns that are neither primary-key nor partition"
                                    + " columns, on tables with column mapping only.");

    public static final ConfigOption<Boolean> SCHEMA_EVOLUTION_DROP_COLUMNS =
            ConfigOptions.key("schema-evolution.drop-columns")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Whether a column of an existing table that the input no longer"
                                    + " has is dropped from the table's schema when the job"
                                    + " starts (one metadata commit before any data), instead of"
                                    + " being written as null. Its values become unreadable."
                                    + " Never a primary-key or partition column; on tables with"
                                    + " column mapping only.");

    public static final ConfigOption<String> DISTRIBUTION =
            ConfigOptions.key("distribution")
                    .stringType()
                    .defaultValue(Distribution.PARTITION.toString())
                    .withDescription(
                            "How changes are spread over the writer subtasks: partition (one"
                                    + " writer owns each partition) or key (by a hash of the"
                                    + " primary key, so that every writer shares each partition,"
                                    + " also a single hot one; meant for deletion-vector tables)."
                                    + " See Distribution.");

    public static final ConfigOption<java.time.Duration> HEARTBEAT_INTERVAL =
            ConfigOptions.key("heartbeat-interval")
                    .durationType()
                    .defaultValue(java.time.Duration.ofHours(1))
                    .withDescription(
                            "How often each running writer and the committer refresh the job's"
                                    + " heartbeat in the table's _deltalite/journal/<app id>/,"
                                    + " which tells the maintenance pass (DeltaLiteMaintenance)"
                                    + " that the job is alive even when it has no input. A pass"
                                    + " judges a job by its heartbeat only with a retention of at"
                                    + " least twice this interval.");

    public static final ConfigOption<Boolean> WARM_UP =
            ConfigOptions.key("warm-up")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Whether the first writer opened in a TaskManager runs the merge on a"
                                    + " throwaway table of made-up rows in the JVM's temporary"
                                    + " directory (java.io.tmpdir), deleted after, until the"
                                    + " first checkpoint begins, so that the checkpoint does not"
                                    + " run code the JIT has not compiled yet. It never touches the"
                                    + " sink's table. It pays only when the first checkpoint"
                                    + " leaves it a few seconds: set"
                                    + " execution.checkpointing.min-pause (for example 5 s) with"
                                    + " it; without a pause Flink often triggers the first"
                                    + " checkpoint before the warm-up has done anything.");

    public static final ConfigOption<Double> DV_REWRITE_THRESHOLD =
            ConfigOptions.key("dv.rewrite-threshold")
                    .doubleType()
                    .defaultValue(0.5)
                    .withDescription(
                            "In deletion-vector mode, a file whose deletion vector would delete"
                                    + " more than this share of its rows is rewritten instead,"
                                    + " so that readers do not drag mostly deleted files. Such"
                                    + " rewrites are paced: a merge moves the live rows of a few"
                                    + " row groups of such files, as many as keep what it reads in"
                                    + " proportion to the rows it deletes, and marks the rest for"
                                    + " later merges.");

    public static final ConfigOption<Boolean> COMPACTION_ENABLED =
            ConfigOptions.key("compaction.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether each writer, after a checkpoint's merge, compacts the"
                                    + " partitions it touched: small files are merged by size"
                                    + " tier, and files whose deletion vectors delete more than"
                                    + " compaction.deleted-rows-threshold are rewritten. Committed"
                                    + " in the checkpoint's commit with dataChange = false.");

    public static final ConfigOption<MemorySize> COMPACTION_SMALL_FILE_SIZE =
            ConfigOptions.key("compaction.small-file-size")
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(
                            "Data files below this size are small: compaction merges them by"
                                    + " size tier; deletion-vector merges mark them like other"
                                    + " files and fold a full tier that holds changed rows into"
                                    + " one file. Defaults to a sixteenth of the target file size"
                                    + " (8 MiB).");

    public static final ConfigOption<MemorySize> COMPACTION_MAX_BYTES_PER_CHECKPOINT =
            ConfigOptions.key("compaction.max-bytes-per-checkpoint")
                    .memoryType()
                    .defaultValue(MemorySize.ofMebiBytes(256))
                    .withDescription(
                            "Bytes of data files one writer may read for compaction per"
                                    + " checkpoint; bounds the time compaction adds to a"
                                    + " checkpoint.");

    public static final ConfigOption<Double> COMPACTION_DELETED_ROWS_THRESHOLD =
            ConfigOptions.key("compaction.deleted-rows-threshold")
                    .doubleType()
                    .defaultValue(0.2)
                    .withDescription(
                            "A data file whose deletion vector deletes more than this share of"
                                    + " its rows is rewritten without them by compaction.");
}
