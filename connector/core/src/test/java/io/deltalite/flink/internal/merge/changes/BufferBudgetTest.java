package io.deltalite.flink.internal.merge.changes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BufferBudgetTest {
    private static final long EIGHTH_OF_HEAP = Runtime.getRuntime().maxMemory() / 8;

    @Test
    void aConfiguredBudgetIsThatManyBytesWhateverElseRuns() {
        try (BufferBudget budget = BufferBudget.forWriter(96 << 10)) {
            assertThat(budget.bytes()).isEqualTo(96 << 10);
            assertThat(BufferBudget.current(96 << 10)).isEqualTo(96 << 10);
        }
    }

    @Test
    void theWritersOfAJvmShareAnEighthOfItsHeapWithinTheBounds() {
        for (int writers = 1; writers <= 64; writers *= 2) {
            long expected =
                    Math.max(
                            BufferBudget.MIN_AUTO_BYTES,
                            Math.min(BufferBudget.MAX_AUTO_BYTES, EIGHTH_OF_HEAP / writers));
            assertThat(BufferBudget.automatic(writers))
                    .as("%d writers", writers)
                    .isEqualTo(expected);
        }
        assertThat(BufferBudget.automatic(2)).isLessThanOrEqualTo(BufferBudget.automatic(1));
        assertThat(BufferBudget.automatic(1_000_000)).isEqualTo(BufferBudget.MIN_AUTO_BYTES);
    }

    @Test
    void anAutomaticBudgetIsOneOfTheOpenWritersPartsUntilItCloses() {
        // Other tests of this JVM may open writers meanwhile: compare with what they leave.
        BufferBudget first = BufferBudget.forWriter(BufferBudget.AUTO);
        BufferBudget second = BufferBudget.forWriter(BufferBudget.AUTO);
        try {
            assertThat(first.bytes()).isEqualTo(second.bytes());
            assertThat(first.bytes()).isLessThanOrEqualTo(BufferBudget.automatic(2));
            assertThat(first.bytes())
                    .isBetween(BufferBudget.MIN_AUTO_BYTES, BufferBudget.MAX_AUTO_BYTES);
        } finally {
            second.close();
            second.close(); // idempotent
            first.close();
        }
    }

    @Test
    void aNegativeBudgetIsRefused() {
        assertThatThrownBy(() -> BufferBudget.forWriter(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max-buffered-bytes");
    }
}
