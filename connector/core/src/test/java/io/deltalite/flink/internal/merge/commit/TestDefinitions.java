package io.deltalite.flink.internal.merge.commit;

import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import java.util.List;
import java.util.Map;

/** Table definitions the engine's tests share. */
public final class TestDefinitions {
    /** {@code (id BIGINT NOT NULL, v STRING)}, keyed by {@code id}, unpartitioned. */
    public static final TableDefinition ITEMS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                    List.of("id"),
                    List.of(),
                    Map.of());

    /** {@link #ITEMS} in a table that allows deletion vectors. */
    public static final TableDefinition ITEMS_WITH_VECTORS =
            new TableDefinition(
                    ITEMS.columns(),
                    ITEMS.primaryKey(),
                    List.of(),
                    Map.of("delta.enableDeletionVectors", "true"));

    private TestDefinitions() {}
}
