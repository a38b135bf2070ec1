package io.deltalite.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's SQL example: the Debezium fixture ends as one row per live order. */
class SqlCdcExampleTest {
    @TempDir Path dir;

    @Test
    void theSqlScriptMirrorsTheChangeEvents() throws Exception {
        List<Object[]> rows = SqlCdcExample.run(dir.resolve("orders").toString());
        // 20 orders created, 3 deleted, one re-created, one read from a snapshot.
        assertThat(rows).hasSize(19);
        assertThat(rows)
                .filteredOn(row -> row[0].equals(4L))
                .singleElement()
                .satisfies(
                        row -> assertThat(row).containsExactly(4L, "2024-06-01", 42, "moved back"));
        assertThat(rows)
                .filteredOn(row -> row[0].equals(6L))
                .singleElement()
                .satisfies(
                        row ->
                                assertThat(row)
                                        .containsExactly(6L, "2024-06-03", 600, "re-created"));
        assertThat(rows).noneMatch(row -> row[0].equals(2L) || row[0].equals(9L));
    }

    @Test
    void scriptsSplitIntoStatementsWithoutComments() {
        assertThat(SqlCdcExample.statements("-- a comment\nSELECT 1;\n\nSELECT 2;\n"))
                .containsExactly("SELECT 1", "SELECT 2");
    }
}
