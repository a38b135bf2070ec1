package io.deltalite.flink.sink;

/** How a merge finds the files of a partition that hold a changed key. */
public enum PruneStrategy {
    /**
     * Skip files whose statistics prove they hold no changed key, then read only the key columns of
     * the remaining files and rewrite just the files that really hold one. The default.
     */
    PROBE,
    /** Skip files by statistics only; rewrite every file the statistics cannot rule out. */
    STATS,
    /** Rewrite every file of each touched partition. */
    NONE
}
