package io.deltalite.flink.internal.merge.schema;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * The column types the merge engine understands, independent of Flink and of Delta Kernel.
 *
 * <p>Values travel through the engine as plain Java objects:
 *
 * <table>
 *   <caption>Java representation of each type</caption>
 *   <tr><td>BOOLEAN</td><td>{@link Boolean}</td></tr>
 *   <tr><td>TINYINT, SMALLINT, INT, BIGINT</td><td>{@link Byte}, {@link Short}, {@link Integer},
 *       {@link Long}</td></tr>
 *   <tr><td>FLOAT, DOUBLE</td><td>{@link Float}, {@link Double}</td></tr>
 *   <tr><td>DECIMAL(p, s)</td><td>{@link java.math.BigDecimal} with scale exactly {@code s}</td></tr>
 *   <tr><td>STRING</td><td>{@link String}</td></tr>
 *   <tr><td>BINARY</td><td>{@code byte[]}</td></tr>
 *   <tr><td>DATE</td><td>{@link Integer} days since 1970-01-01</td></tr>
 *   <tr><td>TIMESTAMP, TIMESTAMP_NTZ</td><td>{@link Long} microseconds since the epoch</td></tr>
 *   <tr><td>STRUCT</td><td>{@code Object[]} in field order</td></tr>
 *   <tr><td>ARRAY</td><td>{@link java.util.List}</td></tr>
 *   <tr><td>MAP</td><td>{@link java.util.Map} (insertion-ordered; keys are never null)</td></tr>
 * </table>
 */
public sealed interface ValueType extends Serializable
        permits ValueType.Primitive,
                ValueType.Decimal,
                ValueType.Struct,
                ValueType.Array,
                ValueType.Map {

    /** The types without parameters. */
    enum Kind {
        BOOLEAN,
        TINYINT,
        SMALLINT,
        INT,
        BIGINT,
        FLOAT,
        DOUBLE,
        STRING,
        BINARY,
        DATE,
        TIMESTAMP,
        TIMESTAMP_NTZ
    }

    /** A type without parameters. */
    record Primitive(Kind kind) implements ValueType {
        public Primitive {
            Objects.requireNonNull(kind, "kind");
        }

        @Override
        public String toString() {
            return kind.name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A decimal number with at most 38 digits. */
    record Decimal(int precision, int scale) implements ValueType {
        public static final int MAX_PRECISION = 38;

        public Decimal {
            if (precision < 1 || precision > MAX_PRECISION || scale < 0 || scale > precision) {
                throw new IllegalArgumentException(
                        "decimal("
                                + precision
                                + ", "
                                + scale
                                + ") is not supported: precision must be"
                                + " 1..38 and scale 0..precision");
            }
        }

        @Override
        public String toString() {
            return "decimal(" + precision + "," + scale + ")";
        }
    }

    /** A nested row. */
    record Struct(List<Field> fields) implements ValueType {
        public Struct {
            fields = List.copyOf(fields);
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("struct<");
            for (int i = 0; i < fields.size(); i++) {
                text.append(i == 0 ? "" : ", ").append(fields.get(i));
            }
            return text.append('>').toString();
        }
    }

    /** A list of elements of one type. */
    record Array(ValueType elementType, boolean containsNull) implements ValueType {
        public Array {
            Objects.requireNonNull(elementType, "elementType");
        }

        @Override
        public String toString() {
            return "array<" + elementType + ">";
        }
    }

    /** A map; keys are never null. */
    record Map(ValueType keyType, ValueType valueType, boolean valueContainsNull)
            implements ValueType {
        public Map {
            Objects.requireNonNull(keyType, "keyType");
            Objects.requireNonNull(valueType, "valueType");
        }

        @Override
        public String toString() {
            return "map<" + keyType + ", " + valueType + ">";
        }
    }

    /** A named field of a struct or of the table. */
    record Field(String name, ValueType type, boolean nullable) implements Serializable {
        public Field {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
            if (name.isEmpty()) {
                throw new IllegalArgumentException("a column name must not be empty");
            }
        }

        @Override
        public String toString() {
            return name + " " + type + (nullable ? "" : " not null");
        }
    }

    static Primitive of(Kind kind) {
        return new Primitive(kind);
    }

    /** Whether values of this type can be a primary-key column. */
    default boolean isKeyable() {
        return this instanceof Decimal || this instanceof Primitive;
    }

    /** Whether values of this type can be a partition column. */
    default boolean isPartitionable() {
        return this instanceof Decimal
                || (this instanceof Primitive primitive && primitive.kind() != Kind.BINARY);
    }
}
