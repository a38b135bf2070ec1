package io.deltalite.flink.sink;

import org.apache.flink.annotation.PublicEvolving;

/**
 * How the sink spreads a table's changes over its writer subtasks.
 *
 * <ul>
 *   <li>{@link #PARTITION}: by the values of the partition columns. One writer owns each partition,
 *       so it alone reads and rewrites that partition's files. A partition is written by at most
 *       one subtask: an unpartitioned table, or the one "today" partition every change goes to,
 *       does not get faster with more parallelism.
 *   <li>{@link #KEY}: by a hash of the primary key. Every writer handles its own share of the keys
 *       of every partition: all changes of one key still reach one writer, in order, and a key
 *       moving partition (a {@code -U}/{@code +U} pair) stays with its writer. Each writer writes
 *       its new rows to files of its own, which hold only its keys; where several writers change
 *       rows of one older file in a checkpoint, each marks its rows with a deletion vector and the
 *       committer unions their vectors into one per file. Meant for deletion-vector tables (the
 *       default for tables the sink creates); with copy-on-write, two writers changing the same
 *       file make the committer merge that partition again alone. Tables without a primary key are
 *       appended to by every writer.
 * </ul>
 */
@PublicEvolving
public enum Distribution {
    PARTITION("partition"),
    KEY("key");

    private final String text;

    Distribution(String text) {
        this.text = text;
    }

    /** The option's value: {@code partition} or {@code key}. */
    @Override
    public String toString() {
        return text;
    }

    /** The distribution named {@code value} (as {@link #toString()} spells it, or its name). */
    public static Distribution parse(String value) {
        for (Distribution distribution : values()) {
            if (distribution.text.equalsIgnoreCase(value.trim())
                    || distribution.name().equalsIgnoreCase(value.trim())) {
                return distribution;
            }
        }
        throw new IllegalArgumentException(
                "distribution must be partition or key, but is '" + value + "'.");
    }
}
