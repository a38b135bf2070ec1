package io.deltalite.flink.internal.merge;

import java.math.BigDecimal;
import java.util.List;

/**
 * The identity of a primary key in a {@link KeyLocations} table: 128 bits that are equal exactly
 * when the keys are equal. A key of one integral column (tinyint to bigint, date, timestamp) is its
 * value itself, exactly. Any other key is a keyed 128-bit hash (SipHash-1-3 with a 128-bit output,
 * over a canonical encoding of the key's values) under a key drawn at random once per JVM: the
 * index lives only in memory, so no identity is ever compared across JVMs, and whoever chooses key
 * values — a CDC source's users — cannot aim two keys at one identity without knowing the hash key.
 * (An unkeyed hash such as MurmurHash3 can be: colliding keys can be computed for it whatever its
 * seed, and a merge that marks rows by identity would then delete another key's row.) Two different
 * keys share an identity with a probability of about n²/2^129 among n keys — 10^-21 for a billion
 * keys. The index's validation mode compares it against the exact probe.
 *
 * <p>The encoding follows {@link RowKey#equals}: floating-point values by their canonical bits (NaN
 * equals NaN, -0.0 is not 0.0), decimals by unscaled value and scale, strings by their UTF-16
 * units, binary values by their bytes. Each value starts with a word naming its kind and, for
 * strings, binary values and decimals, its length, so that no two keys encode alike.
 */
record KeyIdentity(long high, long low) {
    /** The hash key of this JVM's identities: random, never written anywhere. */
    private static final long K0;

    private static final long K1;

    static {
        java.security.SecureRandom random = new java.security.SecureRandom();
        K0 = random.nextLong();
        K1 = random.nextLong();
    }

    /** Whether keys of these types are identified by their value alone ({@link #ofIntegral}). */
    static boolean isIntegral(List<ValueType> keyTypes) {
        if (keyTypes.size() != 1 || !(keyTypes.get(0) instanceof ValueType.Primitive primitive)) {
            return false;
        }
        return switch (primitive.kind()) {
            case TINYINT, SMALLINT, INT, BIGINT, DATE, TIMESTAMP, TIMESTAMP_NTZ -> true;
            default -> false;
        };
    }

    /** The identity of a one-column integral key. */
    static KeyIdentity ofIntegral(long value) {
        return new KeyIdentity(value, 0);
    }

    /** The identity of {@code key}; {@code integral} as {@link #isIntegral} says of its types. */
    static KeyIdentity of(RowKey key, boolean integral) {
        if (integral) {
            return ofIntegral(((Number) key.get(0)).longValue());
        }
        Hasher hasher = new Hasher();
        for (int i = 0; i < key.size(); i++) {
            hasher.value(key.get(i));
        }
        return hasher.finish();
    }

    /**
     * SipHash-1-3 with a 128-bit output over a stream of 64-bit words (one compression round per
     * word, three finalization rounds per half of the output), keyed by {@link #K0}, {@link #K1}.
     */
    private static final class Hasher {
        private long v0 = K0 ^ 0x736f6d6570736575L;
        private long v1 = K1 ^ 0x646f72616e646f6dL ^ 0xee;
        private long v2 = K0 ^ 0x6c7967656e657261L;
        private long v3 = K1 ^ 0x7465646279746573L;
        private long words;

        void value(Object value) {
            if (value instanceof Long number) {
                word(1);
                word(number);
            } else if (value instanceof Integer number) {
                word(1);
                word(number);
            } else if (value instanceof Short number) {
                word(1);
                word(number);
            } else if (value instanceof Byte number) {
                word(1);
                word(number);
            } else if (value instanceof String text) {
                word(2);
                word(text.length());
                long packed = 0;
                int inWord = 0;
                for (int i = 0; i < text.length(); i++) {
                    packed = (packed << 16) | text.charAt(i);
                    if (++inWord == 4) {
                        word(packed);
                        packed = 0;
                        inWord = 0;
                    }
                }
                if (inWord > 0) {
                    word(packed);
                }
            } else if (value instanceof byte[] bytes) {
                word(3);
                bytes(bytes);
            } else if (value instanceof Double number) {
                word(4);
                word(Double.doubleToLongBits(number));
            } else if (value instanceof Float number) {
                word(5);
                word(Float.floatToIntBits(number));
            } else if (value instanceof Boolean flag) {
                word(6);
                word(flag ? 1 : 0);
            } else if (value instanceof BigDecimal decimal) {
                word(7);
                word(decimal.scale());
                bytes(decimal.unscaledValue().toByteArray());
            } else {
                throw new IllegalArgumentException(
                        "no key identity for a value of " + value.getClass().getName());
            }
        }

        private void bytes(byte[] bytes) {
            word(bytes.length);
            long packed = 0;
            int inWord = 0;
            for (byte b : bytes) {
                packed = (packed << 8) | (b & 0xff);
                if (++inWord == 8) {
                    word(packed);
                    packed = 0;
                    inWord = 0;
                }
            }
            if (inWord > 0) {
                word(packed);
            }
        }

        private void word(long word) {
            words++;
            v3 ^= word;
            round();
            v0 ^= word;
        }

        KeyIdentity finish() {
            // The word count closes the stream, as SipHash closes it with the message length.
            word(words);
            v2 ^= 0xee;
            round();
            round();
            round();
            long high = v0 ^ v1 ^ v2 ^ v3;
            v1 ^= 0xdd;
            round();
            round();
            round();
            long low = v0 ^ v1 ^ v2 ^ v3;
            return new KeyIdentity(high, low);
        }

        private void round() {
            v0 += v1;
            v1 = Long.rotateLeft(v1, 13);
            v1 ^= v0;
            v0 = Long.rotateLeft(v0, 32);
            v2 += v3;
            v3 = Long.rotateLeft(v3, 16);
            v3 ^= v2;
            v0 += v3;
            v3 = Long.rotateLeft(v3, 21);
            v3 ^= v0;
            v2 += v1;
            v1 = Long.rotateLeft(v1, 17);
            v1 ^= v2;
            v2 = Long.rotateLeft(v2, 32);
        }
    }
}
