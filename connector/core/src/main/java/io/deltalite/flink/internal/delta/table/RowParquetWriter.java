package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.deltalite.flink.internal.delta.fileio.TrackingFileIO;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetOutputFormat;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Writes rows held in memory — the new rows of a checkpoint, in the engine's Java representation
 * ({@link ValueType}) — into Parquet data files, from each row's values straight to parquet-java's
 * record consumer.
 *
 * <p>The files are the ones Kernel's Parquet writer writes for the same rows: Kernel's Parquet
 * schema of the table's physical columns (field ids included), the same value for each Delta type,
 * nulls left out as Kernel leaves them out, the settings Kernel's writer takes from the engine
 * (codec, row group and page sizes, dictionary, writer version), a new file each time one reaches
 * the target file size. What it saves is Kernel's detour: each batch of rows copied into column
 * vectors, whose values are then read back row by row through a writer per column, and the file's
 * size asked after every row. Measured on the side-by-side benchmark's CDC rows, scattered in
 * memory as a checkpoint's are, that is about a sixth of the CPU of writing them (BENCHMARKS.md
 * §11p); most of the rest is parquet-java's encoding and the codec.
 *
 * <p>Only for tables whose columns are all of the types below (primitive types and decimals);
 * nested columns and the columns of row tracking are written by Kernel ({@link #forSchema} returns
 * null).
 */
final class RowParquetWriter {
    /** The footer key under which deltalite names itself as the file's writer. */
    static final String WRITER = "io.deltalite.parquet-writer";

    /** The name of this writer's write support, which parquet-java puts in the footer too. */
    static final String MODEL = "deltalite";

    /** Kernel's target file size setting, and its default. */
    private static final String TARGET_FILE_SIZE =
            "delta.kernel.default.parquet.writer.targetMaxFileSize";

    private static final long DEFAULT_TARGET_FILE_SIZE = 128L << 20;

    /** The engine's file IO: its settings are Kernel's writer's, its streams tracked. */
    private final FileIO files;

    private final MessageType parquetSchema;
    private final String[] names;
    private final int[] rowIndexes;
    private final ValueWriter[] writers;
    private final long targetFileSize;

    private RowParquetWriter(
            FileIO files,
            MessageType parquetSchema,
            String[] names,
            int[] rowIndexes,
            ValueWriter[] writers,
            long targetFileSize) {
        this.files = files;
        this.parquetSchema = parquetSchema;
        this.names = names;
        this.rowIndexes = rowIndexes;
        this.writers = writers;
        this.targetFileSize = targetFileSize;
    }

    /**
     * The writer of rows of {@code schema} into files of the physical columns {@code fileSchema}
     * (the table's data columns in order, under their physical names), or null when a column's type
     * is not one this writer fills as Kernel does, or the target file size is not positive
     * (Kernel's writer then says so when it writes).
     */
    static RowParquetWriter forSchema(
            TrackingFileIO files, TableSchema schema, StructType fileSchema) {
        List<ValueType.Field> dataColumns = schema.dataColumns();
        if (dataColumns.size() != fileSchema.length()) {
            return null; // row tracking's columns follow the data columns
        }
        MessageType parquetSchema = KernelInternals.parquetSchemaOfWrites(fileSchema);
        long targetFileSize =
                files.getConf(TARGET_FILE_SIZE).map(Long::valueOf).orElse(DEFAULT_TARGET_FILE_SIZE);
        if (parquetSchema == null || targetFileSize <= 0) {
            return null;
        }
        String[] names = new String[dataColumns.size()];
        int[] rowIndexes = new int[dataColumns.size()];
        ValueWriter[] writers = new ValueWriter[dataColumns.size()];
        for (int column = 0; column < writers.length; column++) {
            StructField field = fileSchema.at(column);
            Type parquetField = parquetSchema.getType(column);
            writers[column] =
                    parquetField.isPrimitive()
                            ? writerOf(field.getDataType(), parquetField.asPrimitiveType())
                            : null;
            if (writers[column] == null) {
                return null;
            }
            names[column] = field.getName();
            rowIndexes[column] = schema.indexOf(dataColumns.get(column).name());
        }
        return new RowParquetWriter(
                files, parquetSchema, names, rowIndexes, writers, targetFileSize);
    }

    /** Each value as Kernel's column writer for the type passes it to the record consumer. */
    private static ValueWriter writerOf(DataType type, PrimitiveType parquetType) {
        if (type instanceof BooleanType) {
            return (consumer, value) -> {
                consumer.addBoolean((Boolean) value);
                return 1;
            };
        } else if (type instanceof ByteType) {
            return (consumer, value) -> {
                consumer.addInteger((Byte) value);
                return 8;
            };
        } else if (type instanceof ShortType) {
            return (consumer, value) -> {
                consumer.addInteger((Short) value);
                return 8;
            };
        } else if (type instanceof IntegerType || type instanceof DateType) {
            return (consumer, value) -> {
                consumer.addInteger((Integer) value);
                return 8;
            };
        } else if (type instanceof LongType
                || type instanceof TimestampType
                || type instanceof TimestampNTZType) {
            return (consumer, value) -> {
                consumer.addLong((Long) value);
                return 12;
            };
        } else if (type instanceof FloatType) {
            return (consumer, value) -> {
                consumer.addFloat((Float) value);
                return 8;
            };
        } else if (type instanceof DoubleType) {
            return (consumer, value) -> {
                consumer.addDouble((Double) value);
                return 12;
            };
        } else if (type instanceof StringType) {
            return (consumer, value) -> {
                byte[] bytes = ((String) value).getBytes(StandardCharsets.UTF_8);
                consumer.addBinary(Binary.fromConstantByteArray(bytes));
                return bytes.length + 8;
            };
        } else if (type instanceof BinaryType) {
            return (consumer, value) -> {
                byte[] bytes = (byte[]) value;
                consumer.addBinary(Binary.fromConstantByteArray(bytes));
                return bytes.length + 8;
            };
        } else if (type instanceof DecimalType decimal) {
            return decimalWriterOf(decimal, parquetType);
        }
        return null;
    }

    /**
     * A decimal as Kernel writes it: up to 9 digits the unscaled value as an {@code INT32}, up to
     * 18 as an {@code INT64} (both the value with its point moved right by the column's scale), and
     * beyond that the unscaled value's two's-complement bytes, sign-extended to the column's fixed
     * length.
     */
    private static ValueWriter decimalWriterOf(DecimalType decimal, PrimitiveType parquetType) {
        int scale = decimal.getScale();
        if (decimal.getPrecision() <= 9) {
            return (consumer, value) -> {
                consumer.addInteger(((BigDecimal) value).movePointRight(scale).intValue());
                return 8;
            };
        } else if (decimal.getPrecision() <= 18) {
            return (consumer, value) -> {
                consumer.addLong(((BigDecimal) value).movePointRight(scale).longValue());
                return 12;
            };
        } else if (parquetType.getPrimitiveTypeName()
                != PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
            return null;
        }
        int length = parquetType.getTypeLength();
        return (consumer, value) -> {
            byte[] bytes = ((BigDecimal) value).unscaledValue().toByteArray();
            if (bytes.length != length) {
                byte[] extended = new byte[length];
                java.util.Arrays.fill(
                        extended, 0, length - bytes.length, (byte) (bytes[0] < 0 ? -1 : 0));
                System.arraycopy(bytes, 0, extended, length - bytes.length, bytes.length);
                bytes = extended;
            }
            consumer.addBinary(Binary.fromConstantByteArray(bytes));
            return length + 8;
        };
    }

    /**
     * Writes {@code rows}, in their order, into new files in {@code directory}, named as Kernel
     * names its files; returns their paths as created. Each file holds at least one row. A failure
     * leaves the files created so far to the caller's write scope to delete.
     */
    List<String> write(String directory, List<Object[]> rows) throws IOException {
        List<String> paths = new ArrayList<>();
        int next = 0;
        while (next < rows.size()) {
            String path =
                    new org.apache.hadoop.fs.Path(directory, UUID.randomUUID() + "-000.parquet")
                            .toString();
            paths.add(path);
            next = writeFile(path, rows, next);
        }
        return paths;
    }

    /**
     * Writes rows from {@code from} into a new file until it reaches the target size. Kernel asks
     * the file's size after every row; here it is asked once the bytes the rows written since the
     * last answer count reach half of what was left to the target. They count at least what the
     * file's size grew by, so no row before that one could have brought the file to the target: the
     * file ends after the same row as Kernel's would, whatever the rows' sizes.
     */
    private int writeFile(String path, List<Object[]> rows, int from) throws IOException {
        OutputFile file = new KernelOutputFile(files.newOutputFile(path).create(false), path);
        RowWriteSupport support = new RowWriteSupport();
        int row = from;
        try (ParquetWriter<Object[]> writer = new Builder(file, support).build()) {
            long size = 0;
            long written = 0;
            while (row < rows.size()) {
                writer.write(rows.get(row));
                row++;
                written += support.takeBytes();
                if (written * 2 >= targetFileSize - size) {
                    size = writer.getDataSize();
                    written = 0;
                    if (size >= targetFileSize) {
                        break;
                    }
                }
            }
        }
        return row;
    }

    /**
     * Passes one value of a column to the record consumer; returns at least the bytes by which
     * parquet-java's buffered size of the column can grow for it: its plain bytes, and those of a
     * dictionary index (4) and of a length (4, strings and binaries).
     */
    @FunctionalInterface
    private interface ValueWriter {
        int write(RecordConsumer consumer, Object value);
    }

    /** A row's non-null values, each as its column's field; a null leaves its field out. */
    private final class RowWriteSupport extends WriteSupport<Object[]> {
        private RecordConsumer consumer;

        /**
         * The bytes the values written since {@link #takeBytes} count (see {@link ValueWriter}).
         */
        private long bytes;

        @Override
        public String getName() {
            return MODEL;
        }

        @Override
        public WriteContext init(Configuration configuration) {
            return new WriteContext(parquetSchema, Map.of(WRITER, DeltaTable.ENGINE_INFO));
        }

        @Override
        public void prepareForWrite(RecordConsumer recordConsumer) {
            this.consumer = recordConsumer;
        }

        @Override
        public void write(Object[] row) {
            consumer.startMessage();
            bytes += writers.length; // a definition level per column, null or not
            for (int column = 0; column < writers.length; column++) {
                Object value = row[rowIndexes[column]];
                if (value != null) {
                    consumer.startField(names[column], column);
                    bytes += writers[column].write(consumer, value);
                    consumer.endField(names[column], column);
                }
            }
            consumer.endMessage();
        }

        long takeBytes() {
            long taken = bytes;
            bytes = 0;
            return taken;
        }
    }

    private final class Builder extends ParquetWriter.Builder<Object[], Builder> {
        private final WriteSupport<Object[]> support;

        /** Configured from the engine's settings as Kernel configures its writer. */
        Builder(OutputFile file, WriteSupport<Object[]> support) {
            super(file);
            this.support = support;
            files.getConf(ParquetOutputFormat.COMPRESSION)
                    .ifPresent(codec -> withCompressionCodec(CompressionCodecName.fromConf(codec)));
            files.getConf(ParquetOutputFormat.BLOCK_SIZE)
                    .map(Long::parseLong)
                    .ifPresent(this::withRowGroupSize);
            files.getConf(ParquetOutputFormat.PAGE_SIZE)
                    .map(Integer::parseInt)
                    .ifPresent(this::withPageSize);
            files.getConf(ParquetOutputFormat.DICTIONARY_PAGE_SIZE)
                    .map(Integer::parseInt)
                    .ifPresent(this::withDictionaryPageSize);
            files.getConf(ParquetOutputFormat.MAX_PADDING_BYTES)
                    .map(Integer::parseInt)
                    .ifPresent(this::withMaxPaddingSize);
            files.getConf(ParquetOutputFormat.ENABLE_DICTIONARY)
                    .map(Boolean::parseBoolean)
                    .ifPresent(this::withDictionaryEncoding);
            files.getConf(ParquetOutputFormat.VALIDATION)
                    .map(Boolean::parseBoolean)
                    .ifPresent(this::withValidation);
            files.getConf(ParquetOutputFormat.WRITER_VERSION)
                    .map(ParquetProperties.WriterVersion::fromString)
                    .ifPresent(this::withWriterVersion);
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<Object[]> getWriteSupport(Configuration conf) {
            return support;
        }
    }
}
