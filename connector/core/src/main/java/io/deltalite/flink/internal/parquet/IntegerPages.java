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
 * record-level column reader. Pages it does not know (v2 data pages, other encodings) make it give
 * up with {@link NotHandled} before it has answered anything; the caller then reads the file with
 * the general reader, discarding what it found so far.
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
        boolean longs = form.physical() == PrimitiveType.PrimitiveTypeName.INT64;
        int[] dictionaryKeys = null;
        DictionaryPage dictionaryPage = pages.readDictionaryPage();
        if (dictionaryPage != null) {
            Dictionary dictionary =
                    dictionaryPage.getEncoding().initDictionary(column, dictionaryPage);
            dictionaryKeys = new int[dictionary.getMaxId() + 1];
            for (int id = 0; id < dictionaryKeys.length; id++) {
                dictionaryKeys[id] =
                        table.find(
                                longs
                                        ? dictionary.decodeToLong(id)
                                        : form.fromInt(dictionary.decodeToInt(id)));
            }
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
                    int key = table.find(value);
                    if (key >= 0 && hits.hit(position + i, key)) {
                        return true;
                    }
                }
            } else if (encoding.usesDictionary() && dictionaryKeys != null) {
                int bitWidth = BytesUtils.readIntLittleEndianOnOneByte(in);
                RunLengthBitPackingHybridDecoder ids =
                        new RunLengthBitPackingHybridDecoder(bitWidth, in);
                for (int i = 0; i < count; i++) {
                    if (definitions != null && definitions.readInt() != maxDefinition) {
                        continue;
                    }
                    int key = dictionaryKeys[ids.readInt()];
                    if (key >= 0 && hits.hit(position + i, key)) {
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
