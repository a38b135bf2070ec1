package io.deltalite.flink.internal.merge;

import java.math.BigDecimal;
import java.util.List;

/**
 * The identity of a primary key in a {@link KeyLocations} table: 128 bits that are equal exactly
 * when the keys are equal. A key of one integral column (tinyint to bigint, date, timestamp) is its
 * value itself, exactly. Any other key is a 128-bit hash (MurmurHash3's x64 128-bit mixing, over a
 * canonical encoding of the key's values): two different keys share it with a probability of about
 * n²/2^129 among n keys — 10^-21 for a billion keys, far below the rate of undetected memory or
 * disk errors. The index's validation mode compares it against the exact probe.
 *
 * <p>The encoding follows {@link RowKey#equals}: floating-point values by their canonical bits (NaN
 * equals NaN, -0.0 is not 0.0), decimals by unscaled value and scale, strings by their UTF-16
 * units, binary values by their bytes.
 */
record KeyIdentity(long high, long low) {
    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

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

    /** MurmurHash3 x64 128 over a stream of 64-bit words. */
    private static final class Hasher {
        private long h1 = 0x9E3779B97F4A7C15L;
        private long h2 = 0xC2B2AE3D27D4EB4FL;
        private long pending;
        private boolean hasPending;
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
            if (!hasPending) {
                pending = word;
                hasPending = true;
                return;
            }
            block(pending, word);
            hasPending = false;
        }

        private void block(long k1, long k2) {
            k1 *= C1;
            k1 = Long.rotateLeft(k1, 31);
            k1 *= C2;
            h1 ^= k1;
            h1 = Long.rotateLeft(h1, 27);
            h1 += h2;
            h1 = h1 * 5 + 0x52dce729;
            k2 *= C2;
            k2 = Long.rotateLeft(k2, 33);
            k2 *= C1;
            h2 ^= k2;
            h2 = Long.rotateLeft(h2, 31);
            h2 += h1;
            h2 = h2 * 5 + 0x38495ab5;
        }

        KeyIdentity finish() {
            if (hasPending) {
                long k1 = pending * C1;
                k1 = Long.rotateLeft(k1, 31);
                k1 *= C2;
                h1 ^= k1;
            }
            h1 ^= words;
            h2 ^= words;
            h1 += h2;
            h2 += h1;
            h1 = mix(h1);
            h2 = mix(h2);
            h1 += h2;
            h2 += h1;
            return new KeyIdentity(h1, h2);
        }

        private static long mix(long k) {
            k ^= k >>> 33;
            k *= 0xff51afd7ed558ccdL;
            k ^= k >>> 33;
            k *= 0xc4ceb9fe1a85ec53L;
            k ^= k >>> 33;
            return k;
        }
    }
}
