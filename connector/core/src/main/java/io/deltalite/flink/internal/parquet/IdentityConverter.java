package io.deltalite.flink.internal.parquet;

import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.value.KeyIdentity;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Receives the values of one key column from parquet-java's column reader and feeds each, in the
 * form the engine holds it, to the {@link KeyIdentity.Hasher} of the row's key — or, for the single
 * column of an integral key, takes the value itself as the identity. The column of a single-column
 * key has each dictionary entry's identity computed once, when the dictionary arrives.
 */
abstract class IdentityConverter extends PrimitiveConverter {
    final KeyIdentity.Hasher hasher;

    /** Whether this column is the whole key (then dictionary entries are identified once). */
    private final boolean alone;

    private Dictionary dictionary;
    private long[] entryHigh;
    private long[] entryLow;

    /** Whether the last value set {@link #high} and {@link #low} itself (else: the hasher's). */
    boolean complete;

    long high;
    long low;

    IdentityConverter(KeyIdentity.Hasher hasher, boolean alone) {
        this.hasher = hasher;
        this.alone = alone;
    }

    /**
     * The converter of a column of {@code form}; {@code integral} for the single column of a key
     * identified by its value.
     */
    static IdentityConverter of(
            KeyColumnForm form, KeyIdentity.Hasher hasher, boolean alone, boolean integral) {
        if (integral) {
            return new Integral(hasher, form);
        }
        if (form.type() instanceof ValueType.Decimal) {
            return new Decimals(hasher, alone, form);
        }
        return switch (form.physical()) {
            case INT64, INT32 -> new Integers(hasher, alone, form);
            case FLOAT -> new Floats(hasher, alone);
            case DOUBLE -> new Doubles(hasher, alone);
            case BOOLEAN -> new Booleans(hasher, alone);
            case BINARY ->
                    ((ValueType.Primitive) form.type()).kind() == ValueType.Kind.STRING
                            ? new Strings(hasher, alone)
                            : new Binaries(hasher, alone);
            default -> throw new IllegalArgumentException("no converter for " + form);
        };
    }

    @Override
    public boolean hasDictionarySupport() {
        return true;
    }

    @Override
    public void setDictionary(Dictionary dictionary) {
        this.dictionary = dictionary;
        if (!alone) {
            return;
        }
        int entries = dictionary.getMaxId() + 1;
        entryHigh = new long[entries];
        entryLow = new long[entries];
        for (int id = 0; id < entries; id++) {
            complete = false;
            hasher.start();
            entry(dictionary, id);
            if (!complete) {
                hasher.finish();
                high = hasher.high();
                low = hasher.low();
            }
            entryHigh[id] = high;
            entryLow[id] = low;
        }
    }

    @Override
    public void addValueFromDictionary(int dictionaryId) {
        if (alone) {
            complete = true;
            high = entryHigh[dictionaryId];
            low = entryLow[dictionaryId];
        } else {
            entry(dictionary, dictionaryId);
        }
    }

    /** Takes dictionary entry {@code id} as the column's value. */
    abstract void entry(Dictionary dictionary, int id);

    private static final class Integral extends IdentityConverter {
        private final KeyColumnForm form;

        Integral(KeyIdentity.Hasher hasher, KeyColumnForm form) {
            super(hasher, true);
            this.form = form;
        }

        @Override
        public void addLong(long value) {
            complete = true;
            high = value;
            low = 0;
        }

        @Override
        public void addInt(int value) {
            addLong(form.fromInt(value));
        }

        @Override
        void entry(Dictionary dictionary, int id) {
            if (form.physical() == PrimitiveTypeName.INT64) {
                addLong(dictionary.decodeToLong(id));
            } else {
                addInt(dictionary.decodeToInt(id));
            }
        }
    }

    private static final class Integers extends IdentityConverter {
        private final KeyColumnForm form;

        Integers(KeyIdentity.Hasher hasher, boolean alone, KeyColumnForm form) {
            super(hasher, alone);
            this.form = form;
        }

        @Override
        public void addLong(long value) {
            hasher.integer(value);
        }

        @Override
        public void addInt(int value) {
            hasher.integer(form.fromInt(value));
        }

        @Override
        void entry(Dictionary dictionary, int id) {
            if (form.physical() == PrimitiveTypeName.INT64) {
                addLong(dictionary.decodeToLong(id));
            } else {
                addInt(dictionary.decodeToInt(id));
            }
        }
    }

    /** A decimal of the table's scale (the form requires the file's to be the same). */
    private static final class Decimals extends IdentityConverter {
        private final int scale;
        private final PrimitiveTypeName physical;

        Decimals(KeyIdentity.Hasher hasher, boolean alone, KeyColumnForm form) {
            super(hasher, alone);
            this.scale = ((ValueType.Decimal) form.type()).scale();
            this.physical = form.physical();
        }

        @Override
        public void addLong(long unscaled) {
            hasher.decimal(scale, unscaled);
        }

        @Override
        public void addInt(int unscaled) {
            hasher.decimal(scale, unscaled);
        }

        @Override
        public void addBinary(Binary unscaled) {
            hasher.decimal(scale, unscaled.toByteBuffer());
        }

        @Override
        void entry(Dictionary dictionary, int id) {
            switch (physical) {
                case INT64 -> addLong(dictionary.decodeToLong(id));
                case INT32 -> addInt(dictionary.decodeToInt(id));
                default -> addBinary(dictionary.decodeToBinary(id));
            }
        }
    }

    private static final class Floats extends IdentityConverter {
        Floats(KeyIdentity.Hasher hasher, boolean alone) {
            super(hasher, alone);
        }

        @Override
        public void addFloat(float value) {
            hasher.floating(value);
        }

        @Override
        void entry(Dictionary dictionary, int id) {
            addFloat(dictionary.decodeToFloat(id));
        }
    }

    private static final class Doubles extends IdentityConverter {
        Doubles(KeyIdentity.Hasher hasher, boolean alone) {
            super(hasher, alone);
        }

        @Override
        public void addDouble(double value) {
            hasher.floating(value);
        }

        @Override
        void entry(Dictionary dictionary, int id) {
            addDouble(dictionary.decodeToDouble(id));
        }
    }

    private static final class Booleans extends IdentityConverter {
        Booleans(KeyIdentity.Hasher hasher, boolean alone) {
            super(hasher, alone);
        }

        @Override
        public void addBoolean(boolean value) {
            hasher.bool(value);
        }

        @Override
        void entry(Dictionary dictionary, int id) {
            addBoolean(dictionary.decodeToBoolean(id));
        }
    }

    private static final class Strings extends IdentityConverter {
        Strings(KeyIdentity.Hasher hasher, boolean alone) {
            super(hasher, alone);
        }

        @Override
        public void addBinary(Binary value) {
            hasher.utf8(value.toByteBuffer());
        }

        @Override
        void entry(Dictionary dictionary, int id) {
            addBinary(dictionary.decodeToBinary(id));
        }
    }

    private static final class Binaries extends IdentityConverter {
        Binaries(KeyIdentity.Hasher hasher, boolean alone) {
            super(hasher, alone);
        }

        @Override
        public void addBinary(Binary value) {
            hasher.binary(value.toByteBuffer());
        }

        @Override
        void entry(Dictionary dictionary, int id) {
            addBinary(dictionary.decodeToBinary(id));
        }
    }
}
