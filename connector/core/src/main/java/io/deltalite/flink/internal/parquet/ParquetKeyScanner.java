package io.deltalite.flink.internal.parquet;

import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.table.ChangedKeys;
import io.deltalite.flink.internal.merge.table.KeyHits;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.impl.ColumnReaderImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.MessageType;

/**
 * The exact key probe over parquet-java's column reader: it reads only the match-key columns of a
 * data file, row group by row group, and tests each value against the changed keys in primitive
 * hash tables ({@link KeyTables}) — no row objects, no boxing, and a dictionary-encoded chunk has
 * each dictionary entry tested once. Rows a file's deletion vector deletes and rows with a null key
 * column never match.
 *
 * <p>It answers what the row-wise probe through Kernel answers, for the layouts it knows ({@link
 * KeyColumnForm}); for any other file, and for string keys it cannot compare by bytes, it answers
 * empty and the caller reads the file the row-wise way. Never a guess.
 */
public final class ParquetKeyScanner {
    private final List<String> columns;
    private final List<ValueType> types;
    private final boolean decodePages;

    /**
     * @param columns the match-key columns, in key order, as named in the data files
     * @param types their types in the table
     */
    public ParquetKeyScanner(List<String> columns, List<ValueType> types) {
        this(columns, types, true);
    }

    /**
     * @param decodePages whether a single integer key column is decoded page by page ({@link
     *     IntegerPages}); false reads every column with parquet-java's record-level column reader
     *     (to compare the two)
     */
    public ParquetKeyScanner(List<String> columns, List<ValueType> types, boolean decodePages) {
        this.columns = List.copyOf(columns);
        this.types = List.copyOf(types);
        this.decodePages = decodePages;
    }

    /**
     * The live rows of {@code file} whose key is one of {@code keys} (see {@link
     * io.deltalite.flink.internal.merge.table.DataFileStore#locateKeys}), or empty when this reader
     * cannot compare its key columns exactly.
     *
     * @param deleted the file's deletion vector (empty when it has none)
     * @param firstOnly stop at the first hit
     */
    public Optional<KeyHits> locate(
            InputFile file, ChangedKeys keys, DeletionVector deleted, boolean firstOnly)
            throws IOException {
        try {
            return locate(file, keys, deleted, firstOnly, decodePages);
        } catch (IntegerPages.NotHandled e) {
            return locateGenerally(file, keys, deleted, firstOnly);
        }
    }

    private Optional<KeyHits> locateGenerally(
            InputFile file, ChangedKeys keys, DeletionVector deleted, boolean firstOnly)
            throws IOException {
        try {
            return locate(file, keys, deleted, firstOnly, false);
        } catch (IntegerPages.NotHandled e) {
            throw new IllegalStateException("the general reader reads every page", e);
        }
    }

    /**
     * @param decodePages whether integer keys may be decoded page by page ({@link IntegerPages})
     */
    private Optional<KeyHits> locate(
            InputFile file,
            ChangedKeys keys,
            DeletionVector deleted,
            boolean firstOnly,
            boolean decodePages)
            throws IOException, IntegerPages.NotHandled {
        try (ParquetFileReader reader = ProjectedKeyColumns.open(file)) {
            MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            ProjectedKeyColumns projected = ProjectedKeyColumns.of(schema, columns, types);
            if (projected == null) {
                return Optional.empty();
            }
            List<KeyColumnForm> forms = projected.forms();
            ColumnDescriptor[] descriptors = projected.descriptors();
            KeyTables tables =
                    keys.prepared(
                            new KeyTables.Layout(List.copyOf(forms)),
                            changed -> KeyTables.build(changed, forms));
            if (!tables.usable()) {
                return Optional.empty();
            }
            long physicalRows = 0;
            for (BlockMetaData block : reader.getRowGroups()) {
                physicalRows += block.getRowCount();
            }
            if (tables.matchesNothing()) {
                return Optional.of(new KeyHits(new long[0], Set.of(), physicalRows));
            }
            reader.setRequestedSchema(projected.projection());
            return Optional.of(
                    new Search(tables, forms, descriptors, deleted, firstOnly, keys, decodePages)
                            .run(reader, physicalRows));
        }
    }

    /** One file's search: the hits so far. */
    private static final class Search {
        private final KeyTables tables;
        private final List<KeyColumnForm> forms;
        private final ColumnDescriptor[] descriptors;
        private final DeletionVector deleted;
        private final boolean firstOnly;
        private final ChangedKeys keys;
        private final boolean decodePages;
        private long[] positions = new long[16];
        private int[] hitKeys = new int[16];
        private int count;

