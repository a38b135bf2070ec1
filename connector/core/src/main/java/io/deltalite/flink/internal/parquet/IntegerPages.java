package io.deltalite.flink.internal.parquet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Decodes the pages of one {@code INT64} or {@code INT32} key column chunk itself, a page at a
 * time: plain values straight out of the page buffer, dictionary pages as ids into a table of the
 * dictionary entries' key numbers, each entry looked up once. This is the common case of a probe —
 * a single integer key in files deltalite wrote — and skips the per-value calls of parquet-java's
 * record-level column reader; the index reads every value of a file the same way ({@link #values}).
 * Pages it does not know (v2 data pages, other encodings) make it give up with {@link NotHandled}
 * before it has answered anything; the caller then reads the file with the general reader,
 * discarding what it found so far.
 */
final class IntegerPages {
    /** A page this decoder does not know. */
    static final class NotHandled extends Exception {
        private static final long serialVersionUID = 1L;

        NotHandled(String what) {
            super(what, null, false, false);
        }
    }

    /** Receives each row whose key value is a changed key; answers true to stop. */
    interface Hits {
        boolean hit(long position, int key);
    }

    /** Receives every row whose value is not null, with its value (narrowed as the form says). */
    interface Values {
        void value(long position, long value);
    }

    private IntegerPages() {}

    /** Whether this decoder reads columns of {@code form}. */
    static boolean reads(KeyColumnForm form) {
        return form.physical() == PrimitiveType.PrimitiveTypeName.INT64
                || form.physical() == PrimitiveType.PrimitiveTypeName.INT32;
    }

    /**
     * Hands each row of the chunk whose value is one of the keys in {@code table} to {@code hits};
     * true when {@code hits} stopped it.
     *
     * @param first the position of the chunk's first row in its file
     */
    static boolean scan(
            PageReader pages,
            ColumnDescriptor column,
            KeyColumnForm form,
            LongIdTable table,
            long first,
            Hits hits)
            throws IOException, NotHandled {
        return walk(pages, column, form, first, new Probe(table, hits));
    }

    /**
     * Hands every row of the chunk whose value is not null to {@code values}, in row order.
     *
     * @param first the position of the chunk's first row in its file
     */
    static void values(
            PageReader pages,
            ColumnDescriptor column,
            KeyColumnForm form,
            long first,
            Values values)
            throws IOException, NotHandled {
        walk(pages, column, form, first, new Stream(values));
    }

    /** What a walk over a chunk's pages does with what it decodes. */
    private interface Visitor {
        /** The chunk's dictionary, its entries as values, before any page that uses it. */
        void dictionary(long[] entries);

        /** A plain value; true to stop. */
        boolean value(long position, long value);

        /** A dictionary id; true to stop. */
        boolean entry(long position, int id);
    }

    /** Tests each value against the changed keys, each dictionary entry once. */
    private static final class Probe implements Visitor {
        private final LongIdTable table;
        private final Hits hits;
        private int[] dictionaryKeys;

        Probe(LongIdTable table, Hits hits) {
            this.table = table;
            this.hits = hits;
        }

        @Override
        public void dictionary(long[] entries) {
            dictionaryKeys = new int[entries.length];
            for (int id = 0; id < entries.length; id++) {
                dictionaryKeys[id] = table.find(entries[id]);
            }
        }

        @Override
        public boolean value(long position, long value) {
            int key = table.find(value);
            return key >= 0 && hits.hit(position, key);
        }

        @Override
        public boolean entry(long position, int id) {
            int key = dictionaryKeys[id];
            return key >= 0 && hits.hit(position, key);
        }
    }

    /** Hands on every value. */
    private static final class Stream implements Visitor {
        private final Values values;
        private long[] entries;

        Stream(Values values) {
            this.values = values;
        }

        @Override
        public void dictionary(long[] entries) {
            this.entries = entries;
        }

        @Override
        public boolean value(long position, long value) {
            values.value(position, value);
            return false;
        }

        @Override
        public boolean entry(long position, int id) {
            values.value(position, entries[id]);
            return false;
        }
    }

    private static boolean walk(
            PageReader pages,
            ColumnDescriptor column,
            KeyColumnForm form,
            long first,
            Visitor visitor)
            throws IOException, NotHandled {
        boolean longs = form.physical() == PrimitiveType.PrimitiveTypeName.INT64;
        boolean dictionaryRead = false;
        DictionaryPage dictionaryPage = pages.readDictionaryPage();
        if (dictionaryPage != null) {
            Dictionary dictionary =
                    dictionaryPage.getEncoding().initDictionary(column, dictionaryPage);
            long[] entries = new long[dictionary.getMaxId() + 1];
            for (int id = 0; id < entries.length; id++) {
                entries[id] =
                        longs
                                ? dictionary.decodeToLong(id)
                                : form.fromInt(dictionary.decodeToInt(id));
            }
            visitor.dictionary(entries);
            dictionaryRead = true;
        }
        int maxDefinition = column.getMaxDefinitionLevel();
        long position = first;
        DataPage page;
        while ((page = pages.readPage()) != null) {
            if (!(page instanceof DataPageV1 v1)) {
                throw new NotHandled("data page v2");
            }
            int count = v1.getValueCount();
            ByteBufferInputStream in = ByteBufferInputStream.wrap(v1.getBytes().toByteBuffer());
            RunLengthBitPackingHybridDecoder definitions = null;
            if (maxDefinition > 0) {
                if (v1.getDlEncoding() != Encoding.RLE) {
                    throw new NotHandled("definition levels in " + v1.getDlEncoding());
                }
                int length = BytesUtils.readIntLittleEndian(in);
                definitions =
                        new RunLengthBitPackingHybridDecoder(
                                BytesUtils.getWidthFromMaxInt(maxDefinition),
                                ByteBufferInputStream.wrap(in.slice(length)));
            }
            Encoding encoding = v1.getValueEncoding();
            if (encoding == Encoding.PLAIN) {
                ByteBuffer values = in.slice(in.available()).order(ByteOrder.LITTLE_ENDIAN);
                int offset = values.position();
                for (int i = 0; i < count; i++) {
                    if (definitions != null && definitions.readInt() != maxDefinition) {
                        continue;
                    }
                    long value;
                    if (longs) {
                        value = values.getLong(offset);
                        offset += 8;
                    } else {
                        value = form.fromInt(values.getInt(offset));
                        offset += 4;
                    }
                    if (visitor.value(position + i, value)) {
                        return true;
                    }
                }
            } else if (encoding.usesDictionary() && dictionaryRead) {
                int bitWidth = BytesUtils.readIntLittleEndianOnOneByte(in);
                RunLengthBitPackingHybridDecoder ids =
                        new RunLengthBitPackingHybridDecoder(bitWidth, in);
                for (int i = 0; i < count; i++) {
                    if (definitions != null && definitions.readInt() != maxDefinition) {
                        continue;
                    }
                    if (visitor.entry(position + i, ids.readInt())) {
                        return true;
                    }
                }
            } else {
                throw new NotHandled("values in " + encoding);
            }
            position += count;
        }
        return false;
    }
}
