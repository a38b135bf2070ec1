package io.deltalite.flink.internal.sink;

import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.internal.merge.ValueType;
import io.deltalite.flink.internal.merge.ValueType.Kind;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Maps Flink logical types onto Delta's. {@code TIMESTAMP} (without time zone) becomes Delta's
 * {@code timestamp_ntz}; {@code TIMESTAMP_LTZ} becomes Delta's {@code timestamp}.
 */
final class FlinkTypes {
    private FlinkTypes() {}

    static List<ValueType.Field> toFields(RowType rowType) {
        List<ValueType.Field> fields = new ArrayList<>();
        for (RowType.RowField field : rowType.getFields()) {
            fields.add(
                    new ValueType.Field(
                            field.getName(),
                            toValueType(field.getType(), field.getName()),
                            field.getType().isNullable()));
        }
        return fields;
    }

    static ValueType toValueType(LogicalType type, String column) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return ValueType.of(Kind.BOOLEAN);
            case TINYINT:
                return ValueType.of(Kind.TINYINT);
            case SMALLINT:
                return ValueType.of(Kind.SMALLINT);
            case INTEGER:
                return ValueType.of(Kind.INT);
            case BIGINT:
                return ValueType.of(Kind.BIGINT);
            case FLOAT:
                return ValueType.of(Kind.FLOAT);
            case DOUBLE:
                return ValueType.of(Kind.DOUBLE);
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                return new ValueType.Decimal(decimal.getPrecision(), decimal.getScale());
            case CHAR:
            case VARCHAR:
                return ValueType.of(Kind.STRING);
            case BINARY:
            case VARBINARY:
                return ValueType.of(Kind.BINARY);
            case DATE:
                return ValueType.of(Kind.DATE);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return ValueType.of(Kind.TIMESTAMP_NTZ);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return ValueType.of(Kind.TIMESTAMP);
            case ROW:
                return new ValueType.Struct(toFields((RowType) type));
            case ARRAY:
                LogicalType element = ((ArrayType) type).getElementType();
                return new ValueType.Array(toValueType(element, column), element.isNullable());
            case MAP:
                MapType map = (MapType) type;
                return new ValueType.Map(
                        toValueType(map.getKeyType(), column),
                        toValueType(map.getValueType(), column),
                        map.getValueType().isNullable());
            default:
                throw new DeltaLiteSchemaMismatchException(
                        "Column '"
                                + column
                                + "' has Flink type "
                                + type.asSummaryString()
                                + ", which has no Delta equivalent. Cast it in the job (for"
                                + " example TIME to STRING, MULTISET to MAP).");
        }
    }
}
