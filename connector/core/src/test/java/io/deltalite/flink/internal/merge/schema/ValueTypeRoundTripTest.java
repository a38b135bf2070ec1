package io.deltalite.flink.internal.merge.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.ValueType.Field;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Value columns of every Delta primitive type and of nested structs, arrays and maps (with nulls at
 * every level) round-trip: when they are written from the change buffer, and when unchanged rows
 * are copied from a rewritten file into a new one.
 */
class ValueTypeRoundTripTest {
    private static final ValueType.Struct POINT =
            new ValueType.Struct(
                    List.of(
                            new Field("x", ValueType.of(Kind.DOUBLE), true),
                            new Field(
                                    "ys",
                                    new ValueType.Array(ValueType.of(Kind.INT), true),
                                    true)));

    private static final ValueType.Struct ENTRY =
            new ValueType.Struct(
                    List.of(
                            new Field("k", ValueType.of(Kind.STRING), true),
                            new Field("v", ValueType.of(Kind.BIGINT), true)));

    static final List<Field> COLUMNS =
            List.of(
                    new Field("id", ValueType.of(Kind.INT), false),
                    new Field("c_boolean", ValueType.of(Kind.BOOLEAN), true),
                    new Field("c_tinyint", ValueType.of(Kind.TINYINT), true),
                    new Field("c_smallint", ValueType.of(Kind.SMALLINT), true),
                    new Field("c_int", ValueType.of(Kind.INT), true),
                    new Field("c_bigint", ValueType.of(Kind.BIGINT), true),
                    new Field("c_float", ValueType.of(Kind.FLOAT), true),
                    new Field("c_double", ValueType.of(Kind.DOUBLE), true),
                    new Field("c_decimal_9_2", new ValueType.Decimal(9, 2), true),
                    new Field("c_decimal_18_4", new ValueType.Decimal(18, 4), true),
                    new Field("c_decimal_38_10", new ValueType.Decimal(38, 10), true),
                    new Field("c_string", ValueType.of(Kind.STRING), true),
                    new Field("c_binary", ValueType.of(Kind.BINARY), true),
                    new Field("c_date", ValueType.of(Kind.DATE), true),
                    new Field("c_timestamp", ValueType.of(Kind.TIMESTAMP), true),
                    new Field("c_timestamp_ntz", ValueType.of(Kind.TIMESTAMP_NTZ), true),
                    new Field(
                            "c_struct",
                            new ValueType.Struct(
                                    List.of(
                                            new Field("a", ValueType.of(Kind.INT), true),
                                            new Field("b", ValueType.of(Kind.STRING), true),
                                            new Field("inner", POINT, true))),
                            true),
                    new Field(
                            "c_array", new ValueType.Array(ValueType.of(Kind.STRING), true), true),
                    new Field("c_array_of_structs", new ValueType.Array(ENTRY, true), true),
                    new Field(
                            "c_array_of_arrays",
                            new ValueType.Array(
                                    new ValueType.Array(ValueType.of(Kind.BIGINT), true), true),
                            true),
                    new Field(
                            "c_map",
                            new ValueType.Map(
                                    ValueType.of(Kind.STRING), ValueType.of(Kind.INT), true),
                            true),
                    new Field(
                            "c_map_nested",
                            new ValueType.Map(
                                    ValueType.of(Kind.INT),
                                    new ValueType.Array(
                                            new ValueType.Struct(
                                                    List.of(
                                                            new Field(
                                                                    "d",
                                                                    new ValueType.Decimal(10, 3),
                                                                    true))),
                                            true),
                                    true),
                            true));

    private static final TableDefinition TABLE =
            new TableDefinition(COLUMNS, List.of("id"), List.of(), Map.of());

    @TempDir Path dir;

