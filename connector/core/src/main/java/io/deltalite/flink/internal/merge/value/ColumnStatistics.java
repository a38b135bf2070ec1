package io.deltalite.flink.internal.merge.value;

/**
 * What a file's statistics say about one match-key column. Bounds are normalized values (see {@link
 * ValueType}) or {@code null} when unknown; {@code nullCount} is -1 when unknown. Bounds are
 * inclusive but not necessarily tight: other writers round timestamps and truncate strings.
 */
public record ColumnStatistics(Object min, Object max, long nullCount) {
    public static final ColumnStatistics UNKNOWN = new ColumnStatistics(null, null, -1);
}
