package io.deltalite.flink.internal.parquet;

import java.nio.ByteBuffer;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.PrimitiveConverter;

/**
 * Receives the values of one key column from parquet-java's column reader and leaves in {@link
 * #current} the number of the changed-key value it equals, or -1. A dictionary-encoded column chunk
 * has each dictionary entry looked up once, when the dictionary arrives; its values are then
 * dictionary ids, turned into numbers by an array read.
 */
abstract class ComponentConverter extends PrimitiveConverter {
    /** The number of the last value among the key column's values, or -1. */
    int current = -1;

    private int[] dictionaryNumbers;

    static ComponentConverter of(KeyColumnForm form, Object table) {
        if (form.comparesBytes()) {
            return new Bytes((BytesIdTable) table);
        }
        return switch (form.physical()) {
            case INT64 -> new Longs((LongIdTable) table);
            case INT32 -> new Ints((LongIdTable) table, form);
            case FLOAT -> new Floats((LongIdTable) table);
            case DOUBLE -> new Doubles((LongIdTable) table);
            case BOOLEAN -> new Booleans((LongIdTable) table);
            default -> throw new IllegalArgumentException("no converter for " + form);
        };
    }

    @Override
    public boolean hasDictionarySupport() {
        return true;
    }

    @Override
    public void setDictionary(Dictionary dictionary) {
        int[] numbers = new int[dictionary.getMaxId() + 1];
        for (int id = 0; id < numbers.length; id++) {
            numbers[id] = numberOfEntry(dictionary, id);
        }
        dictionaryNumbers = numbers;
    }

    @Override
    public void addValueFromDictionary(int dictionaryId) {
        current = dictionaryNumbers[dictionaryId];
    }

    abstract int numberOfEntry(Dictionary dictionary, int id);

    private static final class Longs extends ComponentConverter {
        private final LongIdTable table;

        Longs(LongIdTable table) {
            this.table = table;
        }

        @Override
        public void addLong(long value) {
            current = table.find(value);
        }

        @Override
        int numberOfEntry(Dictionary dictionary, int id) {
            return table.find(dictionary.decodeToLong(id));
        }
    }

    private static final class Ints extends ComponentConverter {
        private final LongIdTable table;
        private final KeyColumnForm form;

        Ints(LongIdTable table, KeyColumnForm form) {
            this.table = table;
            this.form = form;
        }

        @Override
        public void addInt(int value) {
            current = table.find(form.fromInt(value));
        }

        @Override
        int numberOfEntry(Dictionary dictionary, int id) {
            return table.find(form.fromInt(dictionary.decodeToInt(id)));
        }
    }

    private static final class Floats extends ComponentConverter {
        private final LongIdTable table;

        Floats(LongIdTable table) {
            this.table = table;
        }

        @Override
        public void addFloat(float value) {
            current = table.find(Float.floatToIntBits(value));
        }

        @Override
        int numberOfEntry(Dictionary dictionary, int id) {
            return table.find(Float.floatToIntBits(dictionary.decodeToFloat(id)));
        }
    }

    private static final class Doubles extends ComponentConverter {
        private final LongIdTable table;

        Doubles(LongIdTable table) {
            this.table = table;
        }

        @Override
        public void addDouble(double value) {
            current = table.find(Double.doubleToLongBits(value));
        }

        @Override
        int numberOfEntry(Dictionary dictionary, int id) {
            return table.find(Double.doubleToLongBits(dictionary.decodeToDouble(id)));
        }
    }

    private static final class Booleans extends ComponentConverter {
        private final LongIdTable table;

        Booleans(LongIdTable table) {
            this.table = table;
        }

        @Override
        public void addBoolean(boolean value) {
            current = table.find(value ? 1 : 0);
        }

        @Override
        int numberOfEntry(Dictionary dictionary, int id) {
            return table.find(dictionary.decodeToBoolean(id) ? 1 : 0);
        }
    }

    private static final class Bytes extends ComponentConverter {
        private final BytesIdTable table;

        Bytes(BytesIdTable table) {
            this.table = table;
        }

        @Override
        public void addBinary(Binary value) {
            current = table.find(value.toByteBuffer());
        }

        @Override
        int numberOfEntry(Dictionary dictionary, int id) {
            ByteBuffer bytes = dictionary.decodeToBinary(id).toByteBuffer();
            return table.find(bytes);
        }
    }
}
