package io.deltalite.flink.sink;

/**
 * What to do with a row that has a null in a primary-key column. Such a row never matches a stored
 * row (as in SQL {@code MERGE}).
 */
public enum NullKeyPolicy {
    /** Insert the row as a new row; a delete with a null key changes nothing. The default. */
    INSERT,
    /** Fail the checkpoint with an error that names the column; nothing is committed. */
    FAIL,
    /** Drop the row and count it in the {@code nullKeyRows} statistic. */
    DROP
}
