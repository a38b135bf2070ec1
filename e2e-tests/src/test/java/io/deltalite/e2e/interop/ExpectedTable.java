package io.deltalite.e2e.interop;

import io.deltalite.e2e.SparkRows;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Changes given to deltalite's harness and, at the same time, to a plain model of the table they
 * must produce: each upsert replaces the row of its identity (partition values and key), each
 * delete removes it. For tables without duplicates and without null keys.
 */
final class ExpectedTable {
    private final UpsertHarness deltalite;
    private final TableSchema schema;
    private final Map<List<Object>, Object[]> rows = new LinkedHashMap<>();

    /**
     * @param stored the rows the table holds before the first change
     */
    ExpectedTable(UpsertHarness deltalite, TableSchema schema, Collection<Object[]> stored) {
        this.deltalite = deltalite;
        this.schema = schema;
        stored.forEach(row -> rows.put(identity(row), row.clone()));
    }

    void upsert(Object... row) {
        deltalite.upsert(row.clone());
        rows.put(identity(row), row.clone());
    }

    void delete(Object... row) {
        deltalite.delete(row.clone());
        rows.remove(identity(row));
    }

    CommitOutcome commit() {
        return deltalite.commit();
    }

    /** The rows the table must hold now, in the canonical sorted form of {@link Rows#sorted}. */
    List<String> rows() {
        return Rows.sorted(new ArrayList<>(rows.values()));
    }

    /** Asserts that Spark and Kernel both read {@code expected} from the table at {@code table}. */
    static void assertReadByBothEngines(String table, List<String> expected) {
        org.assertj.core.api.Assertions.assertThat(Rows.sorted(SparkRows.readTable(table)))
                .as("the table read by Spark")
                .isEqualTo(expected);
        org.assertj.core.api.Assertions.assertThat(Rows.sorted(KernelTableReader.readAll(table)))
                .as("the table read by Kernel")
                .isEqualTo(expected);
    }

    private List<Object> identity(Object[] row) {
        List<Object> values = new ArrayList<>();
        for (int index : schema.partitionIndexes()) {
            values.add("".equals(row[index]) ? null : row[index]);
        }
        for (int index : schema.matchKeyIndexes()) {
            values.add(row[index]);
        }
        return Rows.canonical(values.toArray());
    }
}
