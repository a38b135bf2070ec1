package io.deltalite.flink.internal.merge.value;

import io.deltalite.flink.internal.merge.schema.ValueType;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The identity of a primary key in a {@link io.deltalite.flink.internal.merge.index.KeyLocations}
 * table: 128 bits that are equal exactly when the keys are equal. A key of one integral column
 * (tinyint to bigint, date, timestamp) is its value itself, exactly. Any other key is a keyed
 * 128-bit hash (SipHash-1-3 with a 128-bit output, over a canonical encoding of the key's values)
 * under a key drawn at random once per JVM: the index lives only in memory, so no identity is ever
 * compared across JVMs, and whoever chooses key values — a CDC source's users — cannot aim two keys
 * at one identity without knowing the hash key. (An unkeyed hash such as MurmurHash3 can be:
 * colliding keys can be computed for it whatever its seed, and a merge that marks rows by identity
 * would then delete another key's row.) Two different keys share an identity with a probability of
 * about n²/2^129 among n keys — 10^-21 for a billion keys. The index's validation mode compares it
 * against the exact probe.
 *
 * <p>The encoding follows {@link RowKey#equals}: floating-point values by their canonical bits (NaN
 * equals NaN, -0.0 is not 0.0), decimals by unscaled value and scale, strings by their UTF-16
 * units, binary values by their bytes. {@link Hasher} computes it value by value without a {@link
 * RowKey}, for readers that decode a file's key columns themselves (the column reader of {@code
 * internal.parquet}); both ways give the same identity for the same key.
 */
public record KeyIdentity(long high, long low) {
    /** The hash key of this JVM's identities: random, never written anywhere. */
    private static final long K0;

    private static final long K1;

    static {
        java.security.SecureRandom random = new java.security.SecureRandom();
        K0 = random.nextLong();
        K1 = random.nextLong();
    }

    /** Whether keys of these types are identified by their value alone ({@link #ofIntegral}). */
    public static boolean isIntegral(List<ValueType> keyTypes) {
        if (keyTypes.size() != 1 || !(keyTypes.get(0) instanceof ValueType.Primitive primitive)) {
            return false;
        }
        return switch (primitive.kind()) {
            case TINYINT, SMALLINT, INT, BIGINT, DATE, TIMESTAMP, TIMESTAMP_NTZ -> true;
            default -> false;
        };
    }

    /** The identity of a one-column integral key. */
    public static KeyIdentity ofIntegral(long value) {
        return new KeyIdentity(value, 0);
    }

    /** The identity of {@code key}; {@code integral} as {@link #isIntegral} says of its types. */
    public static KeyIdentity of(RowKey key, boolean integral) {
        if (integral) {
            return ofIntegral(((Number) key.get(0)).longValue());
        }
        Hasher hasher = new Hasher();
        for (int i = 0; i < key.size(); i++) {
            hasher.value(key.get(i));
        }
        hasher.finish();
        return new KeyIdentity(hasher.high(), hasher.low());
    }

    /**
     * The identity of a key that is not {@linkplain #isIntegral integral}, fed one key value at a
     * time in key order, each value in the form its column's type holds it: {@link #start}, a call
     * per value, {@link #finish}, then {@link #high} and {@link #low}. Reusable, not thread-safe.
     */
    public static final class Hasher {
        // SipHash-1-3 with a 128-bit output over a stream of 64-bit words: one compression round
        // per word, three finalization rounds per half of the output, keyed by K0 and K1.
        private long v0;
        private long v1;
        private long v2;
        private long v3;
        private long high;
        private long low;
        private long words;

        public Hasher() {
            start();
        }

        /** Begins a new key. */
        public void start() {
            v0 = K0 ^ 0x736f6d6570736575L;
            v1 = K1 ^ 0x646f72616e646f6dL ^ 0xee;
            v2 = K0 ^ 0x6c7967656e657261L;
            v3 = K1 ^ 0x7465646279746573L;
            words = 0;
        }

