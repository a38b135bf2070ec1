package io.deltalite.flink.internal.merge.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys of every keyable type, and composites of them, are inserted, updated, deleted and inserted
 * again; after each commit the table holds exactly one row per live key.
 *
 * <p>Every row is written to a file of its own, so each key is the minimum and the maximum of its
 * file's statistics: a bound that does not survive the trip through the Delta log would let the
 * next merge skip the file and leave a duplicate behind.
 */
class KeyTypeRoundTripTest {
    private static final MergeOptions ONE_ROW_PER_FILE =
            MergeOptions.DEFAULTS.withTargetFileSizeBytes(1).withMaxParallelFiles(2);

    @TempDir Path dir;

    record KeyCase(String name, List<ValueType> types, List<List<Object>> keys) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<KeyCase> keyCases() {
        return Stream.of(
                single("boolean", Kind.BOOLEAN, true, false),
                single(
                        "tinyint",
                        Kind.TINYINT,
                        Byte.MIN_VALUE,
                        (byte) -1,
                        (byte) 0,
                        Byte.MAX_VALUE),
                single(
                        "smallint",
                        Kind.SMALLINT,
                        Short.MIN_VALUE,
                        (short) -300,
                        (short) 0,
                        (short) 300,
                        Short.MAX_VALUE),
                single("int", Kind.INT, Integer.MIN_VALUE, -1, 0, 1, 1 << 20, Integer.MAX_VALUE),
                single(
                        "bigint",
                        Kind.BIGINT,
                        Long.MIN_VALUE,
                        -1L,
                        0L,
                        1L,
                        1L << 53,
                        (1L << 53) + 1,
                        Long.MAX_VALUE),
                single(
                        "float",
                        Kind.FLOAT,
                        Float.NEGATIVE_INFINITY,
                        -Float.MAX_VALUE,
                        -1.5f,
                        -0.0f,
                        0.0f,
                        Float.MIN_VALUE,
                        0.1f,
                        1.5f,
                        Float.MAX_VALUE,
                        Float.POSITIVE_INFINITY,
                        Float.NaN),
                single(
                        "double",
                        Kind.DOUBLE,
                        Double.NEGATIVE_INFINITY,
                        -Double.MAX_VALUE,
                        -1.5,
                        -0.0,
                        0.0,
                        Double.MIN_VALUE,
                        0.1,
                        1.5,
                        Double.MAX_VALUE,
                        Double.POSITIVE_INFINITY,
                        Double.NaN),
                decimal(
                        38,
                        0,
                        "-99999999999999999999999999999999999999",
                        "-1",
                        "0",
                        "1",
                        "9007199254740993",
                        "12345678901234567890123456789012345678",
                        "99999999999999999999999999999999999999"),
                decimal(
                        38,
                        10,
                        "-9999999999999999999999999999.9999999999",
                        "-1234567890123456789012345678.0123456789",
                        "-0.0000000001",
                        "0.0000000000",
                        "0.0000000001",
                        "1234567890123456789.0123456789",
                        "1234567890123456789012345678.0123456789",
                        "9999999999999999999999999999.9999999999"),
                decimal(
                        38,
                        38,
                        "-0.99999999999999999999999999999999999999",
                        "0.00000000000000000000000000000000000000",
                        "0.12345678901234567890123456789012345678",
                        "0.99999999999999999999999999999999999999"),
                decimal(5, 2, "-999.99", "-1.00", "0.00", "0.01", "999.99"),
                decimal(9, 3, "-999999.999", "0.001", "123456.789", "999999.999"),
                decimal(
                        18,
                        4,
                        "-99999999999999.9999",
                        "0.0001",
                        "1234567890.1234",
                        "99999999999999.9999"),
                single(
                        "string",
                        Kind.STRING,
                        "",
                        " ",
                        "A",
                        "a",
                        "ab",
                        "null",
                        "é",
                        "日本",
                        "\uFFFD",
                        "\uFFFF",
                        "\uD83D\uDE00",
                        "x".repeat(100),
                        "x".repeat(100) + "y",
                        "\uD83D\uDE00".repeat(40)),
                single(
                        "binary",
                        Kind.BINARY,
                        bytes(),
                        bytes(0x00),
                        bytes(0x00, 0x00),
                        bytes(0x41),
                        bytes(0x7F),
                        bytes(0x80),
                        bytes(0xC3, 0xA9),
                        bytes(0xEF, 0xBF, 0xBD),
                        bytes(0xFE),
                        bytes(0xFF),
                        bytes(0xFF, 0xFF),
                        bytes(0xDE, 0xAD, 0xBE, 0xEF, 0x00, 0x01, 0x80, 0x7F)),
                single("date", Kind.DATE, -719162, -1, 0, 1, 19723, 2932896),
                single(
                        "timestamp",
                        Kind.TIMESTAMP,
                        -62135596800000000L,
                        -1001L,
                        -1L,
                        0L,
                        1L,
                        999L,
                        1000L,
                        1001L,
                        1_700_000_000_123_456L,
                        1_700_000_000_123_457L,
                        253402300799999999L),
                single(
                        "timestamp_ntz",
                        Kind.TIMESTAMP_NTZ,
                        -62135596800000000L,
                        -1L,
                        0L,
                        1L,
                        1000L,
                        1001L,
                        1_700_000_000_123_456L,
                        1_700_000_000_123_457L,
                        253402300799999999L),
                composite(
                        "int, string",
                        List.of(ValueType.of(Kind.INT), ValueType.of(Kind.STRING)),
                        List.of(-1, 0, 7),
                        List.of("", "a", "b")),
                composite(
                        "string, string",
                        List.of(ValueType.of(Kind.STRING), ValueType.of(Kind.STRING)),
                        List.of("a", "b", "ü"),
                        List.of("b", "a", "\uD83D\uDE00")),
                composite(
                        "decimal(38,10), binary",
                        List.of(new ValueType.Decimal(38, 10), ValueType.of(Kind.BINARY)),
                        List.of(
                                new BigDecimal("-1234567890123456789012345678.0123456789"),
                                new BigDecimal("1234567890123456789012345678.0123456789")),
                        List.of(bytes(0x80), bytes(0x00, 0xFF))),
                composite(
                        "timestamp, double",
                        List.of(ValueType.of(Kind.TIMESTAMP), ValueType.of(Kind.DOUBLE)),
                        List.of(1000L, 1001L),
                        List.of(-0.0, 0.0, Double.NaN)),
                composite(
                        "date, boolean, bigint",
                        List.of(
                                ValueType.of(Kind.DATE),
                                ValueType.of(Kind.BOOLEAN),
                                ValueType.of(Kind.BIGINT)),
                        List.of(0, 19723),
                        List.of(false, true),
                        List.of(Long.MIN_VALUE, 5L)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keyCases")
    void everyKeyIsUpdatedDeletedAndInsertedAgainAsExactlyOneRow(KeyCase keyCase) {
        TableDefinition table = tableFor(keyCase.types());
        List<List<Object>> keys = keyCase.keys();
        Map<List<Object>, Object[]> model = new LinkedHashMap<>();
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), table, ONE_ROW_PER_FILE)) {
            for (List<Object> key : keys) {
                upsert(harness, model, key, "inserted");
            }
            CommitOutcome inserted = harness.commit();
            assertThat(inserted.stats().rowsInserted()).isEqualTo(keys.size());
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(model.values()));

