package io.deltalite.flink.sink;

/**
 * Whether writers keep a key index — where each key's row is — so that a checkpoint finds the rows
 * it replaces without reading the table ({@code key-index}).
 */
public enum KeyIndexMode {
    /** Every merge reads the key columns of the files that may hold a changed key. */
    OFF,
    /** A writer indexes each partition it merges, from the first merge on. */
    ON,
    /**
     * A writer indexes a partition from its second merge on: partitions merged once (a batch run, a
     * cold partition that gets one late change) are probed and never indexed. The one partition of
     * an unpartitioned table, which every checkpoint with a change merges, is indexed from the
     * first. The default.
     */
    AUTO
}
