package io.deltalite.flink.internal.merge.value;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The positions of a deletion vector as a batch of rows sees them. */
class DeletionVectorPositionsTest {

    @Test
    void clearingABatchsDeletedRowsAgreesWithContainsAcrossBuckets() {
        Random random = new Random(5);
        TreeSet<Long> positions = new TreeSet<>();
        long bucket = 1L << 32;
        for (int i = 0; i < 3_000; i++) {
            positions.add((long) random.nextInt(200_000));
            // Around the boundary of the first and second bucket, and deep in the third.
            positions.add(bucket - 50_000 + random.nextInt(100_000));
            positions.add(2 * bucket + random.nextInt(1_000));
        }
        positions.add(0L);
        positions.add(bucket - 1);
        positions.add(bucket);
        DeletionVector vector =
                DeletionVector.of(positions.stream().mapToLong(Long::longValue).toArray());
        long[] starts = {0, 1, 199_000, bucket - 60_000, bucket - 1, bucket, 2 * bucket - 10};
        for (long start : starts) {
            for (int size : new int[] {1, 7, 8192, 70_000}) {
                boolean[] live = new boolean[size];
                Arrays.fill(live, true);
                vector.clearDeleted(start, live);
                for (int row = 0; row < size; row++) {
                    assertThat(live[row])
                            .as("row %d of a batch starting at %d", row, start)
                            .isEqualTo(!vector.contains(start + row));
                }
            }
        }
        assertThat(vector.cardinality()).isEqualTo(positions.size());
    }

    @Test
    void aRangeOfPositionsIsCountedAndAddedAcrossBuckets() {
        long bucket = 1L << 32;
        DeletionVector vector = DeletionVector.of(3, 10, 11, bucket - 2, bucket + 5, 2 * bucket);
        assertThat(vector.cardinality(0, 11)).isEqualTo(2);
        assertThat(vector.cardinality(10, 12)).isEqualTo(2);
        assertThat(vector.cardinality(bucket - 2, bucket + 6)).isEqualTo(2);
        assertThat(vector.cardinality(0, 3 * bucket)).isEqualTo(6);
        assertThat(vector.cardinality(12, 12)).isZero();

        DeletionVector ranged = vector.withRange(bucket - 4, bucket + 4);
        assertThat(ranged.cardinality()).isEqualTo(6 + 8 - 1);
        for (long position = bucket - 6; position < bucket + 7; position++) {
            assertThat(ranged.contains(position))
                    .as("position %d", position)
                    .isEqualTo(
                            (position >= bucket - 4 && position < bucket + 4)
                                    || vector.contains(position));
        }
        assertThat(vector.withRange(7, 7)).isSameAs(vector);
        assertThat(DeletionVector.EMPTY.withRange(0, 4000).cardinality(0, 4000)).isEqualTo(4000);
        assertThat(vector.cardinality()).as("unchanged").isEqualTo(6);
    }

    @Test
    void anEmptyVectorClearsNothing() {
        boolean[] live = new boolean[100];
        Arrays.fill(live, true);
        DeletionVector.EMPTY.clearDeleted(12_345, live);
        assertThat(live).containsOnly(true);
    }
}
