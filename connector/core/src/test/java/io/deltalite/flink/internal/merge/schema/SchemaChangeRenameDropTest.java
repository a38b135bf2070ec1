package io.deltalite.flink.internal.merge.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.SchemaEvolution;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@link SchemaChange#between} decides for renames and drops ({@link SchemaEvolutionPolicy}):
 * only what the user listed, once, never a key or partition column. Committing it is {@code
 * ColumnRenameAndDropTest}'s.
 */
class SchemaChangeRenameDropTest {
    private static final ValueType.Field ID = field("id", Kind.BIGINT, false);
    private static final ValueType.Field P = field("p", Kind.STRING, true);
    private static final ValueType.Field A = field("a", Kind.INT, true);
    private static final ValueType.Field B = field("b", Kind.STRING, true);
    private static final TableSchema TABLE =
            new TableSchema(List.of(ID, P, A, B), List.of("id"), List.of("p"));

    @Test
    void aRenameIsMadeOnceAndKeepsTheColumnsPlace() {
        SchemaEvolutionPolicy policy = renames(Map.of("A", "alpha"));
        List<ValueType.Field> input = List.of(ID, P, field("alpha", Kind.INT, true), B);
        SchemaChange change = SchemaChange.between(TABLE, input, policy, "t");
        assertThat(change.renamed()).containsExactly(new SchemaChange.Rename("a", "alpha"));
        TableSchema after = change.applyTo(TABLE);
        assertThat(names(after)).containsExactly("id", "p", "alpha", "b");
        assertThat(SchemaChange.between(after, input, policy, "t").isEmpty())
                .as("decided again on the renamed table")
                .isTrue();
    }

    @Test
    void aRenameOfAColumnTheTableLacksIsRefusedAndOneOntoANameItHasCountsAsMade() {
        assertThatThrownBy(
                        () ->
                                SchemaChange.between(
                                        TABLE,
                                        List.of(ID, P, field("d", Kind.INT, true)),
                                        renames(Map.of("c", "d")),
                                        "t"))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("has neither column [id, p, a, b]");
        assertThat(
                        SchemaChange.between(
                                        TABLE, List.of(ID, P, B), renames(Map.of("a", "B")), "t")
                                .isEmpty())
                .isTrue();
    }

    @Test
    void keyAndPartitionColumnsAreNeverRenamedNorDropped() {
        assertThatThrownBy(
                        () ->
                                SchemaChange.between(
                                        TABLE,
                                        List.of(field("key", Kind.BIGINT, false), P),
                                        renames(Map.of("id", "key")),
                                        "t"))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("a primary-key column");
        assertThatThrownBy(
                        () ->
                                SchemaChange.between(
                                        TABLE,
                                        List.of(ID, field("q", Kind.STRING, true)),
                                        renames(Map.of("p", "q")),
                                        "t"))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("a partition column");
        SchemaChange drop =
                SchemaChange.between(
                        TABLE,
                        List.of(A),
                        new SchemaEvolutionPolicy(SchemaEvolution.NONE, Map.of(), true),
                        "t");
        assertThat(drop.dropped()).containsExactly("b");
    }

    @Test
    void aColumnIsDroppedOnlyWhenThePolicySaysSo() {
        List<ValueType.Field> input = List.of(ID, P, B);
        assertThat(
                        SchemaChange.between(
                                        TABLE,
                                        input,
                                        SchemaEvolutionPolicy.of(SchemaEvolution.ADD_COLUMNS),
                                        "t")
                                .isEmpty())
                .isTrue();
        SchemaChange change =
                SchemaChange.between(
                        TABLE,
                        input,
                        new SchemaEvolutionPolicy(SchemaEvolution.ADD_COLUMNS, Map.of(), true),
                        "t");
        assertThat(change.dropped()).containsExactly("a");
        assertThat(change.applyTo(TABLE).columns())
                .extracting(ValueType.Field::name)
                .containsExactly("id", "p", "b");
    }

