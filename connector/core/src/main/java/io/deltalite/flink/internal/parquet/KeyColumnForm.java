package io.deltalite.flink.internal.parquet;

import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.StringLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * How the values of one key column are compared, given the column's type in the table and its
 * physical type in a data file: as {@code long}s or as bytes, each key value turned into the form
 * the file stores it in. Only the combinations the reader reproduces exactly are supported — the
 * ones deltalite (through Kernel) and Spark write; for anything else {@link #of} answers null and
 * the caller reads the file the row-wise way.
 *
 * <p>Values are equal exactly when the engine's values are ({@link
 * io.deltalite.flink.internal.merge.value.RowKey}): integers by value (a TINYINT or SMALLINT value
 * is narrowed as the row-wise reader narrows it), floating point by {@code floatToIntBits} / {@code
 * doubleToLongBits} (so {@code NaN} equals {@code NaN}, {@code -0.0} differs from {@code 0.0}),
 * decimals by unscaled value at the table's scale, strings by their UTF-8 bytes, binary by content.
 *
 * @param type the column's type in the table
 * @param physical the file's physical type
 * @param fixedLength the byte length of a {@code FIXED_LEN_BYTE_ARRAY} column, else 0
 */
record KeyColumnForm(ValueType type, PrimitiveType.PrimitiveTypeName physical, int fixedLength) {

    /** What a key value is in this form. */
    sealed interface Normalized permits AsLong, AsBytes, NeverStored, Unsupported {}

    /** The value as a long. */
    record AsLong(long value) implements Normalized {}

    /** The value as bytes. */
    record AsBytes(byte[] value) implements Normalized {}

    /** No value the file can hold reads back as this value: the key never matches. */
    record NeverStored() implements Normalized {}

    /** The reader could not tell exactly which stored values equal this one. */
    record Unsupported() implements Normalized {}

    /** The form of a file column for a key column of {@code type}, or null when not supported. */
    static KeyColumnForm of(ValueType type, Type column) {
        if (!column.isPrimitive() || column.isRepetition(Type.Repetition.REPEATED)) {
            return null;
        }
        PrimitiveType primitive = column.asPrimitiveType();
        PrimitiveType.PrimitiveTypeName physical = primitive.getPrimitiveTypeName();
        LogicalTypeAnnotation annotation = primitive.getLogicalTypeAnnotation();
        boolean supported;
        if (type instanceof ValueType.Decimal decimal) {
            supported =
                    annotation instanceof DecimalLogicalTypeAnnotation stored
                            && stored.getScale() == decimal.scale()
                            && (physical == PrimitiveType.PrimitiveTypeName.INT32
                                    || physical == PrimitiveType.PrimitiveTypeName.INT64
                                    || physical
                                            == PrimitiveType.PrimitiveTypeName
                                                    .FIXED_LEN_BYTE_ARRAY);
        } else {
            Kind kind = ((ValueType.Primitive) type).kind();
            supported =
                    switch (kind) {
                        case BOOLEAN ->
                                physical == PrimitiveType.PrimitiveTypeName.BOOLEAN
                                        && annotation == null;
                        case TINYINT, SMALLINT, INT ->
                                physical == PrimitiveType.PrimitiveTypeName.INT32
                                        && (annotation == null || isSignedInt(annotation, 32));
                        case DATE ->
                                physical == PrimitiveType.PrimitiveTypeName.INT32
                                        && annotation instanceof DateLogicalTypeAnnotation;
                        case BIGINT ->
                                physical == PrimitiveType.PrimitiveTypeName.INT64
                                        && (annotation == null || isSignedInt(annotation, 64));
                        case TIMESTAMP, TIMESTAMP_NTZ ->
                                physical == PrimitiveType.PrimitiveTypeName.INT64
                                        && annotation instanceof TimestampLogicalTypeAnnotation ts
                                        && ts.getUnit() == TimeUnit.MICROS;
                        case FLOAT ->
                                physical == PrimitiveType.PrimitiveTypeName.FLOAT
                                        && annotation == null;
                        case DOUBLE ->
                                physical == PrimitiveType.PrimitiveTypeName.DOUBLE
                                        && annotation == null;
                        case STRING ->
                                physical == PrimitiveType.PrimitiveTypeName.BINARY
                                        && (annotation == null
                                                || annotation
                                                        instanceof StringLogicalTypeAnnotation);
                        case BINARY ->
                                physical == PrimitiveType.PrimitiveTypeName.BINARY
                                        && annotation == null;
                    };
        }
        if (!supported) {
            return null;
        }
        return new KeyColumnForm(
                type,
                physical,
                physical == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
                        ? primitive.getTypeLength()
                        : 0);
    }

