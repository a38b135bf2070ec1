package io.deltalite.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's multi-table example: three change streams end as three mirrored tables. */
class MultiTableCdcExampleTest {
    @TempDir Path dir;

    @Test
    void oneJobMirrorsEachSourceTableIntoItsDeltaTable() throws Exception {
        Map<String, List<Object[]>> tables = MultiTableCdcExample.run(dir);

        assertThat(tables.keySet()).containsExactly("orders", "customers", "payments");
        // The same 19 orders as the single-table example.
        assertThat(tables.get("orders")).hasSize(19);
        // Five customers read, one moved country, one deleted, one created.
        assertThat(tables.get("customers"))
                .extracting(row -> row[0])
                .containsExactlyInAnyOrder(1L, 2L, 3L, 5L, 6L);
        assertThat(tables.get("customers"))
                .filteredOn(row -> row[0].equals(2L))
                .singleElement()
                .satisfies(row -> assertThat(row).containsExactly(2L, "Brian", "UK"));
        // Four payments created, two settled, one deleted.
        assertThat(tables.get("payments"))
                .extracting(row -> row[0] + ":" + row[3])
                .containsExactlyInAnyOrder("101:settled", "102:pending", "103:settled");
    }
}
