package io.deltalite.flink.internal.sink;

import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
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
public final class FlinkTypes {
    private FlinkTypes() {}

    public static List<ValueType.Field> toFields(RowType rowType) {
        return toFields(rowType, "");
    }

    /**
     * @param prefix the path of the enclosing struct ({@code "address."}), for messages
     */
    private static List<ValueType.Field> toFields(RowType rowType, String prefix) {
        List<ValueType.Field> fields = new ArrayList<>();
        java.util.Map<String, String> seen = new java.util.HashMap<>();
        for (RowType.RowField field : rowType.getFields()) {
            String other =
                    seen.put(field.getName().toLowerCase(java.util.Locale.ROOT), field.getName());
            if (other != null) {
                throw new DeltaLiteSchemaMismatchException(
                        "The input has the fields '"
                                + prefix
                                + other
                                + "' and '"
                                + prefix
                                + field.getName()
                                + "', which differ only in case; Delta column names ignore case,"
                                + " so they would be one column. Rename one of them in the job.");
            }
            fields.add(
                    new ValueType.Field(
                            field.getName(),
                            toValueType(field.getType(), prefix + field.getName()),
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
                return new ValueType.Struct(toFields((RowType) type, column + "."));
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
