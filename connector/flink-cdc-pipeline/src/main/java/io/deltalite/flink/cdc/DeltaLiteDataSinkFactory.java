package io.deltalite.flink.cdc;

import io.deltalite.flink.cdc.internal.DeltaLiteDataSink;
import io.deltalite.flink.cdc.internal.PipelineSettings;
import io.deltalite.flink.cdc.internal.TableLocations;
import io.deltalite.flink.sink.DeltaLiteOptions;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.cdc.common.configuration.ConfigOption;
import org.apache.flink.cdc.common.configuration.ConfigOptions;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.factories.DataSinkFactory;
import org.apache.flink.cdc.common.factories.FactoryHelper;
import org.apache.flink.cdc.common.sink.DataSink;
import org.apache.flink.configuration.Configuration;

/**
 * {@code sink: type: deltalite} in a Flink CDC pipeline (Flink CDC 3.5 on Flink 1.20): every table
 * the pipeline routes to the sink becomes a Delta table, created from its {@code CreateTableEvent}
 * and kept equal to the source table, one commit per table per checkpoint.
 *
 * <pre>{@code
 * sink:
 *   type: deltalite
 *   table.root: s3a://lake/mirror          # each table at <root>/<schema>/<table>
 *   write-mode: deletion-vectors           # any deltalite sink option
 *   partition.key: app.orders:day          # tables the pipeline creates, by table
 *   table.properties.delta.logRetentionDuration: interval 7 days
 *   hadoop.fs.s3a.endpoint: http://minio:9000
 * }</pre>
 *
 * <p>Options: {@code table.root} or {@code table.path-pattern} ({@code {namespace}}, {@code
 * {schema}}, {@code {table}}); {@code partition.key} ({@code db.t1:c1,c2;db.t2:c3}) for tables the
 * pipeline creates whose source names no partition keys; {@code app-id}; {@code
 * tables.parallel-merges} (4: tables one writer merges at once); every option of {@link
 * DeltaLiteOptions} but {@code distribution} (always by key: the pipeline routes each key to one
 * writer) and the schema evolution ones (the pipeline's own {@code schema.change.behavior} rules);
 * {@code table.properties.*}: Delta properties of the tables it creates; {@code hadoop.*}: storage
 * settings, passed to Hadoop without the prefix.
 */
public final class DeltaLiteDataSinkFactory implements DataSinkFactory {
    /** The sink's type in a pipeline definition. */
    public static final String IDENTIFIER = "deltalite";

