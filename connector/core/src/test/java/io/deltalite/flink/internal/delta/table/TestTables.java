package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.transaction.CreateTableTransactionBuilder;
import io.delta.kernel.transaction.DataLayoutSpec;
import io.delta.kernel.utils.CloseableIterable;
import io.deltalite.flink.internal.delta.kernel.KernelSchemas;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/** Delta tables made for tests without deltalite: through Kernel, or by writing the log by hand. */
public final class TestTables {
    private TestTables() {}

    /** Creates an empty table through Kernel's public API, as any Kernel-based writer would. */
    public static void createWithKernel(
            String location,
            List<ValueType.Field> columns,
            List<String> partitionColumns,
            Map<String, String> properties) {
        Engine engine = DefaultEngine.create(new Configuration());
        CreateTableTransactionBuilder builder =
                TableManager.buildCreateTableTransaction(
                                location, KernelSchemas.toKernel(columns), "test-tables")
                        .withTableProperties(properties);
        if (!partitionColumns.isEmpty()) {
            List<Column> layout = new ArrayList<>();
            partitionColumns.forEach(name -> layout.add(new Column(name)));
            builder = builder.withDataLayoutSpec(DataLayoutSpec.partitioned(layout));
        }
        builder.build(engine).commit(engine, CloseableIterable.emptyIterable());
    }

    /**
     * Writes version 0 of a table by hand: a protocol and a metadata action, for features Kernel
     * refuses to create.
     *
     * @param schemaJson the Delta schema as JSON (a {@code struct} with its fields)
     * @param configuration the table properties, as a JSON object
     * @param protocol the protocol action's fields, as a JSON object
     */
    public static void writeVersionZero(
            Path location, String schemaJson, String configuration, String protocol) {
        writeVersionZero(location, schemaJson, List.of(), configuration, protocol);
    }

    /**
     * As {@link #writeVersionZero(Path, String, String, String)}, partitioned by {@code
     * partitionColumns}.
     */
    public static void writeVersionZero(
            Path location,
            String schemaJson,
            List<String> partitionColumns,
            String configuration,
            String protocol) {
        String metadata =
                "{\"metaData\":{\"id\":\"00000000-0000-0000-0000-000000000001\","
                        + "\"format\":{\"provider\":\"parquet\",\"options\":{}},"
                        + "\"schemaString\":"
                        + quote(schemaJson)
                        + ",\"partitionColumns\":["
                        + String.join(
                                ",", partitionColumns.stream().map(TestTables::quote).toList())
                        + "],\"configuration\":"
                        + configuration
                        + ",\"createdTime\":1700000000000}}";
        String protocolAction = "{\"protocol\":" + protocol + "}";
        try {
            Path log = Files.createDirectories(location.resolve("_delta_log"));
            Files.writeString(
                    log.resolve("00000000000000000000.json"),
                    protocolAction + "\n" + metadata + "\n",
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String quote(String json) {
        return "\"" + json.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
