package io.deltalite.flink.internal.merge.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An instant (Delta {@code timestamp}, Flink TIMESTAMP_LTZ) and a wall-clock time (Delta {@code
 * timestamp_ntz}, Flink TIMESTAMP) are different things: the sink refuses to write one into a
 * column of the other instead of reading wall-clock time as UTC.
 */
class TimestampZoneTest {

    @ParameterizedTest(name = "{0} into {1}")
    @CsvSource({"TIMESTAMP_NTZ, TIMESTAMP", "TIMESTAMP, TIMESTAMP_NTZ"})
    void aTimestampIsNotWrittenIntoAColumnOfTheOtherKind(Kind input, Kind table) {
        TableSchema schema =
                new TableSchema(
                        List.of(
                                new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                                new ValueType.Field("at", ValueType.of(table), true)),
                        List.of("id"),
                        List.of());
        List<ValueType.Field> columns =
                List.of(
                        new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                        new ValueType.Field("at", ValueType.of(input), true));

        assertThatThrownBy(() -> InputProjection.plan(columns, schema, "/tables/events"))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("Column 'at'")
                .hasMessageContaining("/tables/events")
                .hasMessageContaining("time zone")
                .hasMessageContaining("CAST(col AS TIMESTAMP_LTZ(6))");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"TIMESTAMP", "TIMESTAMP_NTZ"})
    void aTimestampOfTheSameKindIsWrittenAsItIs(Kind kind) {
        TableSchema schema =
                new TableSchema(
                        List.of(
                                new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                                new ValueType.Field("at", ValueType.of(kind), true)),
                        List.of("id"),
                        List.of());
        InputProjection projection = InputProjection.plan(schema.columns(), schema, "/t");
        assertThat(projection.project(new Object[] {1L, 1_700_000_000_123_456L}))
                .containsExactly(1L, 1_700_000_000_123_456L);
    }
}
