package io.deltalite.flink.internal.parquet;

import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.table.KeyIdentitySink;
import io.deltalite.flink.internal.merge.value.KeyIdentity;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.impl.ColumnReaderImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.InputFile;

/**
 * Reads every key of a data file with its physical row position, for the key index: only the
 * match-key columns are decoded, row group by row group, and each row's key becomes its {@link
 * KeyIdentity} without a row object or a boxed value — the identity {@code KeyIdentity} gives the
 * same key as the engine holds it. A single integer key column is decoded page by page ({@link
 * IntegerPages}), its value being its identity; every other key goes through parquet-java's column
 * reader, a reader per key column in step, each value fed to the key's {@link KeyIdentity.Hasher}
 * (a dictionary entry of a single-column key is hashed once). Rows with a null key column are
 * skipped; rows a deletion vector deletes are not (the index keeps them, see {@code
 * PartitionKeyIndex}). Positions count every row of the file from 0, across row groups — the
 * positions deletion vectors address.
 *
 * <p>For a file whose key columns are missing or stored in a form {@link KeyColumnForm} does not
 * know, {@link #read} answers empty before handing anything over, and the caller reads the file the
 * row-wise way.
 */
public final class KeyIdentityReader {
    /** Rows handed over per call of the sink. */
    static final int BLOCK = 4096;

    private final List<String> columns;
    private final List<ValueType> types;
    private final boolean integral;
    private final boolean decodePages;

    /**
     * @param columns the match-key columns, in key order, as named in the data files
     * @param types their types in the table
     */
    public KeyIdentityReader(List<String> columns, List<ValueType> types) {
        this(columns, types, true);
    }

    /**
     * @param decodePages whether a single integer key column is decoded page by page ({@link
     *     IntegerPages}); false reads every column with parquet-java's column reader (to compare)
     */
    public KeyIdentityReader(List<String> columns, List<ValueType> types, boolean decodePages) {
        this.columns = List.copyOf(columns);
        this.types = List.copyOf(types);
        this.integral = KeyIdentity.isIntegral(this.types);
        this.decodePages = decodePages;
    }

    /**
     * Hands the identity and position of every row of {@code file} whose key columns are all
     * non-null to {@code sink}, a block at a time, in file order; answers the file's physical row
     * count, or empty (having handed nothing over) when this reader cannot decode its key columns.
     */
    public OptionalLong read(InputFile file, KeyIdentitySink sink) throws IOException {
        try (ParquetFileReader reader = ProjectedKeyColumns.open(file)) {
            ProjectedKeyColumns projected =
                    ProjectedKeyColumns.of(
                            reader.getFooter().getFileMetaData().getSchema(), columns, types);
            if (projected == null) {
                return OptionalLong.empty();
            }
            reader.setRequestedSchema(projected.projection());
            Block block = new Block(sink);
            long first = 0;
            List<BlockMetaData> groups = reader.getRowGroups();
            for (int group = 0; group < groups.size(); group++) {
                try (PageReadStore rowGroup = reader.readRowGroup(group)) {
                    int rows = Math.toIntExact(rowGroup.getRowCount());
                    boolean tried = false;
                    if (integral && decodePages && IntegerPages.reads(projected.forms().get(0))) {
                        tried = true;
                        try {
                            IntegerPages.values(
                                    rowGroup.getPageReader(projected.descriptors()[0]),
                                    projected.descriptors()[0],
                                    projected.forms().get(0),
                                    first,
                                    block::integral);
                            first += rows;
                            continue;
                        } catch (IntegerPages.NotHandled e) {
                            // Pages it does not know: the group is read again by the column
                            // reader, which skips the rows handed over already.
                        }
                    }
                    if (tried) {
                        try (PageReadStore again = reader.readRowGroup(group)) {
                            readGenerally(again, rows, first, projected, block);
                        }
                    } else {
                        readGenerally(rowGroup, rows, first, projected, block);
                    }
                    first += rows;
                }
            }
            block.flush();
            return OptionalLong.of(first);
        }
    }

    /**
     * One row group through parquet-java's column reader, a reader per key column in step; rows
     * before {@code block.next} were handed over already and are skipped.
     */
    private void readGenerally(
            PageReadStore rowGroup,
            int rows,
            long first,
            ProjectedKeyColumns projected,
            Block block) {
        int width = columns.size();
        KeyIdentity.Hasher hasher = new KeyIdentity.Hasher();
        IdentityConverter[] converters = new IdentityConverter[width];
        ColumnReaderImpl[] readers = new ColumnReaderImpl[width];
        int[] present = new int[width];
        for (int c = 0; c < width; c++) {
            ColumnDescriptor descriptor = projected.descriptors()[c];
            converters[c] =
                    IdentityConverter.of(projected.forms().get(c), hasher, width == 1, integral);
            readers[c] =
                    new ColumnReaderImpl(
                            descriptor, rowGroup.getPageReader(descriptor), converters[c], null);
            present[c] = descriptor.getMaxDefinitionLevel();
        }
        for (int row = 0; row < rows; row++) {
            long position = first + row;
            boolean keyed = position >= block.next;
            for (int c = 0; keyed && c < width; c++) {
                keyed = readers[c].getCurrentDefinitionLevel() == present[c];
            }
            if (keyed) {
                hasher.start();
                for (int c = 0; c < width; c++) {
                    converters[c].complete = false;
                    readers[c].writeCurrentValueToConverter();
                }
                if (width == 1 && converters[0].complete) {
                    block.add(converters[0].high, converters[0].low, position);
                } else {
                    hasher.finish();
                    block.add(hasher.high(), hasher.low(), position);
                }
            }
            for (int c = 0; c < width; c++) {
                readers[c].consume();
            }
        }
    }

    /** The rows not yet handed over. */
    private static final class Block {
        private final KeyIdentitySink sink;
        private final long[] high = new long[BLOCK];
        private final long[] low = new long[BLOCK];
        private final long[] positions = new long[BLOCK];
        private int count;

        /** The position after the last row taken. */
        private long next;

        Block(KeyIdentitySink sink) {
            this.sink = sink;
        }

        void integral(long position, long value) {
            add(value, 0, position);
        }

        void add(long keyHigh, long keyLow, long position) {
            high[count] = keyHigh;
            low[count] = keyLow;
            positions[count] = position;
            next = position + 1;
            if (++count == BLOCK) {
                flush();
            }
        }

        void flush() {
            if (count > 0) {
                sink.accept(high, low, positions, count);
                count = 0;
            }
        }
    }
}