    @Test
    void chainsSwapsAndTwoColumnsRenamedAlikeAreRefusedUpFront() {
        assertThatThrownBy(() -> renames(Map.of("a", "b", "b", "c")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a chain or a swap");
        assertThatThrownBy(() -> renames(Map.of("a", "x", "b", "X")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two columns the new name");
    }

    /**
     * Found by review (twice): the entry stays in the job while the table moves on — a column of
     * the old name added again, the renamed column dropped, the new name written again. Deciding
     * again must find nothing to do, not fail every start after the sink's own commit, and never
     * rename a second column silently: an input with both names is refused.
     */
    @Test
    void aRenameEntryLeftInTheJobNeverRenamesTwiceNorStopsTheJob() {
        ValueType.Field alpha = field("alpha", Kind.INT, true);
        ValueType.Field newA = field("a", Kind.STRING, true);
        SchemaEvolutionPolicy policy =
                new SchemaEvolutionPolicy(SchemaEvolution.ADD_COLUMNS, Map.of("a", "alpha"), true);
        List<ValueType.Field> renamedInput = List.of(ID, P, alpha, B);
        TableSchema renamed = decideAndApply(TABLE, renamedInput, policy);
        assertThat(names(renamed)).containsExactly("id", "p", "alpha", "b");

        // a new column takes the old name
        List<ValueType.Field> withNewA = List.of(ID, P, alpha, B, newA);
        TableSchema added = decideAndApply(renamed, withNewA, policy);
        assertThat(names(added)).containsExactly("id", "p", "alpha", "b", "a");
        assertThat(SchemaChange.between(added, withNewA, policy, "t").isEmpty()).isTrue();
        // the input stops writing it: dropped, the entry does not stand in the way
        assertThat(names(decideAndApply(added, renamedInput, policy)))
                .containsExactly("id", "p", "alpha", "b");

        // the renamed column is dropped, then the input has both names again: refused
        TableSchema alphaDropped = decideAndApply(added, List.of(ID, P, B, newA), policy);
        assertThat(names(alphaDropped)).containsExactly("id", "p", "b", "a");
        assertThat(
                        SchemaChange.between(alphaDropped, List.of(ID, P, B, newA), policy, "t")
                                .isEmpty())
                .isTrue();
        assertThatThrownBy(() -> SchemaChange.between(alphaDropped, withNewA, policy, "t"))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("the input has both names");
    }

    private static TableSchema decideAndApply(
            TableSchema table, List<ValueType.Field> input, SchemaEvolutionPolicy policy) {
        return SchemaChange.between(table, input, policy, "t").applyTo(table);
    }

    private static List<String> names(TableSchema table) {
        return table.columns().stream().map(ValueType.Field::name).toList();
    }

    /**
     * Found by review: a rename to a name the input does not have (a misspelling) would be dropped
     * in the same change with drop-columns, losing every value of the column.
     */
    @Test
    void aRenameToANameTheInputLacksIsRefused() {
        List<ValueType.Field> input = List.of(ID, P, field("total", Kind.INT, true), B);
        assertThatThrownBy(
                        () ->
                                SchemaChange.between(
                                        TABLE,
                                        input,
                                        new SchemaEvolutionPolicy(
                                                SchemaEvolution.ADD_COLUMNS,
                                                Map.of("a", "totl"),
                                                true),
                                        "t"))
                .isInstanceOf(DeltaLiteSchemaMismatchException.class)
                .hasMessageContaining("'totl', which is not a column of the input");
    }

    /** Found by review: which of two such entries won depended on the JVM's map order. */
    @Test
    void twoEntriesForOneColumnInAnotherLetterCaseAreRefused() {
        assertThatThrownBy(() -> renames(Map.of("a", "x", "A", "y")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names column");
    }

    private static SchemaEvolutionPolicy renames(Map<String, String> renames) {
        return new SchemaEvolutionPolicy(SchemaEvolution.NONE, renames, false);
    }

    private static ValueType.Field field(String name, Kind kind, boolean nullable) {
        return new ValueType.Field(name, ValueType.of(kind), nullable);
    }
}