    public static final ConfigOption<String> TABLE_ROOT =
            ConfigOptions.key("table.root")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The folder under which each table is written, at"
                                    + " <root>/<schema>/<table>.");

    public static final ConfigOption<String> TABLE_PATH_PATTERN =
            ConfigOptions.key("table.path-pattern")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Where each table is written, instead of table.root: a path with"
                                    + " {namespace}, {schema} and {table}.");

    public static final ConfigOption<String> PARTITION_KEY =
            ConfigOptions.key("partition.key")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Partition columns of tables the pipeline creates whose source names"
                                    + " none: db.t1:c1,c2;db.t2:c3.");

    public static final ConfigOption<String> APP_ID =
            ConfigOptions.key("app-id")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The prefix of the Delta transaction app ids of the pipeline's"
                                    + " commits (default deltalite).");

    public static final ConfigOption<Integer> TABLES_PARALLEL_MERGES =
            ConfigOptions.key("tables.parallel-merges")
                    .intType()
                    .defaultValue(4)
                    .withDescription(
                            "How many tables one writer merges at once at a checkpoint (or before"
                                    + " a schema change), and the committer commits at once; each"
                                    + " merge holds what one table's merge does, up to"
                                    + " max-parallel-files output files.");

    private static final String HADOOP_PREFIX = "hadoop.";
    private static final String TABLE_PROPERTIES_PREFIX = "table.properties.";

    /** deltalite's sink options the pipeline sets itself. */
    private static final Set<String> SET_BY_THE_PIPELINE =
            Set.of(
                    DeltaLiteOptions.DISTRIBUTION.key(),
                    DeltaLiteOptions.SCHEMA_EVOLUTION.key(),
                    DeltaLiteOptions.SCHEMA_EVOLUTION_RENAMES.key(),
                    DeltaLiteOptions.SCHEMA_EVOLUTION_DROP_COLUMNS.key());

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<ConfigOption<?>> options =
                new HashSet<>(
                        List.of(
                                TABLE_ROOT,
                                TABLE_PATH_PATTERN,
                                PARTITION_KEY,
                                APP_ID,
                                TABLES_PARALLEL_MERGES));
        for (String key : sinkOptionKeys()) {
            options.add(ConfigOptions.key(key).stringType().noDefaultValue());
        }
        return options;
    }

    @Override
    public DataSink createDataSink(Context context) {
        org.apache.flink.cdc.common.configuration.Configuration config =
                context.getFactoryConfiguration();
        Map<String, String> all = config.toMap();
        for (String key : SET_BY_THE_PIPELINE) {
            if (all.containsKey(key)) {
                throw new IllegalArgumentException(
                        "The deltalite pipeline sink sets '"
                                + key
                                + "' itself: the pipeline routes every key to one writer, and its"
                                + " schema.change.behavior decides how schemas change. Remove '"
                                + key
                                + "' from the sink's options.");
            }
        }
        FactoryHelper.createFactoryHelper(this, context)
                .validateExcept(HADOOP_PREFIX, TABLE_PROPERTIES_PREFIX);
        Map<String, String> sinkOptions = new LinkedHashMap<>();
        Map<String, String> hadoop = new LinkedHashMap<>();
        Map<String, String> properties = new LinkedHashMap<>();
        Set<String> sinkKeys = sinkOptionKeys();
        all.forEach(
                (key, value) -> {
                    if (key.startsWith(HADOOP_PREFIX)) {
                        hadoop.put(key.substring(HADOOP_PREFIX.length()), value);
                    } else if (key.startsWith(TABLE_PROPERTIES_PREFIX)) {
                        properties.put(key.substring(TABLE_PROPERTIES_PREFIX.length()), value);
                    } else if (sinkKeys.contains(key)) {
                        sinkOptions.put(key, value);
                    }
                });
        return new DeltaLiteDataSink(
                new PipelineSettings(
                        locations(config),
                        Configuration.fromMap(sinkOptions),
                        hadoop,
                        properties,
                        partitionKeys(config.getOptional(PARTITION_KEY).orElse("")),
                        config.getOptional(APP_ID).orElse(null),
                        config.get(TABLES_PARALLEL_MERGES)));
    }

    private static TableLocations locations(
            org.apache.flink.cdc.common.configuration.Configuration config) {
        String root = config.getOptional(TABLE_ROOT).orElse(null);
        String pattern = config.getOptional(TABLE_PATH_PATTERN).orElse(null);
        if ((root == null) == (pattern == null)) {
            throw new IllegalArgumentException(
                    "The deltalite pipeline sink needs exactly one of '"
                            + TABLE_ROOT.key()
                            + "' (each table at <root>/<schema>/<table>) and '"
                            + TABLE_PATH_PATTERN.key()
                            + "' (a path with {schema} and {table}); "
                            + (root == null ? "neither is set." : "both are set."));
        }
        return root != null ? TableLocations.under(root) : TableLocations.ofPattern(pattern);
    }

    /** {@code db.t1:c1,c2;db.t2:c3} as partition columns by table. */
    static Map<TableId, List<String>> partitionKeys(String spec) {
        Map<TableId, List<String>> keys = new LinkedHashMap<>();
        for (String entry : spec.split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            int colon = entry.indexOf(':');
            if (colon <= 0 || colon == entry.length() - 1) {
                throw new IllegalArgumentException(
                        "'"
                                + PARTITION_KEY.key()
                                + "' entry '"
                                + entry
                                + "' is not <table>:<column>[,<column>...], for example"
                                + " app.orders:day;app.events:region,day.");
            }
            List<String> columns = new ArrayList<>();
            for (String column : entry.substring(colon + 1).split(",")) {
                columns.add(column.trim());
            }
            keys.put(TableId.parse(entry.substring(0, colon).trim()), columns);
        }
        return keys;
    }

    /** The keys of deltalite's sink options a pipeline may set. */
    private static Set<String> sinkOptionKeys() {
        Set<String> keys = new HashSet<>();
        for (Field field : DeltaLiteOptions.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers())
                    && org.apache.flink.configuration.ConfigOption.class.isAssignableFrom(
                            field.getType())) {
                try {
                    String key =
                            ((org.apache.flink.configuration.ConfigOption<?>) field.get(null))
                                    .key();
                    if (!SET_BY_THE_PIPELINE.contains(key)) {
                        keys.add(key);
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return keys;
    }
}
