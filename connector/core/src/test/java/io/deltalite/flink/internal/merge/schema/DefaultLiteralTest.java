package io.deltalite.flink.internal.merge.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import java.math.BigDecimal;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Spark SQL literals of column defaults, read exactly in the column's type or refused. */
class DefaultLiteralTest {
    @Test
    void literalsReadAsTheColumnStoresThem() {
        assertThat(DefaultLiteral.parse("42", ValueType.of(Kind.BIGINT))).isEqualTo(42L);
        assertThat(DefaultLiteral.parse("-7", ValueType.of(Kind.INT))).isEqualTo(-7);
        assertThat(DefaultLiteral.parse("3S", ValueType.of(Kind.SMALLINT))).isEqualTo((short) 3);
        assertThat(DefaultLiteral.parse("1Y", ValueType.of(Kind.TINYINT))).isEqualTo((byte) 1);
        assertThat(DefaultLiteral.parse("1.0", ValueType.of(Kind.INT))).isEqualTo(1);
        assertThat(DefaultLiteral.parse("0.1", ValueType.of(Kind.FLOAT))).isEqualTo(0.1f);
        assertThat(DefaultLiteral.parse("2.5D", ValueType.of(Kind.DOUBLE))).isEqualTo(2.5d);
        assertThat(DefaultLiteral.parse("1.5", new ValueType.Decimal(10, 2)))
                .isEqualTo(new BigDecimal("1.50"));
        assertThat(DefaultLiteral.parse("TRUE", ValueType.of(Kind.BOOLEAN))).isEqualTo(true);
        assertThat(DefaultLiteral.parse("'it\\'s new'", ValueType.of(Kind.STRING)))
                .isEqualTo("it's new");
        assertThat(DefaultLiteral.parse("\"a\\nb\"", ValueType.of(Kind.STRING))).isEqualTo("a\nb");
        assertThat(DefaultLiteral.parse("DATE '2024-02-29'", ValueType.of(Kind.DATE)))
                .isEqualTo((int) LocalDate.of(2024, 2, 29).toEpochDay());
        assertThat(DefaultLiteral.parse("'2024-02-29'", ValueType.of(Kind.DATE)))
                .isEqualTo((int) LocalDate.of(2024, 2, 29).toEpochDay());
        assertThat((byte[]) DefaultLiteral.parse("X'0aFF'", ValueType.of(Kind.BINARY)))
                .containsExactly(0x0a, 0xff);
        assertThat(DefaultLiteral.parse("null", ValueType.of(Kind.STRING))).isNull();
    }

    @ParameterizedTest(name = "{0} as {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "current_date()|DATE",
                "CAST(0 AS BIGINT)|BIGINT",
                "128|TINYINT",
                "1.5|INT",
                "9223372036854775808|BIGINT",
                "TIMESTAMP '2024-01-01 00:00:00'|TIMESTAMP",
                "'a' 'b'|STRING",
                "'\\u0041'|STRING",
                "abc|STRING",
                "1|BOOLEAN",
                "DATE '2024-02-30'|DATE",
            })
    void anythingElseIsRefused(String sql, Kind kind) {
        assertThatThrownBy(() -> DefaultLiteral.parse(sql, ValueType.of(kind)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Found by review: Spark makes a float or double of these first, then casts. */
    @Test
    void floatingPointLiteralsRoundAsSparksDo() {
        assertThat(DefaultLiteral.parse("0.1F", ValueType.of(Kind.DOUBLE)))
                .isEqualTo((double) 0.1f);
        assertThat(DefaultLiteral.parse("-0.0D", ValueType.of(Kind.DOUBLE))).isEqualTo(-0.0d);
        assertThat(DefaultLiteral.parse("1e-1", ValueType.of(Kind.DOUBLE))).isEqualTo(0.1d);
        assertThat(DefaultLiteral.parse("0.1D", ValueType.of(Kind.FLOAT))).isEqualTo(0.1f);
        assertThatThrownBy(() -> DefaultLiteral.parse("0.1F", new ValueType.Decimal(20, 18)))
                .hasMessageContaining("floating-point literal");
        assertThatThrownBy(() -> DefaultLiteral.parse("1e2", ValueType.of(Kind.INT)))
                .hasMessageContaining("floating-point literal");
    }

    @Test
    void aDecimalThatDoesNotFitIsRefused() {
        assertThatThrownBy(() -> DefaultLiteral.parse("1.005", new ValueType.Decimal(10, 2)))
                .hasMessageContaining("decimal places");
        assertThatThrownBy(() -> DefaultLiteral.parse("123.4", new ValueType.Decimal(3, 1)))
                .hasMessageContaining("does not fit");
    }
}