        /** A value of any integral type (tinyint to bigint, date, timestamp). */
        public void integer(long value) {
            word(1);
            word(value);
        }

        public void floating(float value) {
            word(5);
            word(Float.floatToIntBits(value));
        }

        public void floating(double value) {
            word(4);
            word(Double.doubleToLongBits(value));
        }

        public void bool(boolean value) {
            word(6);
            word(value ? 1 : 0);
        }

        public void string(String text) {
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
        }

        /**
         * A string stored as the bytes from {@code utf8}'s position to its limit, as Java's UTF-8
         * decoder reads them ({@code new String(bytes, UTF_8)}: malformed input becomes U+FFFD).
         * Well-formed input is decoded here without building the string. The buffer's position is
         * not moved.
         */
        public void utf8(ByteBuffer utf8) {
            int units = Utf8.utf16Length(utf8);
            if (units < 0) {
                byte[] bytes = new byte[utf8.remaining()];
                utf8.duplicate().get(bytes);
                string(new String(bytes, StandardCharsets.UTF_8));
                return;
            }
            word(2);
            word(units);
            long packed = 0;
            int inWord = 0;
            int end = utf8.limit();
            int i = utf8.position();
            while (i < end) {
                int b = utf8.get(i) & 0xff;
                int codePoint;
                if (b < 0x80) {
                    codePoint = b;
                    i += 1;
                } else if (b < 0xE0) {
                    codePoint = ((b & 0x1F) << 6) | (utf8.get(i + 1) & 0x3F);
                    i += 2;
                } else if (b < 0xF0) {
                    codePoint =
                            ((b & 0x0F) << 12)
                                    | ((utf8.get(i + 1) & 0x3F) << 6)
                                    | (utf8.get(i + 2) & 0x3F);
                    i += 3;
                } else {
                    codePoint =
                            ((b & 0x07) << 18)
                                    | ((utf8.get(i + 1) & 0x3F) << 12)
                                    | ((utf8.get(i + 2) & 0x3F) << 6)
                                    | (utf8.get(i + 3) & 0x3F);
                    i += 4;
                }
                if (codePoint >= 0x10000) {
                    packed = (packed << 16) | Character.highSurrogate(codePoint);
                    if (++inWord == 4) {
                        word(packed);
                        packed = 0;
                        inWord = 0;
                    }
                    codePoint = Character.lowSurrogate(codePoint);
                }
                packed = (packed << 16) | codePoint;
                if (++inWord == 4) {
                    word(packed);
                    packed = 0;
                    inWord = 0;
                }
            }
            if (inWord > 0) {
                word(packed);
            }
        }

        /** A binary value: the bytes from the buffer's position to its limit (not moved). */
        public void binary(ByteBuffer bytes) {
            word(3);
            bytes(bytes, bytes.position(), bytes.limit());
        }

        public void decimal(BigDecimal decimal) {
            word(7);
            word(decimal.scale());
            byte[] unscaled = decimal.unscaledValue().toByteArray();
            bytes(ByteBuffer.wrap(unscaled), 0, unscaled.length);
        }

