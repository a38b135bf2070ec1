package io.deltalite.flink.internal.merge.schema;

import io.deltalite.flink.sink.SchemaEvolution;
import java.io.Serializable;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Everything the user allowed an existing table's schema to do when the job starts: the {@link
 * SchemaEvolution} mode (add columns, widen types), the columns to rename, and whether table
 * columns the input no longer has are dropped. Renames and drops are explicit: the sink never
 * guesses that a missing column was renamed.
 *
 * @param mode adding columns and widening types
 * @param renames table column name → the name the input now gives it; top-level columns only (a
 *     name with a dot is one column's name); no name both renamed and a new name (no chains or
 *     swaps: the order of a map's entries is not kept everywhere)
 * @param dropsColumns whether a table column the input lacks is dropped from the table's schema
 *     instead of being written as null (never a primary-key or partition column)
 * @param relaxesNotNull whether a NOT NULL table column the input declares nullable becomes
 *     nullable (never a primary-key or partition column). Only where the source says so: a Flink
 *     CDC pipeline's schema change. A job's input, whose types are nullable unless declared
 *     otherwise, never relaxes a table's constraint; rows with nulls fail there instead.
 */
public record SchemaEvolutionPolicy(
        SchemaEvolution mode,
        Map<String, String> renames,
        boolean dropsColumns,
        boolean relaxesNotNull)
        implements Serializable {

    /** A policy that keeps NOT NULL columns so. */
    public SchemaEvolutionPolicy(
            SchemaEvolution mode, Map<String, String> renames, boolean dropsColumns) {
        this(mode, renames, dropsColumns, false);
    }

    /** The table's schema is kept: the input must fit it. */
    public static final SchemaEvolutionPolicy NONE =
            new SchemaEvolutionPolicy(SchemaEvolution.NONE, Map.of(), false);

    public SchemaEvolutionPolicy {
        Objects.requireNonNull(mode, "mode");
        renames = Map.copyOf(renames);
        Set<String> targets = new HashSet<>();
        for (Map.Entry<String, String> rename : renames.entrySet()) {
            String from = rename.getKey();
            String to = rename.getValue();
            if (from.isBlank() || to.isBlank()) {
                throw new IllegalArgumentException(
                        "schema-evolution.renames maps a table column to the name the input gives"
                                + " it, and neither may be empty: '"
                                + from
                                + "' -> '"
                                + to
                                + "'.");
            }
            if (renames.keySet().stream().filter(from::equalsIgnoreCase).count() > 1) {
                throw new IllegalArgumentException(
                        "schema-evolution.renames names column '"
                                + from
                                + "' twice (names are case-insensitive in Delta): "
                                + renames
                                + ".");
            }
            if (!targets.add(to.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException(
                        "schema-evolution.renames gives two columns the new name '"
                                + to
                                + "': "
                                + renames
                                + ".");
            }
            if (!from.equalsIgnoreCase(to)
                    && renames.keySet().stream().anyMatch(to::equalsIgnoreCase)) {
                throw new IllegalArgumentException(
                        "schema-evolution.renames renames a column to '"
                                + to
                                + "' and renames '"
                                + to
                                + "' too ("
                                + renames
                                + "): a chain or a swap of names, which the sink does not make in"
                                + " one step. Rename in two restarts of the job.");
            }
        }
    }

    /** Only the mode: no renames, no drops. */
    public static SchemaEvolutionPolicy of(SchemaEvolution mode) {
        return new SchemaEvolutionPolicy(mode, Map.of(), false);
    }

    /** This policy with {@code mode}. */
    public SchemaEvolutionPolicy withMode(SchemaEvolution mode) {
        return new SchemaEvolutionPolicy(mode, renames, dropsColumns, relaxesNotNull);
    }

    /** This policy, relaxing NOT NULL columns the input declares nullable. */
    public SchemaEvolutionPolicy relaxingNotNull() {
        return new SchemaEvolutionPolicy(mode, renames, dropsColumns, true);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(mode.toString());
        if (!renames.isEmpty()) {
            text.append(", renames ").append(renames);
        }
        if (dropsColumns) {
            text.append(", drops columns the input lacks");
        }
        if (relaxesNotNull) {
            text.append(", relaxes NOT NULL where the input is nullable");
        }
        return text.toString();
    }
}
