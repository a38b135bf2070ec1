package io.deltalite.e2e.parity;

import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.List;
import java.util.Map;

/** Short ways to declare the tables of the parity scenarios. */
final class ParityTables {
    static final ValueType BIGINT = ValueType.of(ValueType.Kind.BIGINT);
    static final ValueType INT = ValueType.of(ValueType.Kind.INT);
    static final ValueType STRING = ValueType.of(ValueType.Kind.STRING);

    private ParityTables() {}

    /** A nullable column. */
    static ValueType.Field column(String name, ValueType type) {
        return new ValueType.Field(name, type, true);
    }

    static TableDefinition table(
            List<ValueType.Field> columns, List<String> primaryKey, List<String> partitions) {
        return new TableDefinition(columns, primaryKey, partitions, Map.of());
    }

    /**
     * {@code id BIGINT, day STRING, amount INT, note STRING} with primary key {@code id},
     * partitioned by {@code day} or not at all.
     */
    static TableDefinition orders(boolean partitioned) {
        return table(
                List.of(
                        column("id", BIGINT),
                        column("day", STRING),
                        column("amount", INT),
                        column("note", STRING)),
                List.of("id"),
                partitioned ? List.of("day") : List.of());
    }
}
