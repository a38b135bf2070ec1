package io.deltalite.flink.internal.merge.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.SchemaEvolution;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@link SchemaChange#between} decides for NOT NULL columns the input declares nullable: they
 * stay NOT NULL unless the policy relaxes them (a Flink CDC pipeline's schema change), and a key or
 * partition column never becomes nullable.
 */
class SchemaChangeRelaxTest {
    private static final TableSchema TABLE =
            new TableSchema(
                    List.of(
                            field("id", false),
                            field("p", false),
                            field("qty", false),
                            field("note", true)),
                    List.of("id"),
                    List.of("p"));

    /** Every column nullable, as a Flink job's input declares it unless told otherwise. */
    private static final List<ValueType.Field> NULLABLE_INPUT =
            List.of(field("id", true), field("p", true), field("qty", true), field("note", true));

    private static final SchemaEvolutionPolicy WIDEN =
            SchemaEvolutionPolicy.of(SchemaEvolution.ADD_COLUMNS_AND_WIDEN_TYPES);

    @Test
    void aJobsNullableInputLeavesNotNullColumnsAsTheyAre() {
        assertThat(SchemaChange.between(TABLE, NULLABLE_INPUT, WIDEN, "t").isEmpty()).isTrue();
    }

    @Test
    void aRelaxingPolicyMakesTheColumnNullableOnceAndNeverAKeyOrPartitionColumn() {
        SchemaEvolutionPolicy relaxing = WIDEN.relaxingNotNull();
        SchemaChange change = SchemaChange.between(TABLE, NULLABLE_INPUT, relaxing, "t");
        assertThat(change.relaxed()).containsExactly("qty");
        TableSchema after = change.applyTo(TABLE);
        assertThat(after.column("qty").nullable()).isTrue();
        assertThat(after.column("id").nullable()).isFalse();
        assertThat(after.column("p").nullable()).isFalse();
        assertThat(change.toString()).contains("make nullable [qty]");
        assertThat(SchemaChange.between(after, NULLABLE_INPUT, relaxing, "t").isEmpty())
                .as("decided again on the relaxed table")
                .isTrue();
    }

    @Test
    void aNotNullInputKeepsTheColumnNotNullUnderARelaxingPolicy() {
        List<ValueType.Field> input =
                List.of(field("id", false), field("p", false), field("qty", false));
        assertThat(SchemaChange.between(TABLE, input, WIDEN.relaxingNotNull(), "t").relaxed())
                .isEmpty();
    }

    private static ValueType.Field field(String name, boolean nullable) {
        return new ValueType.Field(name, ValueType.of(Kind.INT), nullable);
    }
}