        Search(
                KeyTables tables,
                List<KeyColumnForm> forms,
                ColumnDescriptor[] descriptors,
                DeletionVector deleted,
                boolean firstOnly,
                ChangedKeys keys,
                boolean decodePages) {
            this.tables = tables;
            this.forms = forms;
            this.descriptors = descriptors;
            this.deleted = deleted;
            this.firstOnly = firstOnly;
            this.keys = keys;
            this.decodePages = decodePages;
        }

        KeyHits run(ParquetFileReader reader, long physicalRows)
                throws IOException, IntegerPages.NotHandled {
            long first = 0;
            PageReadStore pages;
            while ((pages = reader.readNextRowGroup()) != null) {
                try (PageReadStore rowGroup = pages) {
                    int rows = Math.toIntExact(rowGroup.getRowCount());
                    boolean done;
                    if (tables.width() > 1) {
                        done = scanComposite(rowGroup, rows, first);
                    } else if (decodePages && IntegerPages.reads(forms.get(0))) {
                        done =
                                IntegerPages.scan(
                                        rowGroup.getPageReader(descriptors[0]),
                                        descriptors[0],
                                        forms.get(0),
                                        (LongIdTable) tables.column(0),
                                        first,
                                        this::hit);
                    } else {
                        done = scanSingle(rowGroup, rows, first);
                    }
                    if (done) {
                        return result(-1);
                    }
                    first += rows;
                }
            }
            return result(physicalRows);
        }

        /** A single-column key: tests each value as it is decoded; true when done early. */
        private boolean scanSingle(PageReadStore rowGroup, int rows, long first) {
            ComponentConverter converter = ComponentConverter.of(forms.get(0), tables.column(0));
            ColumnDescriptor descriptor = descriptors[0];
            ColumnReaderImpl reader =
                    new ColumnReaderImpl(
                            descriptor, rowGroup.getPageReader(descriptor), converter, null);
            int present = descriptor.getMaxDefinitionLevel();
            for (int row = 0; row < rows; row++) {
                if (reader.getCurrentDefinitionLevel() == present) {
                    reader.writeCurrentValueToConverter();
                    int key = converter.current;
                    if (key >= 0 && hit(first + row, key)) {
                        return true;
                    }
                }
                reader.consume();
            }
            return false;
        }

        /**
         * A composite key: each column's values become component numbers (-1 for a null or a value
         * no key has in that column), then each row's tuple of numbers is looked up.
         */
        private boolean scanComposite(PageReadStore rowGroup, int rows, long first) {
            int width = tables.width();
            int[][] numbers = new int[width][];
            for (int c = 0; c < width; c++) {
                numbers[c] = new int[rows];
                ComponentConverter converter =
                        ComponentConverter.of(forms.get(c), tables.column(c));
                ColumnDescriptor descriptor = descriptors[c];
                ColumnReaderImpl reader =
                        new ColumnReaderImpl(
                                descriptor, rowGroup.getPageReader(descriptor), converter, null);
                int present = descriptor.getMaxDefinitionLevel();
                int[] column = numbers[c];
                for (int row = 0; row < rows; row++) {
                    if (reader.getCurrentDefinitionLevel() == present) {
                        reader.writeCurrentValueToConverter();
                        column[row] = converter.current;
                    } else {
                        column[row] = -1;
                    }
                    reader.consume();
                }
            }
            int[] tuple = new int[width];
            rows:
            for (int row = 0; row < rows; row++) {
                for (int c = 0; c < width; c++) {
                    int number = numbers[c][row];
                    if (number < 0) {
                        continue rows;
                    }
                    tuple[c] = number;
                }
                int key = tables.keyOf(tuple);
                if (key >= 0 && hit(first + row, key)) {
                    return true;
                }
            }
            return false;
        }

        /** Records a hit unless the row is deleted; true when the search is done. */
        private boolean hit(long position, int key) {
            if (deleted.contains(position)) {
                return false;
            }
            if (count == positions.length) {
                positions = Arrays.copyOf(positions, count * 2);
                hitKeys = Arrays.copyOf(hitKeys, count * 2);
            }
            positions[count] = position;
            hitKeys[count] = key;
            count++;
            return firstOnly;
        }

        private KeyHits result(long physicalRows) {
            Set<RowKey> found = new HashSet<>();
            for (int i = 0; i < count; i++) {
                found.add(keys.get(hitKeys[i]));
            }
            return new KeyHits(Arrays.copyOf(positions, count), found, physicalRows);
        }
    }
}