        /** A decimal of {@code scale} whose unscaled value is {@code unscaled}. */
        public void decimal(int scale, long unscaled) {
            word(7);
            word(scale);
            // As BigInteger.toByteArray: the fewest big-endian two's-complement bytes.
            int bitLength = 64 - Long.numberOfLeadingZeros(unscaled < 0 ? ~unscaled : unscaled);
            int length = bitLength / 8 + 1;
            word(length);
            long packed = 0;
            int inWord = 0;
            for (int i = length - 1; i >= 0; i--) {
                packed = (packed << 8) | ((unscaled >>> (8 * i)) & 0xff);
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

        /**
         * A decimal of {@code scale} whose unscaled value is the big-endian two's complement from
         * the buffer's position to its limit (not moved), sign-extended to any length.
         */
        public void decimal(int scale, ByteBuffer unscaled) {
            word(7);
            word(scale);
            int start = unscaled.position();
            int end = unscaled.limit();
            // As BigInteger.toByteArray: without the bytes that only repeat the sign.
            while (end - start > 1) {
                byte first = unscaled.get(start);
                byte next = unscaled.get(start + 1);
                if ((first == 0 && next >= 0) || (first == -1 && next < 0)) {
                    start++;
                } else {
                    break;
                }
            }
            bytes(unscaled, start, end);
        }

        /** Ends the key: {@link #high} and {@link #low} are its identity. */
        public void finish() {
            // The word count closes the stream, as SipHash closes it with the message length.
            word(words);
            v2 ^= 0xee;
            round();
            round();
            round();
            high = v0 ^ v1 ^ v2 ^ v3;
            v1 ^= 0xdd;
            round();
            round();
            round();
            low = v0 ^ v1 ^ v2 ^ v3;
        }

        public long high() {
            return high;
        }

        public long low() {
            return low;
        }

        void value(Object value) {
            if (value instanceof Long number) {
                integer(number);
            } else if (value instanceof Integer number) {
                integer(number);
            } else if (value instanceof Short number) {
                integer(number);
            } else if (value instanceof Byte number) {
                integer(number);
            } else if (value instanceof String text) {
                string(text);
            } else if (value instanceof byte[] bytes) {
                binary(ByteBuffer.wrap(bytes));
            } else if (value instanceof Double number) {
                floating((double) number);
            } else if (value instanceof Float number) {
                floating((float) number);
            } else if (value instanceof Boolean flag) {
                bool(flag);
            } else if (value instanceof BigDecimal decimal) {
                decimal(decimal);
            } else {
                throw new IllegalArgumentException(
                        "no key identity for a value of " + value.getClass().getName());
            }
        }

        private void bytes(ByteBuffer buffer, int start, int end) {
            word(end - start);
            long packed = 0;
            int inWord = 0;
            for (int i = start; i < end; i++) {
                packed = (packed << 8) | (buffer.get(i) & 0xff);
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

    /** Well-formed UTF-8, as Java's decoder judges it. */
    private static final class Utf8 {
        private Utf8() {}

        /**
         * The UTF-16 length of the string the bytes from the buffer's position to its limit decode
         * to, or -1 when they are not well-formed UTF-8 (overlong forms, surrogates, code points
         * past U+10FFFF, truncated or stray continuation bytes).
         */
        static int utf16Length(ByteBuffer bytes) {
            int end = bytes.limit();
            int units = 0;
            int i = bytes.position();
            while (i < end) {
                int b = bytes.get(i) & 0xff;
                if (b < 0x80) {
                    i++;
                    units++;
                    continue;
                }
                int length;
                int low = 0x80;
                int high = 0xBF;
                if (b >= 0xC2 && b <= 0xDF) {
                    length = 2;
                } else if (b >= 0xE0 && b <= 0xEF) {
                    length = 3;
                    if (b == 0xE0) {
                        low = 0xA0;
                    } else if (b == 0xED) {
                        high = 0x9F;
                    }
                } else if (b >= 0xF0 && b <= 0xF4) {
                    length = 4;
                    if (b == 0xF0) {
                        low = 0x90;
                    } else if (b == 0xF4) {
                        high = 0x8F;
                    }
                } else {
                    return -1;
                }
                if (end - i < length) {
                    return -1;
                }
                int second = bytes.get(i + 1) & 0xff;
                if (second < low || second > high) {
                    return -1;
                }
                for (int k = 2; k < length; k++) {
                    if ((bytes.get(i + k) & 0xC0) != 0x80) {
                        return -1;
                    }
                }
                i += length;
                units += length == 4 ? 2 : 1;
            }
            return units;
        }
    }
}
