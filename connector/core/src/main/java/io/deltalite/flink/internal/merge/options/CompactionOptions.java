package io.deltalite.flink.internal.merge.options;

import io.deltalite.flink.internal.merge.compaction.PartitionCompactor;
import java.io.Serializable;

/**
 * How writers compact the partitions they touch ({@link PartitionCompactor}).
 *
 * @param enabled whether a writer compacts at all
 * @param smallFileSizeBytes files below this size are small and get packed together; 0 means a
 *     sixteenth of the target file size
 * @param maxBytesPerCheckpoint bytes of files one writer may read for compaction per checkpoint
 * @param deletedRowsThreshold a file whose deletion vector deletes more than this share of its rows
 *     is rewritten without them
 */
public record CompactionOptions(
        boolean enabled,
        long smallFileSizeBytes,
        long maxBytesPerCheckpoint,
        double deletedRowsThreshold)
        implements Serializable {

    public static final long DEFAULT_MAX_BYTES_PER_CHECKPOINT = 256L << 20;
    public static final double DEFAULT_DELETED_ROWS_THRESHOLD = 0.2;

    public static final CompactionOptions DEFAULTS =
            new CompactionOptions(
                    true, 0, DEFAULT_MAX_BYTES_PER_CHECKPOINT, DEFAULT_DELETED_ROWS_THRESHOLD);

    public static final CompactionOptions DISABLED =
            new CompactionOptions(
                    false, 0, DEFAULT_MAX_BYTES_PER_CHECKPOINT, DEFAULT_DELETED_ROWS_THRESHOLD);

    public CompactionOptions {
        if (smallFileSizeBytes < 0) {
            throw new IllegalArgumentException(
                    "compaction.small-file-size must be positive, but is " + smallFileSizeBytes);
        }
        if (maxBytesPerCheckpoint <= 0) {
            throw new IllegalArgumentException(
                    "compaction.max-bytes-per-checkpoint must be positive, but is "
                            + maxBytesPerCheckpoint);
        }
        if (!(deletedRowsThreshold > 0 && deletedRowsThreshold <= 1)) {
            throw new IllegalArgumentException(
                    "compaction.deleted-rows-threshold must be above 0 and at most 1, but is "
                            + deletedRowsThreshold);
        }
    }
}
