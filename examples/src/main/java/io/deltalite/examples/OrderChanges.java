package io.deltalite.examples;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.Map;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

/**
 * The {@link OrderTimeline} as Flink rows: one {@link RowData} per slot, the change kind as its
 * {@link RowKind}; an empty slot is a no-op marker that {@link #isChange(RowData)} filters out.
 */
public final class OrderChanges implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The row type: order_id, day (partition), customer, amount, status, updated_at. */
    public static final RowType ROW_TYPE =
            RowType.of(
                    new LogicalType[] {
                        new BigIntType(false),
                        new DateType(),
                        new VarCharType(VarCharType.MAX_LENGTH),
                        new DecimalType(12, 2),
                        new VarCharType(VarCharType.MAX_LENGTH),
                        new TimestampType(6)
                    },
                    new String[] {"order_id", "day", "customer", "amount", "status", "updated_at"});

    private static final RowData NO_OP =
            GenericRowData.ofKind(RowKind.DELETE, -1L, null, null, null, null, null);

    private final OrderTimeline timeline;

    public OrderChanges(int orders, int rounds) {
        this.timeline = new OrderTimeline(orders, rounds);
    }

    /** Records the source emits, no-op markers included. */
    public long size() {
        return timeline.size();
    }

    /** The record at {@code index}: a change, or a no-op marker. */
    public RowData record(long index) {
        return timeline.change(index).map(OrderChanges::row).orElse(NO_OP);
    }

    public static boolean isChange(RowData row) {
        return row.getLong(0) >= 0;
    }

    /** The table the whole stream must produce, by order id: values as written by the sink. */
    public Map<Long, Object[]> expectedTable() {
        return timeline.expectedTable();
    }

    private static RowData row(OrderTimeline.Change change) {
        Object[] values = change.values();
        long micros = (Long) values[5];
        return GenericRowData.ofKind(
                RowKind.valueOf(change.kind().name()),
                values[0],
                values[1],
                StringData.fromString((String) values[2]),
                DecimalData.fromBigDecimal((BigDecimal) values[3], 12, 2),
                StringData.fromString((String) values[4]),
                TimestampData.fromEpochMillis(micros / 1000, (int) (micros % 1000) * 1000));
    }
}
