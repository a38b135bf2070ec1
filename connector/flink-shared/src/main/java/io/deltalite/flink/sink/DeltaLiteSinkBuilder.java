package io.deltalite.flink.sink;

import io.deltalite.flink.internal.sink.KeyColumns;
import io.deltalite.flink.internal.sink.SinkConfig;
import io.deltalite.flink.internal.sink.SinkTopology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.types.logical.RowType;

/**
 * Builds a {@link DeltaLiteSink}; obtain one with {@link DeltaLiteSink#forTable(String)}. Setters
 * check their argument and return this builder; {@link #build()} checks what spans several settings
 * and says what to set.
 */
@PublicEvolving
public final class DeltaLiteSinkBuilder {
    private final String location;
    private RowType rowType;
    private final List<String> primaryKey = new ArrayList<>();
    private final List<String> partitionKey = new ArrayList<>();
    private String appId;
    private final Configuration options = new Configuration();
    private final Map<String, String> hadoopOptions = new LinkedHashMap<>();
    private final Map<String, String> tableProperties = new LinkedHashMap<>();
    private CommitListener commitListener;
    private boolean appendOnly;

    DeltaLiteSinkBuilder(String location) {
        this.location = requireText(location, "table location");
    }

    /** The type of the input {@code RowData}; its {@code RowKind} gives the change kind. */
    public DeltaLiteSinkBuilder rowType(RowType rowType) {
        this.rowType = Objects.requireNonNull(rowType, "rowType must not be null");
        return this;
    }

    /** The primary-key columns, in order. Required. */
    public DeltaLiteSinkBuilder primaryKey(String... columns) {
        this.primaryKey.clear();
        for (String column : columns) {
            this.primaryKey.add(requireText(column, "primary-key column"));
        }
        return this;
    }

    /** The partition columns of a table the sink creates; an existing table keeps its own. */
    public DeltaLiteSinkBuilder partitionKey(String... columns) {
        this.partitionKey.clear();
        for (String column : columns) {
            this.partitionKey.add(requireText(column, "partition column"));
        }
        return this;
    }

    /**
     * The prefix of the Delta transaction application ids of this sink's commits (default {@code
     * deltalite}), to tell in the table's history which job wrote a version. The full id adds the
     * Flink job id and a nonce of the submission: each checkpoint's commit carries the id it was
     * prepared under, so a replay after a failover or a savepoint restore is recognized, and every
     * new submission — with or without state — commits all of its own checkpoints.
     */
    public DeltaLiteSinkBuilder appId(String appId) {
        this.appId = requireText(appId, "app id");
        return this;
    }

    /** Sets one of the {@link DeltaLiteOptions}. */
    public <T> DeltaLiteSinkBuilder option(ConfigOption<T> option, T value) {
        Objects.requireNonNull(option, "option must not be null");
        Objects.requireNonNull(
                value, () -> "value of option '" + option.key() + "' must not be null");
        options.set(option, value);
        return this;
    }

    /** Sets a storage setting, such as {@code fs.s3a.endpoint}. Values are never logged. */
    public DeltaLiteSinkBuilder hadoopOption(String key, String value) {
        hadoopOptions.put(
                requireText(key, "Hadoop option key"), Objects.requireNonNull(value, key));
        return this;
    }

    /**
     * A table property (for example {@code delta.checkpointInterval}) of a table the sink creates.
     */
    public DeltaLiteSinkBuilder tableProperty(String key, String value) {
        tableProperties.put(requireText(key, "table property"), Objects.requireNonNull(value, key));
        return this;
    }

    /**
     * Makes the sink append-only: it takes no primary key, every record must be an insert, and no
     * file is ever rewritten. For tables of events rather than of keyed state.
     */
    public DeltaLiteSinkBuilder appendOnly() {
        this.appendOnly = true;
        return this;
    }

    /**
     * Lets the job change an existing table's schema when it starts, so that the input fits it: see
     * {@link SchemaEvolution}. Same as {@code option(DeltaLiteOptions.SCHEMA_EVOLUTION,
     * mode.toString())}.
     */
    public DeltaLiteSinkBuilder schemaEvolution(SchemaEvolution mode) {
        return option(
                DeltaLiteOptions.SCHEMA_EVOLUTION,
                Objects.requireNonNull(mode, "mode must not be null").toString());
    }

    /**
     * Renames columns of an existing table when the job starts: each entry maps a table column to
     * the name the input now gives it. The column keeps its values; a rename made before is
     * skipped. Only on tables with column mapping, never a primary-key or partition column. Same as
     * {@code option(DeltaLiteOptions.SCHEMA_EVOLUTION_RENAMES, tableToInputNames)}.
     */
    public DeltaLiteSinkBuilder renameColumns(Map<String, String> tableToInputNames) {
        return option(
                DeltaLiteOptions.SCHEMA_EVOLUTION_RENAMES,
                new LinkedHashMap<>(
                        Objects.requireNonNull(tableToInputNames, "renames must not be null")));
    }

    /**
     * Drops the columns of an existing table that the input does not have when the job starts,
     * instead of writing them as null; their values become unreadable. Only on tables with column
     * mapping, never a primary-key or partition column. Same as {@code
     * option(DeltaLiteOptions.SCHEMA_EVOLUTION_DROP_COLUMNS, true)}.
     */
    public DeltaLiteSinkBuilder dropColumnsMissingFromInput() {
        return option(DeltaLiteOptions.SCHEMA_EVOLUTION_DROP_COLUMNS, true);
    }

    /** Called after each committed checkpoint, for example to report progress. */
    public DeltaLiteSinkBuilder commitListener(CommitListener listener) {
        this.commitListener = Objects.requireNonNull(listener, "listener must not be null");
        return this;
    }

    public DeltaLiteSink build() {
        if (rowType == null) {
            throw new IllegalArgumentException(
                    "No row type set for the deltalite sink of "
                            + location
                            + ": call rowType(...) with the RowType of the input RowData.");
        }
        if (primaryKey.isEmpty() && !appendOnly) {
            throw new IllegalArgumentException(
                    "No primary key set for the deltalite sink of "
                            + location
                            + ": call primaryKey(...) with the columns that identify a row, or"
                            + " appendOnly() for a table that only ever gets inserts.");
        }
        if (appendOnly && !primaryKey.isEmpty()) {
            throw new IllegalArgumentException(
                    "The deltalite sink of "
                            + location
                            + " is append-only and has a primary key "
                            + primaryKey
                            + "; choose one.");
        }
        List<String> key = KeyColumns.resolve(rowType, primaryKey, "primary-key", location);
        List<String> partitions = KeyColumns.resolve(rowType, partitionKey, "partition", location);
        SinkConfig config =
                SinkConfig.create(
                        location,
                        rowType,
                        key,
                        partitions,
                        appId,
                        options,
                        hadoopOptions,
                        tableProperties,
                        commitListener);
        return new DeltaLiteSink(SinkTopology.checkTable(config));
    }

    private static String requireText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("The " + what + " must not be null or blank.");
        }
        return value;
    }

    @Override
    public String toString() {
        return "DeltaLiteSinkBuilder{"
                + location
                + ", primaryKey="
                + primaryKey
                + ", partitionKey="
                + partitionKey
                + ", hadoopOptions="
                + Arrays.toString(hadoopOptions.keySet().toArray())
                + " (values hidden)}";
    }
}
