package io.deltalite.flink.internal.merge.schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The value of a column default written as a Spark SQL literal (Delta's {@code CURRENT_DEFAULT},
 * kept as the text of the {@code DEFAULT} clause), in the representation rows use for the column's
 * type, as Spark's {@code INSERT} stores it: {@code NULL}, {@code true}/{@code false}, numbers
 * (with Spark's suffixes {@code Y S L BD F D}: exact into integral and decimal columns, rounded as
 * Spark rounds into {@code float} and {@code double} ones), quoted strings, {@code DATE
 * 'yyyy-MM-dd'} (or the quoted date) and {@code X'hex'}. Anything else — a function, a cast, a
 * timestamp (whose meaning depends on a session time zone), a number that does not fit the type or
 * that Spark would round into it — is {@link IllegalArgumentException}: the sink refuses the table
 * rather than store a value Spark would not.
 */
public final class DefaultLiteral {
    private static final Pattern NUMBER =
            Pattern.compile("([+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)(Y|S|L|BD|F|D)?");
    private static final Pattern DATE = Pattern.compile("DATE\\s*'([^']*)'");
    private static final Pattern HEX = Pattern.compile("X'([0-9A-Fa-f]*)'");

    private DefaultLiteral() {}

    /**
     * The value of {@code sql} as a {@code type} column stores it: null for {@code NULL}.
     *
     * @throws IllegalArgumentException when {@code sql} is not such a literal, saying why
     */
    public static Object parse(String sql, ValueType type) {
        String text = sql.trim();
        if (text.equalsIgnoreCase("NULL")) {
            return null;
        }
        if (type instanceof ValueType.Decimal decimal) {
            BigDecimal value = exactNumber(text);
            BigDecimal scaled;
            try {
                scaled = value.setScale(decimal.scale());
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(
                        text + " has more decimal places than " + type + " keeps");
            }
            if (scaled.precision() > decimal.precision()) {
                throw new IllegalArgumentException(text + " does not fit " + type);
            }
            return scaled;
        }
        if (!(type instanceof ValueType.Primitive primitive)) {
            throw new IllegalArgumentException("defaults of " + type + " columns are not literals");
        }
        return switch (primitive.kind()) {
            case BOOLEAN -> bool(text);
            case TINYINT -> (byte) integral(text, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case SMALLINT -> (short) integral(text, Short.MIN_VALUE, Short.MAX_VALUE);
            case INT -> (int) integral(text, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case BIGINT -> integral(text, Long.MIN_VALUE, Long.MAX_VALUE);
            case FLOAT -> floatValue(text);
            case DOUBLE -> doubleValue(text);
            case STRING -> string(text);
            case BINARY -> binary(text);
            case DATE -> date(text);
            case TIMESTAMP, TIMESTAMP_NTZ ->
                    throw new IllegalArgumentException(
                            "a timestamp default depends on the time zone of the session that"
                                    + " evaluates it");
        };
    }

    private static Boolean bool(String text) {
        if (text.equalsIgnoreCase("true")) {
            return true;
        }
        if (text.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(text + " is not a boolean literal");
    }

    /**
     * A number literal: its digits and Spark's type of it — FLOAT ({@code F}), DOUBLE ({@code D},
     * or an exponent), an integral type ({@code Y S L}, or no point), or DECIMAL ({@code BD}, or a
     * point).
     */
    private record Number(BigDecimal value, String digits, char kind) {}

    private static Number number(String text) {
        Matcher matcher = NUMBER.matcher(text.toUpperCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw new IllegalArgumentException(text + " is not a number literal");
        }
        String digits = matcher.group(1);
        String suffix = matcher.group(2) == null ? "" : matcher.group(2);
        char kind;
        if (suffix.equals("F")) {
            kind = 'F';
        } else if (suffix.equals("D") || (suffix.isEmpty() && digits.contains("E"))) {
            kind = 'D';
        } else if (suffix.equals("BD") || (suffix.isEmpty() && digits.contains("."))) {
            kind = 'M';
        } else {
            kind = 'I';
        }
        return new Number(new BigDecimal(digits), digits, kind);
    }

    /**
     * An integral or decimal literal's exact value; a FLOAT or DOUBLE literal is refused for an
     * exact column (Spark would round it through binary floating point first).
     */
    private static BigDecimal exactNumber(String text) {
        Number number = number(text);
        if (number.kind() == 'F' || number.kind() == 'D') {
            throw new IllegalArgumentException(
                    text + " is a floating-point literal, which Spark rounds before casting");
        }
        return number.value();
    }

    private static long integral(String text, long min, long max) {
        BigDecimal value = exactNumber(text);
        BigInteger exact;
        try {
            exact = value.toBigIntegerExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(text + " is not a whole number");
        }
        if (exact.compareTo(BigInteger.valueOf(min)) < 0
                || exact.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new IllegalArgumentException(text + " is out of the column type's range");
        }
        return exact.longValueExact();
    }

    /**
     * As Spark: a FLOAT literal parsed as a float, a DOUBLE literal narrowed from its double, an
     * exact literal rounded once — refused where rounding it through a double first would give
     * another float (Spark's cast path is not pinned down here).
     */
    private static Float floatValue(String text) {
        Number number = number(text);
        return switch (number.kind()) {
            case 'F' -> Float.parseFloat(number.digits());
            case 'D' -> (float) Double.parseDouble(number.digits());
            default -> {
                float once = number.value().floatValue();
                if (once != (float) number.value().doubleValue()) {
                    throw new IllegalArgumentException(
                            text + " rounds to a different float through a double");
                }
                yield once;
            }
        };
    }

    /** As Spark: a FLOAT literal widened, a DOUBLE literal parsed, an exact one rounded once. */
    private static Double doubleValue(String text) {
        Number number = number(text);
        return switch (number.kind()) {
            case 'F' -> (double) Float.parseFloat(number.digits());
            case 'D' -> Double.parseDouble(number.digits());
            default -> number.value().doubleValue();
        };
    }

    /** A single- or double-quoted string with Spark's escapes of quotes, backslash and \n \t \r. */
    private static String string(String text) {
        if (text.length() < 2
                || (text.charAt(0) != '\'' && text.charAt(0) != '"')
                || text.charAt(text.length() - 1) != text.charAt(0)) {
            throw new IllegalArgumentException(text + " is not a quoted string literal");
        }
        char quote = text.charAt(0);
        StringBuilder value = new StringBuilder();
        for (int i = 1; i < text.length() - 1; i++) {
            char c = text.charAt(i);
            if (c == quote) {
                throw new IllegalArgumentException(text + " is more than one string literal");
            }
            if (c != '\\') {
                value.append(c);
                continue;
            }
            if (++i >= text.length() - 1) {
                throw new IllegalArgumentException(text + " ends in a backslash");
            }
            char escaped = text.charAt(i);
            switch (escaped) {
                case '\\', '\'', '"' -> value.append(escaped);
                case 'n' -> value.append('\n');
                case 't' -> value.append('\t');
                case 'r' -> value.append('\r');
                default ->
                        throw new IllegalArgumentException(
                                text
                                        + " uses the escape \\"
                                        + escaped
                                        + ", which the sink does"
                                        + " not read");
            }
        }
        return value.toString();
    }

    private static byte[] binary(String text) {
        Matcher matcher = HEX.matcher(text);
        if (matcher.matches() && matcher.group(1).length() % 2 == 0) {
            return HexFormat.of().parseHex(matcher.group(1));
        }
        if (text.startsWith("'") || text.startsWith("\"")) {
            return string(text).getBytes(StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException(text + " is not a binary literal");
    }

    /** {@code DATE 'yyyy-MM-dd'}, or the quoted text alone (Spark casts it to the date). */
    private static Integer date(String text) {
        Matcher matcher = DATE.matcher(text.toUpperCase(Locale.ROOT));
        String date;
        if (matcher.matches()) {
            date = matcher.group(1);
        } else if (text.startsWith("'") || text.startsWith("\"")) {
            date = string(text);
        } else {
            throw new IllegalArgumentException(text + " is not a DATE 'yyyy-MM-dd' literal");
        }
        try {
            return (int) LocalDate.parse(date).toEpochDay();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(text + " is not a date");
        }
    }
}
