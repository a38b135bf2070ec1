package io.deltalite.flink.internal.merge.value;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A self-describing binary encoding of the scalar values that appear in keys, partition values and
 * statistics. Each value carries a tag for its Java type, so decoding needs no schema.
 */
public final class ValueCodec {
    private static final byte NULL = 0;
    private static final byte BOOLEAN = 1;
    private static final byte BYTE = 2;
    private static final byte SHORT = 3;
    private static final byte INT = 4;
    private static final byte LONG = 5;
    private static final byte FLOAT = 6;
    private static final byte DOUBLE = 7;
    private static final byte STRING = 8;
    private static final byte BINARY = 9;
    private static final byte DECIMAL = 10;

    private ValueCodec() {}

    public static void write(DataOutput out, Object value) throws IOException {
        if (value == null) {
            out.writeByte(NULL);
        } else if (value instanceof Boolean b) {
            out.writeByte(BOOLEAN);
            out.writeBoolean(b);
        } else if (value instanceof Byte b) {
            out.writeByte(BYTE);
            out.writeByte(b);
        } else if (value instanceof Short s) {
            out.writeByte(SHORT);
            out.writeShort(s);
        } else if (value instanceof Integer i) {
            out.writeByte(INT);
            out.writeInt(i);
        } else if (value instanceof Long l) {
            out.writeByte(LONG);
            out.writeLong(l);
        } else if (value instanceof Float f) {
            out.writeByte(FLOAT);
            out.writeInt(Float.floatToRawIntBits(f));
        } else if (value instanceof Double d) {
            out.writeByte(DOUBLE);
            out.writeLong(Double.doubleToRawLongBits(d));
        } else if (value instanceof String s) {
            out.writeByte(STRING);
            writeString(out, s);
        } else if (value instanceof byte[] bytes) {
            out.writeByte(BINARY);
            writeBytes(out, bytes);
        } else if (value instanceof BigDecimal decimal) {
            out.writeByte(DECIMAL);
            out.writeInt(decimal.scale());
            writeBytes(out, decimal.unscaledValue().toByteArray());
        } else {
            throw new IllegalArgumentException(
                    "cannot encode a "
                            + value.getClass().getName()
                            + " as a key or partition value");
        }
    }

    public static Object read(DataInput in) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case NULL -> null;
            case BOOLEAN -> in.readBoolean();
            case BYTE -> in.readByte();
            case SHORT -> in.readShort();
            case INT -> in.readInt();
            case LONG -> in.readLong();
            case FLOAT -> Float.intBitsToFloat(in.readInt());
            case DOUBLE -> Double.longBitsToDouble(in.readLong());
            case STRING -> readString(in);
            case BINARY -> readBytes(in);
            case DECIMAL -> {
                int scale = in.readInt();
                yield new BigDecimal(new BigInteger(readBytes(in)), scale);
            }
            default -> throw new IOException("unknown value tag " + tag);
        };
    }

    /** Strings of any length (DataOutput.writeUTF stops at 64 KiB). */
    public static void writeString(DataOutput out, String value) throws IOException {
        writeBytes(out, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public static String readString(DataInput in) throws IOException {
        return new String(readBytes(in), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void writeBytes(DataOutput out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInput in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            throw new IOException("negative length " + length);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
