package io.deltalite.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's example job, small: it must end with a table equal to its expected state. */
class CdcUpsertExampleTest {
    @TempDir Path dir;

    @Test
    void theExampleJobProducesTheExpectedTable() throws Exception {
        assertThat(CdcUpsertExample.run(dir.resolve("orders").toString(), 5_003)).isZero();
    }

    @Test
    void theExpectedStateHasDeletedAndMovedOrders() {
        OrderChanges changes = new OrderChanges(5_003, 4);
        // Some orders are deleted at the end, and some end in another day than they started in.
        assertThat(changes.expectedTable()).hasSizeBetween(3_000, 5_002);
    }
}
