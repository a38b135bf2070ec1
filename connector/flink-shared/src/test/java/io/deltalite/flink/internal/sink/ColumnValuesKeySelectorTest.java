package io.deltalite.flink.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.junit.jupiter.api.Test;

/**
 * Records route by the values of their key columns: equal values must give equal keys, whatever
 * object holds them, or two writers would each hold a row of one primary key.
 */
class ColumnValuesKeySelectorTest {
    private static final RowType ROW =
            RowType.of(
                    new org.apache.flink.table.types.logical.LogicalType[] {
                        new VarBinaryType(16), new DecimalType(10, 2), new BigIntType()
                    },
                    new String[] {"hash", "price", "id"});

    @Test
    void equalBinaryKeysOfTwoRecordsGetTheSameKey() {
        ColumnValuesKeySelector keys =
                new ColumnValuesKeySelector(ROW, List.of("hash", "id"), "Primary-key");

        String first = keys.getKey(GenericRowData.of(new byte[] {1, 2, 3}, null, 7L));
        String second = keys.getKey(GenericRowData.of(new byte[] {1, 2, 3}, null, 7L));

        assertThat(first).isEqualTo(second);
        assertThat(keys.getKey(GenericRowData.of(new byte[] {1, 2, 4}, null, 7L)))
                .isNotEqualTo(first);
    }

    @Test
    void decimalsOfAnotherScaleGetTheSameKey() {
        ColumnValuesKeySelector keys =
                new ColumnValuesKeySelector(ROW, List.of("price"), "Partition");

        assertThat(
                        keys.getKey(
                                GenericRowData.of(
                                        null,
                                        DecimalData.fromBigDecimal(new BigDecimal("1.50"), 10, 2),
                                        1L)))
                .isEqualTo(
                        keys.getKey(
                                GenericRowData.of(
                                        null,
                                        DecimalData.fromBigDecimal(new BigDecimal("1.5"), 10, 1),
                                        1L)));
    }
}
