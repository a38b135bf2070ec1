package io.deltalite.flink.sink;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.maintenance.TableCompaction;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.sink.SinkConfig;
import io.deltalite.flink.internal.storage.StorageSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * A one-off compaction pass over a Delta table, for a table that is already fragmented — written
 * before the sink compacted inline, or by another tool. It packs the small files of every partition
 * into files of the target size and rewrites files whose deletion vectors delete more than {@link
 * DeltaLiteOptions#COMPACTION_DELETED_ROWS_THRESHOLD} of their rows, in commits that change no data
 * ({@code dataChange = false}), each reading at most {@link
 * DeltaLiteOptions#COMPACTION_MAX_BYTES_PER_CHECKPOINT}. A running sink job may keep writing the
 * table meanwhile: a compaction whose files the job changed is dropped, never committed.
 *
 * <pre>{@code
 * UpsertStats done = DeltaLiteCompaction.forTable("s3a://lake/orders")
 *     .hadoopOption("fs.s3a.endpoint", "https://s3.eu-west-1.amazonaws.com")
 *     .run();
 * }</pre>
 *
 * <p>Files the pass replaces stay on storage for time travel until {@code VACUUM} removes them. On
 * an S3 endpoint without conditional writes ({@code s3.single-writer}) the pass is a second writer:
 * run it only while no sink job writes the table.
 */
@PublicEvolving
public final class DeltaLiteCompaction {
    private final String location;
    private final Configuration options = new Configuration();
    private final Map<String, String> hadoopOptions = new LinkedHashMap<>();

    private DeltaLiteCompaction(String location) {
        this.location = Objects.requireNonNull(location, "location");
    }

    /** A pass over the existing Delta table at {@code location}. */
    public static DeltaLiteCompaction forTable(String location) {
        return new DeltaLiteCompaction(location);
    }

    /**
     * Sets one of {@link DeltaLiteOptions}; the pass uses the target file size, the compaction
     * options, the row-group size and read batch size, and {@code s3.single-writer}.
     */
    public <T> DeltaLiteCompaction option(ConfigOption<T> option, T value) {
        options.set(option, value);
        return this;
    }

    /** A Hadoop setting for the table's file system, for example {@code fs.s3a.endpoint}. */
    public DeltaLiteCompaction hadoopOption(String key, String value) {
        hadoopOptions.put(key, value);
        return this;
    }

    /**
     * Compacts until nothing is left to compact.
     *
     * @return what the pass's commits did together (files compacted and written, bytes read), the
     *     live and small files of the whole table after it, and the version of its last commit
     *     ({@code -1} when it found nothing to compact)
     */
    public UpsertStats run() {
        if (options.get(DeltaLiteOptions.S3_SINGLE_WRITER)) {
            org.slf4j.LoggerFactory.getLogger(DeltaLiteCompaction.class)
                    .warn(
                            "Compacting {} in S3 single-writer mode: no sink job may write the"
                                    + " table while the pass runs, or commits overwrite each"
                                    + " other and data is lost.",
                            location);
        }
        MergeOptions merge = SinkConfig.mergeOptions(options, WriteMode.COPY_ON_WRITE);
        DeltaTable table =
                DeltaTable.open(
                        location,
                        new StorageSettings(
                                hadoopOptions, options.get(DeltaLiteOptions.S3_SINGLE_WRITER)),
                        merge,
                        TableDefinition.existingTable(),
                        false);
        return new TableCompaction(table, merge).run();
    }

    @Override
    public String toString() {
        // Hadoop options may hold credentials: only their keys.
        return "DeltaLiteCompaction{"
                + location
                + ", hadoop options "
                + hadoopOptions.keySet()
                + "}";
    }
}
