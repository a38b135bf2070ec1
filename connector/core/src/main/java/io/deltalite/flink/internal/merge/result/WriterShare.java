package io.deltalite.flink.internal.merge.result;

import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.KeyGroups;

/**
 * Which part of each partition's changes one writer handles: all of them, when the sink gives each
 * partition one writer; or the keys of one range of key groups, when the sink spreads keys over all
 * writers and several writers change one partition in a checkpoint.
 *
 * <p>A writer that shares its partitions tells the files of a partition apart by the key range in
 * their path ({@link KeyGroups}):
 *
 * <ul>
 *   <li><b>own</b> files hold only keys of its range: no other writer of the job attempt changes
 *       them, so it rewrites and compacts them as a writer of whole partitions would;
 *   <li><b>foreign</b> files hold only keys of other ranges: they cannot hold a key it changes, so
 *       it neither reads their statistics nor probes them — the probe work of a checkpoint does not
 *       grow with the number of writers;
 *   <li><b>shared</b> files may hold keys of several writers (written before the sink was
 *       distributed by key, at another parallelism, by Spark): it gives them deletion vectors
 *       rather than rewriting them where it can; each is compacted by one writer only ({@link
 *       #compactsShared}), apart from own files. Several writers' vectors for one file are unioned
 *       by the committer ({@link SharedPartitionResults}).
 * </ul>
 */
public final class WriterShare {
    /** One writer per partition: it handles every change of the partitions it gets. */
    public static final WriterShare WHOLE_PARTITIONS = new WriterShare(null);

    /**
     * The committer merging again a partition several writers share: every file may hold any
     * writer's keys, so it marks rather than rewrites where it can, and its outputs keep the key
     * ranges of the files they come from.
     */
    public static final WriterShare NONE_OWNED = new WriterShare(null);

    /** How a writer may treat a file of a partition it changes. */
    public enum Access {
        OWN,
        SHARED,
        FOREIGN
    }

    private final KeyGroups keys;

    private WriterShare(KeyGroups keys) {
        this.keys = keys;
    }

    /** The share of a writer that owns the keys of {@code keys}, of every partition. */
    public static WriterShare keysIn(KeyGroups keys) {
        return new WriterShare(java.util.Objects.requireNonNull(keys, "keys"));
    }

    /** Whether other writers may change the same partitions in the same checkpoint. */
    public boolean sharesPartitions() {
        return this != WHOLE_PARTITIONS;
    }

    /** The range of the files this writer writes new rows into, null for the partition folder. */
    public KeyGroups keys() {
        return keys;
    }

    public Access accessTo(DataFile file) {
        if (this == WHOLE_PARTITIONS) {
            return Access.OWN;
        }
        if (this == NONE_OWNED) {
            return Access.SHARED;
        }
        KeyGroups range = KeyGroups.ofPath(file.path());
        if (keys.contains(range)) {
            return Access.OWN;
        }
        return keys.isDisjointFrom(range) ? Access.FOREIGN : Access.SHARED;
    }

    /**
     * Whether this writer is the one among those sharing the partition that compacts the shared
     * file {@code file}: the writer owning the key group its path hashes to (within the file's own
     * range, when it has one of the same hashing) — one writer per file, so that no two compact it
     * in one checkpoint. The committer drops the compaction if another writer gives the file a
     * vector in the same checkpoint.
     */
    public boolean compactsShared(DataFile file) {
        if (keys == null) {
            return false;
        }
        int hash = file.path().hashCode();
        KeyGroups range = KeyGroups.ofPath(file.path());
        boolean sameHashing =
                range != null
                        && range.scheme().equals(keys.scheme())
                        && range.groups() == keys.groups();
        // A file of a range of the same hashing (written at another parallelism) is given to a
        // group in its range: to one of the writers it is shared with, never one it is foreign to.
        int group =
                sameHashing
                        ? range.first() + Math.floorMod(hash, range.last() - range.first() + 1)
                        : Math.floorMod(hash, keys.groups());
        return keys.containsGroup(group);
    }

    @Override
    public String toString() {
        if (this == NONE_OWNED) {
            return "no files owned";
        }
        return keys == null ? "whole partitions" : "keys " + keys.folder();
    }
}
