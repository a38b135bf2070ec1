package io.deltalite.flink.internal.merge.value;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RowOrderTest {
    private static final TableSchema TABLE =
            new TableSchema(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("region", ValueType.of(Kind.STRING), true),
                            new ValueType.Field("c", ValueType.of(Kind.INT), true)),
                    List.of("id"),
                    List.of());

    /** Clustered by c, then region (the order of CLUSTER BY, not of the columns). */
    private static final RowOrder ORDER = RowOrder.of(TABLE, List.of("C", "region"));

    /**
     * One integral key column, no clustering: sorted as primitive longs. The same order as the
     * keys' numeric order — negative keys, the extremes, ids that differ only in their high or only
     * in their low bytes —, equal keys and rows with a null key in their order.
     */
    @Test
    void rowsOfOneIntegralKeyAreSortedByItsNumericValueStably() {
        Random random = new Random(11);
        for (Kind kind : List.of(Kind.BIGINT, Kind.INT, Kind.TIMESTAMP, Kind.SMALLINT)) {
            TableSchema table =
                    new TableSchema(
                            List.of(
                                    new ValueType.Field("id", ValueType.of(kind), true),
                                    new ValueType.Field("seq", ValueType.of(Kind.INT), true)),
                            List.of("id"),
                            List.of());
            RowOrder order = RowOrder.of(table, List.of());
            for (int size : new int[] {0, 1, 2, 17, 3_000}) {
                List<Object[]> rows = new ArrayList<>();
                for (int i = 0; i < size; i++) {
                    long value =
                            switch (random.nextInt(6)) {
                                case 0 -> random.nextLong();
                                case 1 -> random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
                                case 2 -> random.nextInt(50) - 25; // equal keys, around zero
                                case 3 -> ((long) random.nextInt(4)) << 40; // high bytes only
                                default -> random.nextInt(1 << 20);
                            };
                    Object key =
                            random.nextInt(20) == 0
                                    ? null
                                    : switch (kind) {
                                        case INT -> (int) value;
                                        case SMALLINT -> (short) value;
                                        default -> value;
                                    };
                    rows.add(new Object[] {key, i});
                }
                List<Object[]> expected =
                        rows.stream()
                                .sorted(
                                        Comparator.comparing(
                                                (Object[] row) ->
                                                        row[0] == null
                                                                ? null
                                                                : ((Number) row[0]).longValue(),
                                                Comparator.nullsLast(Comparator.naturalOrder())))
                                .toList();
                assertThat(order.sort(rows, new int[] {0}))
                        .as("%s keys, %d rows", kind, size)
                        .containsExactlyElementsOf(expected);
            }
        }
    }

    @Test
    void rowsOfATableWithoutKeyOrClusteringKeepTheirOrder() {
        TableSchema events =
                new TableSchema(
                        List.of(new ValueType.Field("id", ValueType.of(Kind.BIGINT), true)),
                        List.of(),
                        List.of());
        List<Object[]> rows = List.of(new Object[] {3L}, new Object[] {1L}, new Object[] {2L});
        assertThat(RowOrder.of(events, List.of()).sort(rows, new int[0]))
                .containsExactlyElementsOf(rows);
    }

    @Test
    void rowsOfAClusteredTableAreSortedByClusteringValuesThenKey() {
        List<Object[]> rows = new ArrayList<>();
        Random random = new Random(5);
        for (int i = 0; i < 500; i++) {
            rows.add(
                    new Object[] {
                        random.nextInt(10) == 0 ? null : (long) random.nextInt(300),
                        random.nextInt(4) == 0 ? null : "r" + random.nextInt(3),
                        random.nextInt(5) == 0 ? null : random.nextInt(4)
                    });
        }
        Comparator<Object[]> byClusteringThenKey = ORDER::compareClusteringOfRows;
        byClusteringThenKey =
                byClusteringThenKey.thenComparing(
                        row -> (Long) row[0], Comparator.nullsLast(Comparator.naturalOrder()));
        assertThat(ORDER.sort(rows, new int[] {0}))
                .containsExactlyElementsOf(rows.stream().sorted(byClusteringThenKey).toList());
    }

    @Test
    void rowsCompareWhereTheyAreAsTheirClusteringValuesDo() {
        Random random = new Random(7);
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            rows.add(
                    new Object[] {
                        (long) i,
                        random.nextInt(4) == 0 ? null : "r" + random.nextInt(3),
                        random.nextInt(5) == 0 ? null : random.nextInt(4)
                    });
        }
        for (Object[] left : rows) {
            for (Object[] right : rows) {
                assertThat(Integer.signum(ORDER.compareClusteringOfRows(left, right)))
                        .isEqualTo(
                                Integer.signum(
                                        ORDER.compareClustering(values(left), values(right))));
            }
        }
        rows.sort(ORDER::compareClusteringOfRows);
        Comparator<Object[]> byCThenRegion =
                Comparator.comparing(
                                (Object[] row) -> (Integer) row[2],
                                Comparator.nullsLast(Comparator.naturalOrder()))
                        .thenComparing(
                                row -> (String) row[1],
                                Comparator.nullsLast(Comparator.naturalOrder()));
        assertThat(rows).isSortedAccordingTo(byCThenRegion);
    }

    private static Object[] values(Object[] row) {
        int[] indexes = ORDER.clusteringIndexes();
        Object[] values = new Object[indexes.length];
        for (int i = 0; i < indexes.length; i++) {
            values[i] = row[indexes[i]];
        }
        return values;
    }
}