    private static boolean isSignedInt(LogicalTypeAnnotation annotation, int maxWidth) {
        return annotation instanceof IntLogicalTypeAnnotation integer
                && integer.isSigned()
                && integer.getBitWidth() <= maxWidth;
    }

    /** Whether values are compared as bytes (else as longs). */
    boolean comparesBytes() {
        return physical == PrimitiveType.PrimitiveTypeName.BINARY
                || physical == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
    }

    /** The narrowing the row-wise reader applies to an INT32 value of this column. */
    long fromInt(int stored) {
        if (type instanceof ValueType.Primitive primitive) {
            if (primitive.kind() == Kind.TINYINT) {
                return (byte) stored;
            }
            if (primitive.kind() == Kind.SMALLINT) {
                return (short) stored;
            }
        }
        return stored;
    }

    /** A key component (a normalized engine value of {@link #type}) in this form. */
    Normalized normalize(Object value) {
        if (type instanceof ValueType.Decimal decimal) {
            if (!(value instanceof BigDecimal number) || number.scale() != decimal.scale()) {
                return new NeverStored(); // RowKey equality is BigDecimal.equals: scale counts
            }
            BigInteger unscaled = number.unscaledValue();
            if (physical == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
                byte[] minimal = unscaled.toByteArray();
                if (minimal.length > fixedLength) {
                    return new NeverStored();
                }
                byte[] fixed = new byte[fixedLength];
                byte fill = unscaled.signum() < 0 ? (byte) 0xFF : 0;
                int pad = fixedLength - minimal.length;
                java.util.Arrays.fill(fixed, 0, pad, fill);
                System.arraycopy(minimal, 0, fixed, pad, minimal.length);
                return new AsBytes(fixed);
            }
            return unscaled.bitLength() <= 63
                    ? new AsLong(unscaled.longValue())
                    : new NeverStored();
        }
        Kind kind = ((ValueType.Primitive) type).kind();
        return switch (kind) {
            case BOOLEAN -> value instanceof Boolean b ? new AsLong(b ? 1 : 0) : new NeverStored();
            case TINYINT -> value instanceof Byte b ? new AsLong(b) : new NeverStored();
            case SMALLINT -> value instanceof Short s ? new AsLong(s) : new NeverStored();
            case INT, DATE -> value instanceof Integer i ? new AsLong(i) : new NeverStored();
            case BIGINT, TIMESTAMP, TIMESTAMP_NTZ ->
                    value instanceof Long l ? new AsLong(l) : new NeverStored();
            case FLOAT ->
                    value instanceof Float f
                            ? new AsLong(Float.floatToIntBits(f))
                            : new NeverStored();
            case DOUBLE ->
                    value instanceof Double d
                            ? new AsLong(Double.doubleToLongBits(d))
                            : new NeverStored();
            case STRING -> value instanceof String s ? utf8(s) : new NeverStored();
            case BINARY -> value instanceof byte[] b ? new AsBytes(b.clone()) : new NeverStored();
        };
    }

    /**
     * A string key as UTF-8. The row-wise reader decodes stored bytes with replacement, so a stored
     * value that is not valid UTF-8 reads back as a string holding U+FFFD: a key holding U+FFFD is
     * not compared by bytes. A key with an unpaired surrogate has no UTF-8 form and no decoded
     * value ever holds one.
     */
    private static Normalized utf8(String value) {
        if (value.indexOf('\uFFFD') >= 0) {
            return new Unsupported();
        }
        try {
            java.nio.ByteBuffer encoded =
                    StandardCharsets.UTF_8
                            .newEncoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .encode(java.nio.CharBuffer.wrap(value));
            byte[] bytes = new byte[encoded.remaining()];
            encoded.get(bytes);
            return new AsBytes(bytes);
        } catch (CharacterCodingException e) {
            return new NeverStored();
        }
    }
}
