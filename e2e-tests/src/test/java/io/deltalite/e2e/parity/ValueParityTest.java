package io.deltalite.e2e.parity;

import static io.deltalite.e2e.parity.Change.delete;
import static io.deltalite.e2e.parity.Change.upsert;
import static io.deltalite.e2e.parity.ParityTables.BIGINT;
import static io.deltalite.e2e.parity.ParityTables.INT;
import static io.deltalite.e2e.parity.ParityTables.STRING;
import static io.deltalite.e2e.parity.ParityTables.column;
import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Values survive both writers alike: 38-digit decimals (as key, partition and value columns) and
 * nested structs, arrays and maps, with nulls and empty collections at every level.
 */
class ValueParityTest {
    private static final ValueType.Decimal KEY_DECIMAL = new ValueType.Decimal(38, 0);
    private static final ValueType.Decimal BUCKET_DECIMAL = new ValueType.Decimal(5, 2);
    private static final ValueType.Decimal AMOUNT_DECIMAL = new ValueType.Decimal(38, 10);
    private static final ValueType.Decimal RATIO_DECIMAL = new ValueType.Decimal(38, 38);

    /** Key {@code id DECIMAL(38,0)}, partition {@code bucket DECIMAL(5,2)}. */
    private static final TableDefinition DECIMALS =
            ParityTables.table(
                    List.of(
                            column("id", KEY_DECIMAL),
                            column("bucket", BUCKET_DECIMAL),
                            column("amount", AMOUNT_DECIMAL),
                            column("ratio", RATIO_DECIMAL)),
                    List.of("id"),
                    List.of("bucket"));

    private static final ValueType.Struct INFO =
            new ValueType.Struct(
                    List.of(
                            column("name", STRING),
                            column("score", INT),
                            column("tags", new ValueType.Array(STRING, true))));
    private static final ValueType.Struct ITEM =
            new ValueType.Struct(List.of(column("sku", STRING), column("qty", INT)));

    /** Key {@code id}, partition {@code day}, and a column of each nested shape. */
    private static final TableDefinition NESTED =
            ParityTables.table(
                    List.of(
                            column("id", BIGINT),
                            column("day", STRING),
                            column("info", INFO),
                            column("items", new ValueType.Array(ITEM, true)),
                            column("attrs", new ValueType.Map(STRING, BIGINT, true)),
                            column(
                                    "matrix",
                                    new ValueType.Array(new ValueType.Array(INT, true), true)),
                            column(
                                    "nested",
                                    new ValueType.Map(
                                            STRING, new ValueType.Array(ITEM, true), true))),
                    List.of("id"),
                    List.of("day"));

    private static final BigDecimal LARGEST_KEY = new BigDecimal("9".repeat(38));

    @TempDir Path dir;

