package io.deltalite.flink.bench;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.testing.UpsertHarness;
import java.util.List;
import java.util.Map;

/** The same rows written at once into a new table: the layout a long-lived table is compared to. */
final class FreshTable {
    private FreshTable() {}

    static void write(String location, List<Object[]> rows) {
        TableDefinition definition =
                new TableDefinition(
                        List.of(
                                new ValueType.Field(
                                        "id", ValueType.of(ValueType.Kind.BIGINT), false),
                                new ValueType.Field(
                                        "part", ValueType.of(ValueType.Kind.STRING), true),
                                new ValueType.Field(
                                        "amount", ValueType.of(ValueType.Kind.BIGINT), true),
                                new ValueType.Field(
                                        "note", ValueType.of(ValueType.Kind.STRING), true)),
                        List.of("id"),
                        List.of("part"),
                        Map.of());
        try (UpsertHarness harness =
                UpsertHarness.open(
                        location,
                        definition,
                        MergeOptions.DEFAULTS.withMaxBufferedBytes(1L << 30))) {
            rows.forEach(harness::upsert);
            harness.commit();
        }
    }
}
