package io.deltalite.flink.internal.merge.result;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Key values of a type Delta's type widening widens, brought to the wider type as readers read the
 * old values: the one conversion restored keys and statistics bounds go through.
 */
class WidenedValuesTest {
    @Test
    void eachWideningDeltaAllowsGivesTheValueReadersSeeInTheWiderType() {
        assertThat(WidenedValues.conform((byte) 7, ValueType.of(Kind.SMALLINT)))
                .isEqualTo((short) 7);
        assertThat(WidenedValues.conform((short) -3, ValueType.of(Kind.INT))).isEqualTo(-3);
        assertThat(WidenedValues.conform(Integer.MAX_VALUE, ValueType.of(Kind.BIGINT)))
                .isEqualTo((long) Integer.MAX_VALUE);
        assertThat(WidenedValues.conform(0.1f, ValueType.of(Kind.DOUBLE))).isEqualTo((double) 0.1f);
        assertThat(WidenedValues.conform(12, ValueType.of(Kind.DOUBLE))).isEqualTo(12.0);
        assertThat(WidenedValues.conform(new BigDecimal("1.25"), new ValueType.Decimal(12, 4)))
                .isEqualTo(new BigDecimal("1.2500"));
        assertThat(WidenedValues.conform(42L, new ValueType.Decimal(22, 2)))
                .isEqualTo(new BigDecimal("42.00"));
        // A date widened to timestamp_ntz: its midnight, in microseconds.
        assertThat(WidenedValues.conform(1, ValueType.of(Kind.TIMESTAMP_NTZ)))
                .isEqualTo(86_400_000_000L);
    }

    @Test
    void aValueAlreadyOfTheColumnsTypeIsKeptAsItIs() {
        Long id = 5_000_000_000L;
        assertThat(WidenedValues.conform(id, ValueType.of(Kind.BIGINT))).isSameAs(id);
        assertThat(WidenedValues.conform("k", ValueType.of(Kind.STRING))).isEqualTo("k");
        RowKey key = RowKey.ofValues(id, "k");
        assertThat(
                        WidenedValues.conform(
                                key, List.of(ValueType.of(Kind.BIGINT), ValueType.of(Kind.STRING))))
                .isSameAs(key);
        assertThat(
                        WidenedValues.conform(
                                RowKey.ofValues((short) 5, "k"),
                                List.of(ValueType.of(Kind.INT), ValueType.of(Kind.STRING))))
                .isEqualTo(RowKey.ofValues(5, "k"));
    }
}
