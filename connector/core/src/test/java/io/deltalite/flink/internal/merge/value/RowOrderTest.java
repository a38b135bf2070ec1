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
