package io.deltalite.flink.internal.merge.value;

/**
 * Where the row ids and commit versions of a committed data file's rows come from, in a table with
 * row tracking: a row whose materialized columns are null has the id {@code baseRowId + its
 * position} and the commit version {@code defaultRowCommitVersion}. Delta assigns both when it
 * first commits the file, and a file keeps them when it is added again (with a deletion vector).
 *
 * @param baseRowId the id of the file's first row
 * @param defaultRowCommitVersion the version that first committed the file, -1 when the log does
 *     not say
 */
public record RowLineage(long baseRowId, long defaultRowCommitVersion) {

    public RowLineage {
        if (baseRowId < 0) {
            throw new IllegalArgumentException("a base row id is never negative: " + baseRowId);
        }
    }

    /** The id of the row at {@code position} whose materialized id is null. */
    public long rowIdAt(long position) {
        return baseRowId + position;
    }

    public boolean hasCommitVersion() {
        return defaultRowCommitVersion >= 0;
    }
}
