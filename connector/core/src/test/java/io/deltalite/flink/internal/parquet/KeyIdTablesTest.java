package io.deltalite.flink.internal.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The primitive hash tables of the probe agree with a {@code HashMap} on every lookup. */
class KeyIdTablesTest {

    @Test
    void aLongTableFindsExactlyTheValuesPutIncludingZeroAndTheExtremes() {
        Random random = new Random(3);
        Map<Long, Integer> reference = new HashMap<>();
        LongIdTable table = new LongIdTable(20_003);
        long[] awkward = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE};
        int id = 0;
        for (long value : awkward) {
            assertThat(table.putIfAbsent(value, id)).isEqualTo(id);
            reference.put(value, id++);
        }
        while (reference.size() < 20_003) {
            // Clustered values (multiples of 1024) collide in a weak hash; random ones do not.
            long value = random.nextBoolean() ? random.nextLong() : random.nextInt(50_000) * 1024L;
            Integer known = reference.get(value);
            int next = reference.size();
            int assigned = table.putIfAbsent(value, next);
            if (known == null) {
                assertThat(assigned).isEqualTo(next);
                reference.put(value, next);
            } else {
                assertThat(assigned).isEqualTo(known);
            }
        }
        assertThat(table.size()).isEqualTo(reference.size());
        reference.forEach((value, number) -> assertThat(table.find(value)).isEqualTo(number));
        for (int i = 0; i < 200_000; i++) {
            long value = random.nextBoolean() ? random.nextLong() : random.nextInt(60_000) * 1024L;
            assertThat(table.find(value) >= 0).isEqualTo(reference.containsKey(value));
        }
    }

    @Test
    void aLongTableKeepsTheFirstIdOfADuplicate() {
        LongIdTable table = new LongIdTable(4);
        assertThat(table.putIfAbsent(42, 0)).isZero();
        assertThat(table.putIfAbsent(42, 1)).isZero();
        assertThat(table.putIfAbsent(0, 2)).isEqualTo(2);
        assertThat(table.putIfAbsent(0, 3)).isEqualTo(2);
        assertThat(table.find(42)).isZero();
        assertThat(table.find(0)).isEqualTo(2);
        assertThat(table.find(7)).isEqualTo(LongIdTable.ABSENT);
        assertThat(table.size()).isEqualTo(2);
    }

    @Test
    void aBytesTableComparesContentWhereverTheBytesSitInTheirBuffer() {
        Random random = new Random(11);
        BytesIdTable table = new BytesIdTable(5_000);
        List<byte[]> values = new java.util.ArrayList<>();
        values.add(new byte[0]);
        for (int i = 1; i < 5_000; i++) {
            byte[] value = new byte[random.nextInt(40)];
            random.nextBytes(value);
            values.add(value);
        }
        Map<ByteBuffer, Integer> reference = new HashMap<>();
        for (int i = 0; i < values.size(); i++) {
            int expected = reference.computeIfAbsent(ByteBuffer.wrap(values.get(i)), v -> -1);
            int id = table.putIfAbsent(values.get(i), i);
            if (expected == -1) {
                reference.put(ByteBuffer.wrap(values.get(i)), id);
            } else {
                assertThat(id).isEqualTo(expected);
            }
        }
        for (byte[] value : values) {
            // The same bytes inside a larger array, at an offset, as a page's slice would be.
            byte[] page = new byte[value.length + 9];
            random.nextBytes(page);
            System.arraycopy(value, 0, page, 5, value.length);
            ByteBuffer slice = ByteBuffer.wrap(page, 5, value.length);
            assertThat(table.find(slice)).isEqualTo(reference.get(ByteBuffer.wrap(value)));
            assertThat(slice.position()).isEqualTo(5);
            if (value.length > 0) {
                byte[] changed = value.clone();
                changed[random.nextInt(changed.length)] ^= 1;
                assertThat(table.find(ByteBuffer.wrap(changed)))
                        .isEqualTo(reference.getOrDefault(ByteBuffer.wrap(changed), -1));
                assertThat(table.find(ByteBuffer.wrap(value, 0, value.length - 1)))
                        .isEqualTo(
                                reference.getOrDefault(
                                        ByteBuffer.wrap(Arrays.copyOf(value, value.length - 1)),
                                        -1));
            }
        }
    }

    @Test
    void aTupleTableMatchesWholeTuplesOnly() {
        TupleIdTable table = new TupleIdTable(3, 100);
        int key = 0;
        for (int a = 0; a < 5; a++) {
            for (int b = 0; b < 5; b++) {
                for (int c = 0; c < 4; c++) {
                    table.putIfAbsent(new int[] {a, b, c}, key++);
                }
            }
        }
        assertThat(table.find(new int[] {0, 0, 0})).isZero();
        assertThat(table.find(new int[] {4, 4, 3})).isEqualTo(99);
        assertThat(table.find(new int[] {2, 3, 1})).isEqualTo(2 * 20 + 3 * 4 + 1);
        assertThat(table.find(new int[] {4, 4, 4})).isEqualTo(TupleIdTable.ABSENT);
        assertThat(table.find(new int[] {5, 0, 0})).isEqualTo(TupleIdTable.ABSENT);
        assertThat(table.putIfAbsent(new int[] {1, 1, 1}, 500)).isEqualTo(20 + 4 + 1);
    }
}
