package io.deltalite.flink.internal.merge.value;

import java.util.Objects;

/**
 * Keys written to a file of their own, outside the table's data, so that a checkpoint's state and
 * committable carry a path and a count instead of the keys. Delta never references the file; it is
 * deleted once the checkpoint that needs it is committed.
 *
 * @param path fully qualified path of the file
 * @param count keys in the file
 */
public record StagedKeys(String path, long count) {
    public StagedKeys {
        Objects.requireNonNull(path, "path");
        if (count < 0) {
            throw new IllegalArgumentException("negative key count " + count);
        }
    }
}
