package io.deltalite.flink.internal.merge.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The primitive path of {@link KeyMatcher} matches exactly the rows a key lookup matches. */
class KeyMatcherTest {

    /** A batch of one BIGINT key column, with or without the primitive accessors. */
    private record LongKeys(Long[] keys, boolean primitive) implements RowBatch {
        @Override
        public int size() {
            return keys.length;
        }

        @Override
        public boolean isLive(int row) {
            return true;
        }

        @Override
        public long positionAt(int row) {
            return row;
        }

        @Override
        public RowKey keyAt(int row) {
            return RowKey.ofValues(keys[row]);
        }

        @Override
        public RowBatch retain(boolean[] keep) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object[] rowAt(int row) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean hasLongKey() {
            return primitive;
        }

        @Override
        public boolean isKeyNullAt(int row) {
            return keys[row] == null;
        }

        @Override
        public long longKeyAt(int row) {
            return keys[row];
        }
    }

    @Test
    void matchesTheSameRowsAsTheKeySet() {
        Random random = new Random(3);
        long[] specials = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 32, -(1L << 32)};
        for (int round = 0; round < 50; round++) {
            Set<RowKey> changed = new HashSet<>();
            int size = random.nextInt(2_000);
            for (int i = 0; i < size; i++) {
                changed.add(RowKey.ofValues(value(random, specials)));
            }
            Long[] rows = new Long[5_000];
            for (int row = 0; row < rows.length; row++) {
                rows[row] = random.nextInt(20) == 0 ? null : value(random, specials);
            }
            KeyMatcher matcher = KeyMatcher.of(changed);
            assertThat(matcher.matchesLongs()).isTrue();
            for (boolean primitive : new boolean[] {true, false}) {
                LongKeys batch = new LongKeys(rows, primitive);
                for (int row = 0; row < rows.length; row++) {
                    RowKey expected =
                            rows[row] != null && changed.contains(RowKey.ofValues(rows[row]))
                                    ? RowKey.ofValues(rows[row])
                                    : null;
                    assertThat(matcher.match(batch, row))
                            .as("row %d (%s), primitive %s", row, rows[row], primitive)
                            .isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void keysThatAreNotOneLongAreLookedUpAsKeys() {
        Set<RowKey> changed = Set.of(RowKey.ofValues(7L), RowKey.ofValues("7"));
        KeyMatcher matcher = KeyMatcher.of(changed);
        assertThat(matcher.matchesLongs()).isFalse();
        LongKeys batch = new LongKeys(new Long[] {7L, 8L, null}, true);
        assertThat(matcher.match(batch, 0)).isEqualTo(RowKey.ofValues(7L));
        assertThat(matcher.match(batch, 1)).isNull();
        assertThat(matcher.match(batch, 2)).isNull();
    }

    /** Mostly a narrow range (so rows hit changed keys), sometimes the extremes. */
    private static long value(Random random, long[] specials) {
        return random.nextInt(10) == 0
                ? specials[random.nextInt(specials.length)]
                : random.nextInt(4_000) - 2_000;
    }
}