    @Test
    void extremeNullAndNestedNullValuesRoundTrip() {
        Map<Integer, Object[]> model = new TreeMap<>();
        model.put(1, extremes(1, true));
        model.put(2, extremes(2, false));
        model.put(3, allNull(3));
        model.put(4, nestedNulls(4));
        model.put(5, emptyCollections(5));
        try (UpsertHarness harness =
                UpsertHarness.open(dir.toString(), TABLE, MergeOptions.DEFAULTS)) {
            model.values().forEach(row -> harness.upsert(row.clone()));
            harness.commit();
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(model.values()));

            // Rewriting the file copies the other rows through the read path.
            Object[] updated = extremes(1, false);
            harness.upsert(updated.clone());
            model.put(1, updated);
            assertThat(harness.commit().stats().rowsCopied()).isEqualTo(4);
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(model.values()));
        }
    }

    @Test
    void randomValuesRoundTripThroughWritesAndRewrites() {
        Random random = new Random(42);
        Map<Integer, Object[]> model = new TreeMap<>();
        MergeOptions options = MergeOptions.DEFAULTS.withReadBatchSize(7).withMaxParallelFiles(2);
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), TABLE, options)) {
            for (int id = 0; id < 120; id++) {
                Object[] row = randomRow(id, random);
                harness.upsert(row.clone());
                model.put(id, row);
            }
            harness.commit();
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(model.values()));

            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 10; i++) {
                    int id = random.nextInt(130);
                    if (random.nextInt(4) == 0) {
                        harness.delete(allNull(id));
                        model.remove(id);
                    } else {
                        Object[] row = randomRow(id, random);
                        harness.upsert(row.clone());
                        model.put(id, row);
                    }
                }
                assertThat(harness.commit().stats().rowsCopied()).isPositive();
                assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(model.values()));
            }
        }
    }

    /**
     * Compaction and the deletion-vector merge's folds merge small files by key and write the
     * output from the files' own column batches: every value survives that, in both write modes.
     */
    @ParameterizedTest
    @EnumSource(WriteMode.class)
    void valuesSurviveMergingSmallFilesByKey(WriteMode mode) {
        Random random = new Random(7);
        Map<Integer, Object[]> model = new TreeMap<>();
        TableDefinition table =
                new TableDefinition(
                        COLUMNS,
                        List.of("id"),
                        List.of(),
                        Map.of("delta.enableDeletionVectors", "true"));
        MergeOptions options = MergeOptions.DEFAULTS.withReadBatchSize(7).withWriteMode(mode);
        try (UpsertHarness harness = UpsertHarness.open(dir.toString(), table, options)) {
            // Four small files with interleaved keys (file f holds ids = f mod 4), so the merge by
            // key takes its rows from every file in turn; special rows among them.
            for (int file = 0; file < 4; file++) {
                for (int id = file; id < 160; id += 4) {
                    Object[] row =
                            switch (id) {
                                case 1 -> extremes(id, true);
                                case 2 -> extremes(id, false);
                                case 3 -> allNull(id);
                                case 4 -> nestedNulls(id);
                                case 5 -> emptyCollections(id);
                                default -> randomRow(id, random);
                            };
                    harness.upsert(row.clone());
                    model.put(id, row);
                }
                if (mode == WriteMode.DELETION_VECTORS && file > 0) {
                    // Marks a row of the file before: the fold later leaves it out.
                    Object[] row = randomRow(file - 1 + 40, random);
                    harness.upsert(row.clone());
                    model.put(file - 1 + 40, row);
                }
                assertThat(harness.commit().stats().filesCompacted()).isZero();
            }
            Object[] changed = randomRow(mode == WriteMode.DELETION_VECTORS ? 81 : 1_000, random);
            harness.upsert(changed.clone());
            model.put((Integer) changed[0], changed);
            UpsertStats stats = harness.commit().stats();

            if (mode == WriteMode.DELETION_VECTORS) {
                // 160 rows and the three updates, less the three rows marked and the one changed.
                assertThat(stats.rowsCopied()).as("the four files folded into one").isEqualTo(159);
            } else {
                assertThat(stats.filesCompacted()).isEqualTo(4);
            }
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(model.values()));
        }
    }

    private static Object[] extremes(int id, boolean high) {
        return new Object[] {
            id,
            high,
            high ? Byte.MAX_VALUE : Byte.MIN_VALUE,
            high ? Short.MAX_VALUE : Short.MIN_VALUE,
            high ? Integer.MAX_VALUE : Integer.MIN_VALUE,
            high ? Long.MAX_VALUE : Long.MIN_VALUE,
            high ? Float.NaN : -0.0f,
            high ? Double.POSITIVE_INFINITY : -Double.MIN_VALUE,
            new BigDecimal(high ? "9999999.99" : "-9999999.99"),
            new BigDecimal(high ? "99999999999999.9999" : "-99999999999999.9999"),
            new BigDecimal(
                    high
                            ? "9999999999999999999999999999.9999999999"
                            : "-9999999999999999999999999999.9999999999"),
            high ? "\uD83D\uDE00 supplementary" : "",
            high ? new byte[] {(byte) 0xFF, 0x00, (byte) 0x80} : new byte[0],
            high ? 2932896 : -719162,
            high ? 253402300799999999L : -62135596800000000L,
            high ? 253402300799999999L : -62135596800000000L,
            new Object[] {high ? 1 : -1, "b", new Object[] {high ? 1.5 : -0.0, List.of(1, 2)}},
            List.of("one", "two"),
            Collections.singletonList(new Object[] {"k", 1L}),
            List.of(List.of(1L, 2L), List.of(3L)),
            map("a", 1, "b", 2),
            map(7, Collections.singletonList(new Object[] {new BigDecimal("1234567.891")}))
        };
    }

    private static Object[] allNull(int id) {
        Object[] row = new Object[COLUMNS.size()];
        row[0] = id;
        return row;
    }

    private static Object[] nestedNulls(int id) {
        Object[] row = allNull(id);
        row[16] = new Object[] {null, null, new Object[] {null, Arrays.asList(null, 1, null)}};
        row[17] = Arrays.asList(null, "x", null);
        row[18] = Arrays.asList(null, new Object[] {null, null}, new Object[] {"k", null});
        row[19] = Arrays.asList(null, Arrays.asList((Object) null), List.of());
        row[20] = map("null value", null, "value", 1);
        row[21] = map(1, null, 2, Arrays.asList(null, new Object[] {null}), 3, List.<Object>of());
        return row;
    }

    private static Object[] emptyCollections(int id) {
        Object[] row = allNull(id);
        row[16] = new Object[] {0, "", new Object[] {Double.NaN, List.of()}};
        row[17] = List.of();
        row[18] = List.of();
        row[19] = List.of();
        row[20] = new LinkedHashMap<>();
        row[21] = new LinkedHashMap<>();
        return row;
    }

    private static Object[] randomRow(int id, Random random) {
        Object[] row = new Object[COLUMNS.size()];
        row[0] = id;
        for (int i = 1; i < row.length; i++) {
            row[i] = randomValue(COLUMNS.get(i).type(), random, true);
        }
        return row;
    }

    private static Object randomValue(ValueType type, Random random, boolean nullable) {
        if (nullable && random.nextInt(8) == 0) {
            return null;
        }
        if (type instanceof ValueType.Decimal decimal) {
            BigInteger unscaled =
                    new BigInteger(BigInteger.TEN.pow(decimal.precision()).bitLength() + 2, random)
                            .mod(BigInteger.TEN.pow(random.nextInt(decimal.precision()) + 1));
            return new BigDecimal(
                    random.nextBoolean() ? unscaled : unscaled.negate(), decimal.scale());
        }
        if (type instanceof ValueType.Struct struct) {
            Object[] fields = new Object[struct.fields().size()];
            for (int i = 0; i < fields.length; i++) {
                Field field = struct.fields().get(i);
                fields[i] = randomValue(field.type(), random, field.nullable());
            }
            return fields;
        }
        if (type instanceof ValueType.Array array) {
            List<Object> list = new ArrayList<>();
            int size = random.nextInt(4);
            for (int i = 0; i < size; i++) {
                list.add(randomValue(array.elementType(), random, array.containsNull()));
            }
            return list;
        }
        if (type instanceof ValueType.Map map) {
            Map<Object, Object> entries = new LinkedHashMap<>();
            int size = random.nextInt(4);
            for (int i = 0; i < size; i++) {
                entries.put(
                        randomValue(map.keyType(), random, false),
                        randomValue(map.valueType(), random, map.valueContainsNull()));
            }
            return entries;
        }
        return switch (((ValueType.Primitive) type).kind()) {
            case BOOLEAN -> random.nextBoolean();
            case TINYINT -> (byte) random.nextInt();
            case SMALLINT -> (short) random.nextInt();
            case INT -> random.nextInt();
            case BIGINT -> random.nextLong();
            case FLOAT ->
                    random.nextInt(10) == 0
                            ? new float[] {Float.NaN, -0.0f, Float.NEGATIVE_INFINITY}
                                    [random.nextInt(3)]
                            : (random.nextFloat() - 0.5f) * 1e6f;
            case DOUBLE ->
                    random.nextInt(10) == 0
                            ? new double[] {Double.NaN, -0.0, Double.MAX_VALUE}[random.nextInt(3)]
                            : random.nextGaussian() * 1e12;
            case STRING -> randomString(random);
            case BINARY -> {
                byte[] bytes = new byte[random.nextInt(12)];
                random.nextBytes(bytes);
                yield bytes;
            }
            case DATE -> -719162 + random.nextInt(2932896 + 719162);
            case TIMESTAMP, TIMESTAMP_NTZ ->
                    -62135596800000000L
                            + (long)
                                    (random.nextDouble()
                                            * (253402300799999999L + 62135596800000000L));
        };
    }

    private static String randomString(Random random) {
        String[] pieces = {"a", "Z", " ", "é", "日", "\uD83D\uDE00", "\u0000", "\"", "\\", "\n"};
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(10);
        for (int i = 0; i < length; i++) {
            text.append(pieces[random.nextInt(pieces.length)]);
        }
        return text.toString();
    }

    private static Map<Object, Object> map(Object... keysAndValues) {
        Map<Object, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
