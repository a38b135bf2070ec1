package io.deltalite.flink.internal.merge.value;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.schema.ValueType;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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

    @Test
    void aStringHashedFromItsUtf8BytesHasTheIdentityOfTheStringJavaDecodes() {
        Random random = new Random(11);
        List<byte[]> samples = new java.util.ArrayList<>();
        // Well-formed text of every UTF-8 length, and the edges Java's decoder rejects: overlong
        // forms, encoded surrogates, code points past U+10FFFF, truncated and stray bytes.
        for (String text : List.of("", "a", "müller", "键", "😀x", "\uFFFD", "a\u0000b")) {
            samples.add(text.getBytes(StandardCharsets.UTF_8));
        }
        int[][] edges = {
            {0xC0, 0x80},
            {0xC1, 0xBF},
            {0xE0, 0x80, 0x80},
            {0xE0, 0x9F, 0xBF},
            {0xED, 0xA0, 0x80},
            {0xED, 0x9F, 0xBF},
            {0xF0, 0x8F, 0xBF, 0xBF},
            {0xF4, 0x90, 0x80, 0x80},
            {0xF4, 0x8F, 0xBF, 0xBF},
            {0xF5, 0x80, 0x80, 0x80},
            {0xE2, 0x82},
            {0x80},
            {0xFF},
            {0x61, 0xF0, 0x9F, 0x98},
            {0xC3, 0x61}
        };
        for (int[] edge : edges) {
            byte[] bytes = new byte[edge.length];
            for (int i = 0; i < edge.length; i++) {
                bytes[i] = (byte) edge[i];
            }
            samples.add(bytes);
        }
        for (int n = 0; n < 20_000; n++) {
            byte[] bytes = new byte[random.nextInt(12)];
            if (n % 2 == 0) {
                random.nextBytes(bytes);
            } else {
                // Mostly well-formed: random code points, now and then a damaged byte.
                StringBuilder text = new StringBuilder();
                for (int i = 0; i < bytes.length; i++) {
                    int codePoint = random.nextInt(0x110000);
                    if (codePoint < 0xD800 || codePoint > 0xDFFF) {
                        text.appendCodePoint(codePoint);
                    }
                }
                bytes = text.toString().getBytes(StandardCharsets.UTF_8);
                if (bytes.length > 0 && random.nextInt(4) == 0) {
                    bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
                }
            }
            samples.add(bytes);
        }
        KeyIdentity.Hasher hasher = new KeyIdentity.Hasher();
        for (byte[] bytes : samples) {
            String decoded = new String(bytes, StandardCharsets.UTF_8);
            // In a wider buffer, to show only position..limit counts.
            ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 4);
            buffer.put((byte) 'x').put(bytes).put((byte) 'y').flip().position(1);
            buffer.limit(1 + bytes.length);
            hasher.start();
            hasher.utf8(buffer);
            hasher.integer(7);
            hasher.finish();
            assertThat(new KeyIdentity(hasher.high(), hasher.low()))
                    .as("bytes %s", java.util.Arrays.toString(bytes))
                    .isEqualTo(KeyIdentity.of(RowKey.ofValues(decoded, 7L), false));
            assertThat(buffer.position()).isEqualTo(1);
        }
    }

    @Test
    void aDecimalHashedFromItsStoredUnscaledValueHasTheIdentityOfTheDecimal() {
        Random random = new Random(5);
        KeyIdentity.Hasher hasher = new KeyIdentity.Hasher();
        for (int n = 0; n < 20_000; n++) {
            long unscaled =
                    switch (n % 4) {
                        case 0 -> random.nextLong();
                        case 1 -> random.nextInt(1 << 16) - (1 << 15);
                        case 2 -> n % 8 == 2 ? Long.MIN_VALUE + n : Long.MAX_VALUE - n;
                        default -> (random.nextBoolean() ? -1L : 1L) << random.nextInt(64);
                    };
            int scale = random.nextInt(19);
            BigDecimal decimal = BigDecimal.valueOf(unscaled, scale);
            KeyIdentity expected = KeyIdentity.of(RowKey.ofValues(decimal), false);

            hasher.start();
            hasher.decimal(scale, unscaled);
            hasher.finish();
            assertThat(new KeyIdentity(hasher.high(), hasher.low()))
                    .as("%s from a long", decimal)
                    .isEqualTo(expected);

            // As a FIXED_LEN_BYTE_ARRAY of 16 bytes stores it: sign-extended, big-endian.
            byte[] fixed = new byte[16];
            java.util.Arrays.fill(fixed, 0, 8, (byte) (unscaled < 0 ? -1 : 0));
            ByteBuffer.wrap(fixed, 8, 8).putLong(unscaled);
            hasher.start();
            hasher.decimal(scale, ByteBuffer.wrap(fixed));
            hasher.finish();
            assertThat(new KeyIdentity(hasher.high(), hasher.low()))
                    .as("%s from 16 bytes", decimal)
                    .isEqualTo(expected);
        }
    }

    @Test
    void valuesHashedOneByOneHaveTheIdentityOfTheirKey() {
        KeyIdentity.Hasher hasher = new KeyIdentity.Hasher();
        hasher.start();
        hasher.bool(true);
        hasher.floating(Float.NaN);
        hasher.floating(-0.0d);
        hasher.integer((short) -3);
        hasher.binary(ByteBuffer.wrap(new byte[] {9, 8, 7, 6, 5, 4, 3, 2, 1}));
        hasher.string("é");
        hasher.finish();
        assertThat(new KeyIdentity(hasher.high(), hasher.low()))
                .isEqualTo(
                        KeyIdentity.of(
                                RowKey.ofValues(
                                        true,
                                        Float.NaN,
                                        -0.0d,
                                        (short) -3,
                                        new byte[] {9, 8, 7, 6, 5, 4, 3, 2, 1},
                                        "é"),
                                false));
    }
}
