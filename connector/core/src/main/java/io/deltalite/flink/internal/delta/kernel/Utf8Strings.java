package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The string columns of a Parquet read, taken as their UTF-8 bytes and decoded by {@link String}'s
 * own decoder.
 *
 * <p>Kernel's reader keeps each string's bytes and decodes them at every {@code getString} through
 * a {@code CharsetDecoder} — a thread-local lookup, a char buffer, then a copy into the string —
 * and its Parquet writer encodes the string again. A merge copies most of what it reads (a rewrite,
 * a fold, compaction), and that decoding was a fifth of a fold's CPU (BENCHMARKS.md §11i). So the
 * top-level string columns are read as binary — the same column reader, the same bytes — and {@link
 * #decoded} presents them as strings again, decoded with {@code new String(bytes, UTF_8)}: the same
 * value (malformed input is replaced the same way), at a fraction of the cost. Strings inside
 * structs, arrays and maps are left to Kernel.
 */
public final class Utf8Strings {
    private Utf8Strings() {}

    /** {@code columns} with each top-level string column read as binary. */
    public static StructType readSchema(StructType columns) {
        List<StructField> fields = new ArrayList<>(columns.length());
        boolean changed = false;
        for (StructField field : columns.fields()) {
            if (field.getDataType() instanceof StringType) {
                fields.add(field.withDataType(BinaryType.BINARY));
                changed = true;
            } else {
                fields.add(field);
            }
        }
        return changed ? new StructType(fields) : columns;
    }

    /**
     * {@code read}, read with {@link #readSchema}{@code (columns)}, as a batch of {@code columns}:
     * its string columns decoded from their bytes.
     */
    public static ColumnarBatch decoded(ColumnarBatch read, StructType columns) {
        return new Decoded(read, columns);
    }

    private static final class Decoded implements ColumnarBatch {
        private final ColumnarBatch read;
        private final StructType schema;
        private final ColumnVector[] vectors;

        Decoded(ColumnarBatch read, StructType schema) {
            this.read = read;
            this.schema = schema;
            this.vectors = new ColumnVector[schema.length()];
            for (int ordinal = 0; ordinal < vectors.length; ordinal++) {
                DataType type = schema.at(ordinal).getDataType();
                ColumnVector vector = read.getColumnVector(ordinal);
                vectors[ordinal] =
                        type instanceof StringType ? new StringsFromBytes(vector, type) : vector;
            }
        }

        @Override
        public StructType getSchema() {
            return schema;
        }

        @Override
        public ColumnVector getColumnVector(int ordinal) {
            return vectors[ordinal];
        }

        @Override
        public int getSize() {
            return read.getSize();
        }
    }

    /** A string column over the vector of its bytes. */
    private static final class StringsFromBytes implements ColumnVector {
        private final ColumnVector bytes;
        private final DataType type;

        StringsFromBytes(ColumnVector bytes, DataType type) {
            this.bytes = bytes;
            this.type = type;
        }

        @Override
        public DataType getDataType() {
            return type;
        }

        @Override
        public int getSize() {
            return bytes.getSize();
        }

        @Override
        public void close() {
            bytes.close();
        }

        @Override
        public boolean isNullAt(int rowId) {
            return bytes.isNullAt(rowId);
        }

        @Override
        public String getString(int rowId) {
            byte[] value = bytes.getBinary(rowId);
            return value == null ? null : new String(value, StandardCharsets.UTF_8);
        }
    }
}
