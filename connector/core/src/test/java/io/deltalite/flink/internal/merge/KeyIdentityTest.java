package io.deltalite.flink.internal.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A key's identity is equal exactly when the keys are equal, as {@link RowKey#equals} says. */
class KeyIdentityTest {

    @Test
    void equalKeysHaveEqualIdentities() {
        List<Object[]> keys =
                List.of(
                        new Object[] {"müller", 1L},
                        new Object[] {new byte[] {1, 2, 3}},
                        new Object[] {new BigDecimal("12.50")},
                        new Object[] {Double.NaN, "x"},
                        new Object[] {true, (short) 3});
        for (Object[] values : keys) {
            RowKey one = RowKey.ofValues(values);
            RowKey same = RowKey.ofValues(values.clone());
            assertThat(one).isEqualTo(same);
            assertThat(KeyIdentity.of(one, false)).isEqualTo(KeyIdentity.of(same, false));
        }
    }

    @Test
    void keysThatDifferHaveDifferentIdentities() {
        List<RowKey> different =
                List.of(
                        RowKey.ofValues("ab", "c"),
                        RowKey.ofValues("a", "bc"),
                        RowKey.ofValues("abc"),
                        RowKey.ofValues(new BigDecimal("12.5")),
                        RowKey.ofValues(new BigDecimal("12.50")),
                        RowKey.ofValues(0.0d),
                        RowKey.ofValues(-0.0d),
                        RowKey.ofValues(1L),
                        RowKey.ofValues("1"),
                        RowKey.ofValues(new byte[] {1}),
                        RowKey.ofValues(new byte[] {0, 1}),
                        RowKey.ofValues(""),
                        RowKey.ofValues("\u0000"));
        Map<KeyIdentity, RowKey> seen = new HashMap<>();
        for (RowKey key : different) {
            assertThat(seen.put(KeyIdentity.of(key, false), key)).as("%s", key).isNull();
        }
    }

    @Test
    void aMillionRandomStringKeysShareNoIdentity() {
        Random random = new Random(3);
        Map<KeyIdentity, String> seen = new HashMap<>();
        for (int i = 0; i < 1_000_000; i++) {
            String key = Long.toString(random.nextLong(), 36) + "-" + i;
            assertThat(seen.put(KeyIdentity.of(RowKey.ofValues(key, i), false), key)).isNull();
        }
    }

    @Test
    void integralKeysOfAnyWidthAreTheirValue() {
        assertThat(KeyIdentity.isIntegral(List.of(ValueType.of(ValueType.Kind.INT)))).isTrue();
        assertThat(KeyIdentity.isIntegral(List.of(ValueType.of(ValueType.Kind.STRING)))).isFalse();
        assertThat(
                        KeyIdentity.isIntegral(
                                List.of(
                                        ValueType.of(ValueType.Kind.BIGINT),
                                        ValueType.of(ValueType.Kind.BIGINT))))
                .isFalse();
        assertThat(KeyIdentity.of(RowKey.ofValues((short) 5), true))
                .isEqualTo(KeyIdentity.of(RowKey.ofValues(5L), true));
    }
}