            int deletes = 0;
            for (int i = 0; i < keys.size(); i++) {
                if (i % 3 == 1) {
                    delete(harness, model, keys.get(i));
                    deletes++;
                } else {
                    upsert(harness, model, keys.get(i), "updated");
                }
            }
            CommitOutcome updated = harness.commit();
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(model.values()));
            assertThat(updated.stats().rowsDeleted()).isEqualTo(deletes);
            assertThat(updated.stats().rowsUpdated()).isEqualTo(keys.size() - deletes);
            assertThat(updated.stats().rowsInserted()).isZero();

            for (List<Object> key : keys) {
                upsert(harness, model, key, "final");
            }
            CommitOutcome upserted = harness.commit();
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(model.values()));
            assertThat(upserted.stats().rowsInserted()).isEqualTo(deletes);
            assertThat(upserted.stats().rowsUpdated()).isEqualTo(keys.size() - deletes);
        }
    }

    @Test
    void negativeZeroAndZeroAreDifferentKeysAndNaNEqualsNaN() {
        TableDefinition table = tableFor(List.of(ValueType.of(Kind.DOUBLE)));
        // A NaN with another bit pattern is the same key as Double.NaN.
        double otherNaN = Double.longBitsToDouble(0x7ff8000000000001L);
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), table, MergeOptions.DEFAULTS)) {
            harness.upsert(-0.0, "negative zero");
            harness.upsert(0.0, "zero");
            harness.upsert(Double.NaN, "nan");
            harness.commit();

            harness.upsert(0.0, "zero again");
            harness.upsert(otherNaN, "nan again");
            CommitOutcome second = harness.commit();
            assertThat(second.stats().rowsUpdated()).isEqualTo(2);
            assertThat(second.stats().rowsInserted()).isZero();

            harness.delete(-0.0, null);
            CommitOutcome third = harness.commit();
            assertThat(third.stats().rowsDeleted()).isEqualTo(1);

            List<Object[]> rows = harness.read();
            assertThat(rows).hasSize(2);
            assertThat(Rows.sorted(rows))
                    .isEqualTo(
                            Rows.sorted(
                                    List.of(
                                            new Object[] {0.0, "zero again"},
                                            new Object[] {Double.NaN, "nan again"})));
        }
    }

    private static void upsert(
            UpsertHarness harness, Map<List<Object>, Object[]> model, List<Object> key, String v) {
        Object[] row = row(key, v);
        harness.upsert(row);
        model.put(Rows.canonical(row).subList(0, key.size()), row);
    }

    private static void delete(
            UpsertHarness harness, Map<List<Object>, Object[]> model, List<Object> key) {
        Object[] row = row(key, null);
        harness.delete(row);
        model.remove(Rows.canonical(row).subList(0, key.size()));
    }

    private static Object[] row(List<Object> key, String value) {
        Object[] row = Arrays.copyOf(key.toArray(), key.size() + 1);
        row[key.size()] = value;
        return row;
    }

    static TableDefinition tableFor(List<ValueType> keyTypes) {
        List<ValueType.Field> columns = new ArrayList<>();
        List<String> primaryKey = new ArrayList<>();
        for (int i = 0; i < keyTypes.size(); i++) {
            columns.add(new ValueType.Field("k" + i, keyTypes.get(i), false));
            primaryKey.add("k" + i);
        }
        columns.add(new ValueType.Field("v", ValueType.of(Kind.STRING), true));
        return new TableDefinition(columns, primaryKey, List.of(), Map.of());
    }

    private static KeyCase single(String name, Kind kind, Object... values) {
        List<List<Object>> keys = new ArrayList<>();
        for (Object value : values) {
            keys.add(List.of(value));
        }
        return new KeyCase(name, List.of(ValueType.of(kind)), keys);
    }

    private static KeyCase decimal(int precision, int scale, String... values) {
        List<List<Object>> keys = new ArrayList<>();
        for (String value : values) {
            BigDecimal number = new BigDecimal(value);
            assertThat(number.scale()).isEqualTo(scale);
            keys.add(List.of(number));
        }
        return new KeyCase(
                "decimal(" + precision + "," + scale + ")",
                List.of(new ValueType.Decimal(precision, scale)),
                keys);
    }

    @SafeVarargs
    private static KeyCase composite(
            String name, List<ValueType> types, List<? extends Object>... components) {
        List<List<Object>> keys = new ArrayList<>();
        keys.add(List.of());
        for (List<? extends Object> component : components) {
            List<List<Object>> extended = new ArrayList<>();
            for (List<Object> prefix : keys) {
                for (Object value : component) {
                    List<Object> key = new ArrayList<>(prefix);
                    key.add(value);
                    extended.add(key);
                }
            }
            keys = extended;
        }
        return new KeyCase(name, types, keys);
    }

    private static byte[] bytes(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }
}