    @Test
    @GeneratedScenario("wide decimals")
    void wideDecimalsMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        DECIMALS.toSchema(),
                        41,
                        ChangeGenerator.Mix.DEFAULT,
                        random -> {
                            // 40 keys, each of them 38 digits wide.
                            BigDecimal id =
                                    LARGEST_KEY.subtract(BigDecimal.valueOf(random.nextInt(40)));
                            return new Object[] {
                                random.nextBoolean() ? id : id.negate(),
                                random.nextInt(4) == 0
                                        ? null
                                        : new BigDecimal(random.nextInt(3) - 1).movePointLeft(2),
                                decimal(random, AMOUNT_DECIMAL),
                                decimal(random, RATIO_DECIMAL)
                            };
                        });
        try (DifferentialRun run = DifferentialRun.start("wide decimals, seed 41", dir, DECIMALS)) {
            run.applyAll(generator.batches(4, 40));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("wide decimals")
    void wideDecimalsMatchMergeOnHandWrittenBatches() {
        BigDecimal smallestRatio = BigDecimal.ONE.movePointLeft(38);
        BigDecimal largestRatio = BigDecimal.ONE.subtract(smallestRatio);
        BigDecimal largestAmount = new BigDecimal("9".repeat(28) + "." + "9".repeat(10));
        BigDecimal bucket = new BigDecimal("999.99");
        try (DifferentialRun run = DifferentialRun.start("wide decimals", dir, DECIMALS)) {
            run.apply(
                    List.of(
                            upsert(LARGEST_KEY, bucket, largestAmount, largestRatio),
                            upsert(
                                    LARGEST_KEY.negate(),
                                    bucket,
                                    largestAmount.negate(),
                                    smallestRatio),
                            // Keys that differ only in their last digit.
                            upsert(
                                    LARGEST_KEY.subtract(BigDecimal.ONE),
                                    bucket,
                                    zero(10),
                                    zero(38)),
                            upsert(
                                    BigDecimal.ZERO,
                                    bucket.negate(),
                                    zero(10),
                                    largestRatio.negate()),
                            upsert(BigDecimal.ONE, null, null, null)));
            run.apply(
                    List.of(
                            upsert(LARGEST_KEY, bucket, largestAmount.negate(), smallestRatio),
                            delete(LARGEST_KEY.subtract(BigDecimal.ONE), bucket, null, null),
                            delete(LARGEST_KEY.negate(), bucket.negate(), null, null),
                            upsert(BigDecimal.ONE, null, largestAmount, smallestRatio.negate())));
        }
    }

    @Test
    @GeneratedScenario("nested values")
    void nestedValuesMatchMergeOnGeneratedBatches() {
        ChangeGenerator generator =
                new ChangeGenerator(
                        NESTED.toSchema(),
                        42,
                        ChangeGenerator.Mix.DEFAULT,
                        random ->
                                new Object[] {
                                    (long) random.nextInt(40),
                                    "d" + random.nextInt(2),
                                    info(random),
                                    orNull(random, () -> list(random, () -> item(random))),
                                    orNull(random, () -> attrs(random)),
                                    orNull(random, () -> matrix(random)),
                                    orNull(random, () -> nestedMap(random))
                                });
        try (DifferentialRun run = DifferentialRun.start("nested values, seed 42", dir, NESTED)) {
            run.applyAll(generator.batches(4, 40));
            assertThat(run.vectorsWritten()).as("deletion vectors written").isPositive();
        }
    }

    @Test
    @HandWrittenScenario("nested values")
    void nestedValuesMatchMergeOnHandWrittenBatches() {
        Object[] info = {"ann", 7, List.of("x", "y")};
        Object[] structOfNulls = {null, null, null};
        List<Object> items = List.of(new Object[] {"sku-1", 2}, new Object[] {"sku-2", null});
        Map<String, Long> attrs = new LinkedHashMap<>();
        attrs.put("b", 2L);
        attrs.put("a", null);
        Map<String, List<Object>> nested = new LinkedHashMap<>();
        nested.put("empty", List.of());
        nested.put("one", List.of((Object) new Object[] {"s", 1}));
        nested.put("null", null);
        try (DifferentialRun run = DifferentialRun.start("nested values", dir, NESTED)) {
            run.apply(
                    List.of(
                            upsert(1L, "d1", info, items, attrs, List.of(List.of(1, 2)), nested),
                            // A struct of nulls is not a null struct; an empty list is not null.
                            upsert(
                                    2L,
                                    "d1",
                                    structOfNulls,
                                    List.of(),
                                    Map.of(),
                                    List.of(),
                                    Map.of()),
                            upsert(3L, "d1", null, null, null, null, null),
                            upsert(
                                    4L,
                                    "d2",
                                    new Object[] {"bob", null, Arrays.asList("z", null)},
                                    Arrays.asList(new Object[] {"sku-3", 1}, null),
                                    attrs,
                                    Arrays.asList(null, List.of(), Arrays.asList(3, null)),
                                    nested)));
            run.apply(
                    List.of(
                            // Only a nested value changes.
                            upsert(
                                    1L,
                                    "d1",
                                    new Object[] {"ann", 7, List.of("x", "y", "z")},
                                    items,
                                    attrs,
                                    List.of(List.of(1, 2)),
                                    nested),
                            upsert(2L, "d1", null, null, null, null, null),
                            upsert(
                                    3L,
                                    "d1",
                                    structOfNulls,
                                    List.of(),
                                    Map.of(),
                                    List.of(),
                                    Map.of()),
                            delete(4L, "d2", null, null, null, null, null)));
        }
    }

    private static BigDecimal decimal(Random random, ValueType.Decimal type) {
        if (random.nextInt(6) == 0) {
            return null;
        }
        int digits = 1 + random.nextInt(type.precision());
        BigInteger unscaled = new BigInteger(digits * 4, random).mod(BigInteger.TEN.pow(digits));
        return new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), type.scale());
    }

    private static BigDecimal zero(int scale) {
        return BigDecimal.ZERO.setScale(scale);
    }

    private static Object[] info(Random random) {
        if (random.nextInt(5) == 0) {
            return null;
        }
        return new Object[] {
            orNull(random, () -> "name" + random.nextInt(100)),
            orNull(random, () -> random.nextInt(100)),
            orNull(random, () -> list(random, () -> orNull(random, () -> "t" + random.nextInt(9))))
        };
    }

    private static Object[] item(Random random) {
        return random.nextInt(8) == 0
                ? null
                : new Object[] {
                    "sku-" + random.nextInt(50), orNull(random, () -> random.nextInt(9))
                };
    }

    private static Map<Object, Object> attrs(Random random) {
        Map<Object, Object> map = new LinkedHashMap<>();
        int entries = random.nextInt(4);
        for (int i = 0; i < entries; i++) {
            map.put("k" + random.nextInt(10), orNull(random, () -> random.nextLong()));
        }
        return map;
    }

    private static List<Object> matrix(Random random) {
        return list(
                random,
                () ->
                        orNull(
                                random,
                                () -> list(random, () -> orNull(random, () -> random.nextInt(9)))));
    }

    private static Map<Object, Object> nestedMap(Random random) {
        Map<Object, Object> map = new LinkedHashMap<>();
        int entries = random.nextInt(3);
        for (int i = 0; i < entries; i++) {
            map.put(
                    "k" + random.nextInt(10),
                    orNull(random, () -> list(random, () -> item(random))));
        }
        return map;
    }

    private static List<Object> list(Random random, java.util.function.Supplier<Object> element) {
        int size = random.nextInt(4);
        List<Object> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(element.get());
        }
        return list;
    }

    private static Object orNull(Random random, java.util.function.Supplier<Object> value) {
        return random.nextInt(5) == 0 ? null : value.get();
    }
}
