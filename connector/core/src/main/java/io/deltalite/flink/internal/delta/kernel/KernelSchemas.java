package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FieldMetadata;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.deltalite.flink.exceptions.DeltaLiteUnsupportedTableException;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.ArrayList;
import java.util.List;

/** Converts between the engine's column types and Delta Kernel's. */
public final class KernelSchemas {
    private KernelSchemas() {}

    public static StructType toKernel(List<ValueType.Field> fields) {
        return toKernel(fields, java.util.Map.of());
    }

    /** {@code fields}, the top-level ones with their {@code comments} (by name) where given. */
    public static StructType toKernel(
            List<ValueType.Field> fields, java.util.Map<String, String> comments) {
        StructType struct = new StructType();
        for (ValueType.Field field : fields) {
            String comment = comments.get(field.name());
            io.delta.kernel.types.FieldMetadata metadata =
                    comment == null
                            ? io.delta.kernel.types.FieldMetadata.empty()
                            : io.delta.kernel.types.FieldMetadata.builder()
                                    .putString("comment", comment)
                                    .build();
            struct = struct.add(field.name(), toKernel(field.type()), field.nullable(), metadata);
        }
        return struct;
    }

    public static DataType toKernel(ValueType type) {
        if (type instanceof ValueType.Decimal decimal) {
            return new DecimalType(decimal.precision(), decimal.scale());
        }
        if (type instanceof ValueType.Struct struct) {
            return toKernel(struct.fields());
        }
        if (type instanceof ValueType.Array array) {
            return new ArrayType(toKernel(array.elementType()), array.containsNull());
        }
        if (type instanceof ValueType.Map map) {
            return new MapType(
                    toKernel(map.keyType()), toKernel(map.valueType()), map.valueContainsNull());
        }
        return switch (((ValueType.Primitive) type).kind()) {
            case BOOLEAN -> BooleanType.BOOLEAN;
            case TINYINT -> ByteType.BYTE;
            case SMALLINT -> ShortType.SHORT;
            case INT -> IntegerType.INTEGER;
            case BIGINT -> LongType.LONG;
            case FLOAT -> FloatType.FLOAT;
            case DOUBLE -> DoubleType.DOUBLE;
            case STRING -> StringType.STRING;
            case BINARY -> BinaryType.BINARY;
            case DATE -> DateType.DATE;
            case TIMESTAMP -> TimestampType.TIMESTAMP;
            case TIMESTAMP_NTZ -> TimestampNTZType.TIMESTAMP_NTZ;
        };
    }

    /** The engine's view of a Delta schema; unsupported types are refused with their column. */
    public static List<ValueType.Field> fromKernel(StructType struct, String tablePath) {
        List<ValueType.Field> fields = new ArrayList<>();
        for (StructField field : struct.fields()) {
            fields.add(
                    new ValueType.Field(
                            field.getName(),
                            fromKernel(field.getDataType(), field.getName(), tablePath),
                            field.isNullable()));
        }
        return fields;
    }

    private static ValueType fromKernel(DataType type, String column, String tablePath) {
        if (type instanceof DecimalType decimal) {
            return new ValueType.Decimal(decimal.getPrecision(), decimal.getScale());
        }
        if (type instanceof StructType struct) {
            return new ValueType.Struct(fromKernel(struct, tablePath));
        }
        if (type instanceof ArrayType array) {
            return new ValueType.Array(
                    fromKernel(array.getElementType(), column, tablePath), array.containsNull());
        }
        if (type instanceof MapType map) {
            return new ValueType.Map(
                    fromKernel(map.getKeyType(), column, tablePath),
                    fromKernel(map.getValueType(), column, tablePath),
                    map.isValueContainsNull());
        }
        ValueType.Kind kind;
        if (type instanceof BooleanType) {
            kind = ValueType.Kind.BOOLEAN;
        } else if (type instanceof ByteType) {
            kind = ValueType.Kind.TINYINT;
        } else if (type instanceof ShortType) {
            kind = ValueType.Kind.SMALLINT;
        } else if (type instanceof IntegerType) {
            kind = ValueType.Kind.INT;
        } else if (type instanceof LongType) {
            kind = ValueType.Kind.BIGINT;
        } else if (type instanceof FloatType) {
            kind = ValueType.Kind.FLOAT;
        } else if (type instanceof DoubleType) {
            kind = ValueType.Kind.DOUBLE;
        } else if (type instanceof StringType) {
            kind = ValueType.Kind.STRING;
        } else if (type instanceof BinaryType) {
            kind = ValueType.Kind.BINARY;
        } else if (type instanceof DateType) {
            kind = ValueType.Kind.DATE;
        } else if (type instanceof TimestampType) {
            kind = ValueType.Kind.TIMESTAMP;
        } else if (type instanceof TimestampNTZType) {
            kind = ValueType.Kind.TIMESTAMP_NTZ;
        } else {
            throw new DeltaLiteUnsupportedTableException(
                    "Column '"
                            + column
                            + "' of the Delta table at "
                            + tablePath
                            + " has type "
                            + type
                            + ", which deltalite cannot write. Use a table without it.");
        }
        return ValueType.of(kind);
    }

    /**
     * The row-index column to read with a file that has a deletion vector; marked internal so that
     * Kernel's scan drops it once it has applied the vector.
     */
    public static final StructField ROW_INDEX =
            StructField.DEFAULT_ROW_INDEX_COLUMN.withNewMetadata(
                    FieldMetadata.builder()
                            .fromMetadata(StructField.DEFAULT_ROW_INDEX_COLUMN.getMetadata())
                            .putBoolean(StructField.IS_INTERNAL_COLUMN_KEY, true)
                            .build());

    /** The physical schema of the data files: every column but the partition columns. */
    public static StructType dataSchema(TableSchema schema) {
        return toKernel(schema.dataColumns());
    }
}
