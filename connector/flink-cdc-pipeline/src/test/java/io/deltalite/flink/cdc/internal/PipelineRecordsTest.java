package io.deltalite.flink.cdc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Map;
import org.apache.flink.cdc.common.data.DateData;
import org.apache.flink.cdc.common.data.DecimalData;
import org.apache.flink.cdc.common.data.GenericArrayData;
import org.apache.flink.cdc.common.data.GenericMapData;
import org.apache.flink.cdc.common.data.LocalZonedTimestampData;
import org.apache.flink.cdc.common.data.TimestampData;
import org.apache.flink.cdc.common.data.binary.BinaryStringData;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.types.DataTypes;
import org.apache.flink.cdc.common.types.RowType;
import org.apache.flink.cdc.runtime.typeutils.BinaryRecordDataGenerator;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/** Records of every type a Delta table holds, from Flink CDC's classes into Flink's. */
class PipelineRecordsTest {
    @Test
    void everyDeltaTypeReachesTheWriterInFlinksInternalClass() {
        Schema schema =
                Schema.newBuilder()
                        .physicalColumn("b", DataTypes.BOOLEAN())
                        .physicalColumn("t", DataTypes.TINYINT())
                        .physicalColumn("s", DataTypes.SMALLINT())
                        .physicalColumn("i", DataTypes.INT())
                        .physicalColumn("l", DataTypes.BIGINT())
                        .physicalColumn("f", DataTypes.FLOAT())
                        .physicalColumn("d", DataTypes.DOUBLE())
                        .physicalColumn("dec", DataTypes.DECIMAL(20, 4))
                        .physicalColumn("str", DataTypes.STRING())
                        .physicalColumn("bin", DataTypes.BYTES())
                        .physicalColumn("day", DataTypes.DATE())
                        .physicalColumn("ts", DataTypes.TIMESTAMP(6))
                        .physicalColumn("ltz", DataTypes.TIMESTAMP_LTZ(3))
                        .physicalColumn("arr", DataTypes.ARRAY(DataTypes.BIGINT()))
                        .physicalColumn("map", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
                        .physicalColumn(
                                "row",
                                DataTypes.ROW(
                                        DataTypes.FIELD("x", DataTypes.STRING()),
                                        DataTypes.FIELD("y", DataTypes.DECIMAL(5, 2))))
                        .physicalColumn("nothing", DataTypes.STRING())
                        .build();
        RowType type = (RowType) schema.toRowDataType();
        LocalDateTime moment = LocalDateTime.of(2026, 12, 5, 13, 4, 5, 123_456_000);
        Object[] values = {
            true,
            (byte) 7,
            (short) -300,
            42,
            1L << 40,
            1.5f,
            -2.25,
            DecimalData.fromBigDecimal(new BigDecimal("1234567890123.4567"), 20, 4),
            BinaryStringData.fromString("grüße"),
            new byte[] {1, 2, 3},
            DateData.fromLocalDate(LocalDate.of(2026, 12, 5)),
            TimestampData.fromLocalDateTime(moment),
            LocalZonedTimestampData.fromEpochMillis(1_764_939_845_123L),
            new GenericArrayData(new long[] {3, 4}),
            new GenericMapData(Map.of(BinaryStringData.fromString("k"), 9)),
            new BinaryRecordDataGenerator(
                            (RowType)
                                    DataTypes.ROW(
                                            DataTypes.FIELD("x", DataTypes.STRING()),
                                            DataTypes.FIELD("y", DataTypes.DECIMAL(5, 2))))
                    .generate(
                            new Object[] {
                                BinaryStringData.fromString("in"),
                                DecimalData.fromBigDecimal(new BigDecimal("1.25"), 5, 2)
                            }),
            null
        };
        RowData row =
                PipelineRecords.of(schema)
                        .toRow(
                                new BinaryRecordDataGenerator(type).generate(values),
                                RowKind.DELETE);

        assertThat(row.getRowKind()).isEqualTo(RowKind.DELETE);
        assertThat(row.getBoolean(0)).isTrue();
        assertThat(row.getByte(1)).isEqualTo((byte) 7);
        assertThat(row.getShort(2)).isEqualTo((short) -300);
        assertThat(row.getInt(3)).isEqualTo(42);
        assertThat(row.getLong(4)).isEqualTo(1L << 40);
        assertThat(row.getFloat(5)).isEqualTo(1.5f);
        assertThat(row.getDouble(6)).isEqualTo(-2.25);
        assertThat(row.getDecimal(7, 20, 4).toBigDecimal())
                .isEqualTo(new BigDecimal("1234567890123.4567"));
        assertThat(row.getString(8)).isEqualTo(StringData.fromString("grüße"));
        assertThat(row.getBinary(9)).containsExactly(1, 2, 3);
        assertThat(row.getInt(10)).isEqualTo((int) LocalDate.of(2026, 12, 5).toEpochDay());
        assertThat(row.getTimestamp(11, 6).toLocalDateTime()).isEqualTo(moment);
        assertThat(row.getTimestamp(12, 3).getMillisecond()).isEqualTo(1_764_939_845_123L);
        ArrayData array = row.getArray(13);
        assertThat(new long[] {array.getLong(0), array.getLong(1)}).containsExactly(3, 4);
        MapData map = row.getMap(14);
        assertThat(map.keyArray().getString(0)).isEqualTo(StringData.fromString("k"));
        assertThat(map.valueArray().getInt(0)).isEqualTo(9);
        RowData nested = row.getRow(15, 2);
        assertThat(nested.getString(0)).isEqualTo(StringData.fromString("in"));
        assertThat(nested.getDecimal(1, 5, 2).toBigDecimal()).isEqualTo(new BigDecimal("1.25"));
        assertThat(row.isNullAt(16)).isTrue();
    }

    @Test
    void aTimeColumnIsRefusedNamingTheColumnAndWhatToDo() {
        Schema schema =
                Schema.newBuilder()
                        .physicalColumn("id", DataTypes.BIGINT().notNull())
                        .physicalColumn("opens", DataTypes.TIME())
                        .primaryKey("id")
                        .build();
        assertThatThrownBy(() -> PipelineRecords.of(schema))
                .hasMessageContaining("'opens'")
                .hasMessageContaining("TIME")
                .hasMessageContaining("transform");
    }
}
