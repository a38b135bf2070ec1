package io.deltalite.flink.sink;

/**
 * How the sink removes the old rows of changed keys from the files that hold them.
 *
 * <ul>
 *   <li>{@link #COPY_ON_WRITE}: each such file is rewritten without those rows. Readers pay
 *       nothing; a checkpoint of scattered updates rewrites every file it touches.
 *   <li>{@link #DELETION_VECTORS}: the rows are marked in a deletion vector of the file, which is
 *       not rewritten; a checkpoint writes in proportion to its changes. Readers need Delta reader
 *       version 3 with deletion vectors. A file whose vector would delete more than {@code
 *       dv.rewrite-threshold} of its rows is rewritten instead, a few of its row groups per merge
 *       (so that a checkpoint reads in proportion to its changes), and marked meanwhile.
 *   <li>{@link #AUTO}: deletion vectors when the table has {@code delta.enableDeletionVectors =
 *       true}, else copy-on-write. A table the sink creates gets the property.
 * </ul>
 */
public enum WriteMode {
    AUTO("auto"),
    COPY_ON_WRITE("copy-on-write"),
    DELETION_VECTORS("deletion-vectors");

    private final String text;

    WriteMode(String text) {
        this.text = text;
    }

    /** The option's value: {@code auto}, {@code copy-on-write} or {@code deletion-vectors}. */
    @Override
    public String toString() {
        return text;
    }

    /** The mode named {@code value} (as {@link #toString()} spells it, or the constant's name). */
    public static WriteMode parse(String value) {
        for (WriteMode mode : values()) {
            if (mode.text.equalsIgnoreCase(value.trim())
                    || mode.name().equalsIgnoreCase(value.trim())) {
                return mode;
            }
        }
        throw new IllegalArgumentException(
                "write-mode must be auto, copy-on-write or deletion-vectors, but is '"
                        + value
                        + "'.");
    }
}
