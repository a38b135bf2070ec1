package io.deltalite.flink.internal.merge.value;

import java.util.Objects;

/**
 * Where a file's deletion vector is, as the Delta log describes it (its {@code deletionVector}
 * descriptor).
 *
 * @param storageType {@code u} (a file of the table named by a UUID), {@code p} (an absolute path)
 *     or {@code i} (inline)
 * @param pathOrInlineDv the optional prefix and Z85-encoded UUID, the path, or the inline data
 * @param offset where the vector starts in its file, -1 for an inline one
 * @param sizeInBytes the size of the serialized vector
 * @param cardinality how many rows it deletes
 */
public record DeletionVectorRef(
        String storageType, String pathOrInlineDv, int offset, int sizeInBytes, long cardinality) {
    public DeletionVectorRef {
        Objects.requireNonNull(storageType, "storageType");
        Objects.requireNonNull(pathOrInlineDv, "pathOrInlineDv");
    }

    /** What tells two vectors apart, as Delta's unique id of a descriptor does. */
    public String id() {
        return storageType + pathOrInlineDv + (offset >= 0 ? "@" + offset : "");
    }
}
