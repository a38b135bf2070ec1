package io.deltalite.flink.cdc.internal;

import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.sink.FlinkTypes;
import java.util.List;
import org.apache.flink.cdc.common.schema.Column;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.types.DataType;
import org.apache.flink.cdc.common.types.utils.DataTypeUtils;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The Delta columns of a pipeline table: Flink CDC's types are Flink's (the CDC type system mirrors
 * Flink SQL's), so they map onto Delta's exactly as the sink's input does ({@link FlinkTypes}).
 */
final class PipelineSchemas {
    private PipelineSchemas() {}

    /** The columns of {@code schema}, in order. */
    static List<ValueType.Field> columns(Schema schema) {
        return FlinkTypes.toFields(rowType(schema));
    }

    /** The Flink row type of the records of {@code schema}. */
    static RowType rowType(Schema schema) {
        LogicalType row = DataTypeUtils.toFlinkDataType(schema.toRowDataType()).getLogicalType();
        return (RowType) row;
    }

    /** {@code column} as a Delta column. */
    static ValueType.Field column(Column column) {
        return column(column.getName(), column.getType());
    }

    /** A column named {@code name} of {@code type}. */
    static ValueType.Field column(String name, DataType type) {
        return columns(Schema.newBuilder().physicalColumn(name, type).build()).get(0);
    }
}
