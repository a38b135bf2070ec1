package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.Set;

/**
 * Where a data file holds changed keys: the positions of its live rows whose key is a changed key,
 * the changed keys found there, and how many rows the file holds in all (live or not).
 *
 * @param positions 0-based physical row positions in the file, ascending; only the first one when
 *     the search stopped at the first hit
 * @param foundKeys the changed keys of those rows
 * @param physicalRows rows of the file, deleted ones included; -1 when the search stopped early
 */
public record KeyHits(long[] positions, Set<RowKey> foundKeys, long physicalRows) {
    public KeyHits {
        positions = positions.clone();
        foundKeys = Set.copyOf(foundKeys);
    }

    public boolean isEmpty() {
        return positions.length == 0;
    }
}
