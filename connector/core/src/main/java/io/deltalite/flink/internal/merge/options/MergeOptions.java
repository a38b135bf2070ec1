package io.deltalite.flink.internal.merge.options;

import io.deltalite.flink.sink.NullKeyPolicy;
import io.deltalite.flink.sink.ParquetCompression;
import io.deltalite.flink.sink.PruneStrategy;
import io.deltalite.flink.sink.WriteMode;
import java.io.Serializable;
import java.util.Objects;

/**
 * The knobs of the merge engine, parsed and checked once.
 *
 * @param maxParallelFiles files read at the same time by one merge (probe and rewrite)
 * @param maxBufferedBytes budget of the change buffer of a writer, or {@link #AUTO_BUFFERED_BYTES}
 * @param targetFileSizeBytes size at which a new data file is started; 0 means the table's {@code
 *     delta.targetFileSize}, else 128 MiB
 * @param rowGroupSizeBytes Parquet row-group size of written files; bounds the memory of each open
 *     output file
 * @param readBatchSize rows per decoded batch when reading data files
 * @param pruneStrategy how files holding changed keys are found
 * @param commitRetries attempts after the first to land a commit when other writers interfere
 * @param nullKeyPolicy what to do with rows whose key has a null
 * @param writeMode how old rows of changed keys are removed from their files
 * @param deletionVectorRewriteThreshold in deletion-vector mode, the share of a file's rows above
 *     which a file is rewritten instead of given a deletion vector
 * @param compaction how writers keep the files of their partitions few and large
 * @param compression the codec of the Parquet files written
 * @param keyIndex how writers find the rows of changed keys without reading the table
 */
public record MergeOptions(
        int maxParallelFiles,
        long maxBufferedBytes,
        long targetFileSizeBytes,
        long rowGroupSizeBytes,
        int readBatchSize,
        PruneStrategy pruneStrategy,
        int commitRetries,
        NullKeyPolicy nullKeyPolicy,
        WriteMode writeMode,
        double deletionVectorRewriteThreshold,
        CompactionOptions compaction,
        ParquetCompression compression,
        KeyIndexOptions keyIndex)
        implements Serializable {

    /**
     * {@code max-buffered-bytes} left unset: the writers of a JVM share an eighth of its heap
     * ({@code BufferBudget}).
     */
    public static final long AUTO_BUFFERED_BYTES = 0;

    /** The default of {@code dv.rewrite-threshold}. */
    public static final double DEFAULT_DV_REWRITE_THRESHOLD = 0.5;

    public static final long DEFAULT_TARGET_FILE_SIZE = 128L << 20;

    public static final MergeOptions DEFAULTS =
            new MergeOptions(
                    4,
                    AUTO_BUFFERED_BYTES,
                    0,
                    32L << 20,
                    8192,
                    PruneStrategy.PROBE,
                    10,
                    NullKeyPolicy.INSERT,
                    WriteMode.AUTO,
                    DEFAULT_DV_REWRITE_THRESHOLD,
                    CompactionOptions.DEFAULTS,
                    ParquetCompression.ZSTD,
                    KeyIndexOptions.DEFAULTS);

    public MergeOptions {
        requirePositive(maxParallelFiles, "max-parallel-files");
        if (maxBufferedBytes < 0) {
            throw new IllegalArgumentException(
                    "max-buffered-bytes must be positive (or unset), but is " + maxBufferedBytes);
        }
        if (targetFileSizeBytes < 0) {
            throw new IllegalArgumentException(
                    "target-file-size must be positive, but is " + targetFileSizeBytes);
        }
        requirePositive(rowGroupSizeBytes, "row-group-size");
        requirePositive(readBatchSize, "read-batch-size");
        Objects.requireNonNull(pruneStrategy, "pruneStrategy");
        Objects.requireNonNull(nullKeyPolicy, "nullKeyPolicy");
        Objects.requireNonNull(writeMode, "writeMode");
        Objects.requireNonNull(compaction, "compaction");
        Objects.requireNonNull(compression, "compression");
        Objects.requireNonNull(keyIndex, "keyIndex");
        if (!(deletionVectorRewriteThreshold > 0 && deletionVectorRewriteThreshold <= 1)) {
            throw new IllegalArgumentException(
                    "dv.rewrite-threshold must be above 0 and at most 1, but is "
                            + deletionVectorRewriteThreshold);
        }
        if (commitRetries < 0) {
            throw new IllegalArgumentException(
                    "commit-retries must be 0 or more, but is " + commitRetries);
        }
    }

    /**
     * The size below which a data file is small: the configured one, else a quarter of {@code
     * targetSize} (the file size writes aim at).
     */
    public long smallFileSize(long targetSize) {
        return compaction.smallFileSizeBytes() > 0
                ? compaction.smallFileSizeBytes()
                : Math.max(1, targetSize / 16);
    }

    public MergeOptions withCompression(ParquetCompression value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                readBatchSize,
                pruneStrategy,
                commitRetries,
                nullKeyPolicy,
                writeMode,
                deletionVectorRewriteThreshold,
                compaction,
                value,
                keyIndex);
    }

    public MergeOptions withKeyIndex(KeyIndexOptions value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                readBatchSize,
                pruneStrategy,
                commitRetries,
                nullKeyPolicy,
                writeMode,
                deletionVectorRewriteThreshold,
                compaction,
                compression,
                value);
    }

    private static void requirePositive(long value, String name) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, but is " + value);
        }
    }

    public MergeOptions withMaxParallelFiles(int value) {
        return new MergeOptions(
                value,
                maxBufferedBytes,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                readBatchSize,
                pruneStrategy,
                commitRetries,
                nullKeyPolicy,
                writeMode,
                deletionVectorRewriteThreshold,
                compaction,
                compression,
                keyIndex);
    }

    public MergeOptions withMaxBufferedBytes(long value) {
        return new MergeOptions(
                maxParallelFiles,
                value,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                readBatchSize,
                pruneStrategy,
                commitRetries,
                nullKeyPolicy,
                writeMode,
                deletionVectorRewriteThreshold,
                compaction,
                compression,
                keyIndex);
    }

    public MergeOptions withTargetFileSizeBytes(long value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                value,
                rowGroupSizeBytes,
                readBatchSize,
                pruneStrategy,
                commitRetries,
                nullKeyPolicy,
                writeMode,
                deletionVectorRewriteThreshold,
                compaction,
                compression,
                keyIndex);
    }

    public MergeOptions withRowGroupSizeBytes(long value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                targetFileSizeBytes,
                value,
                readBatchSize,
                pruneStrategy,
                commitRetries,
                nullKeyPolicy,
                writeMode,
                deletionVectorRewriteThreshold,
                compaction,
                compression,
                keyIndex);
    }

    public MergeOptions withReadBatchSize(int value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                value,
                pruneStrategy,
                commitRetries,
                nullKeyPolicy,
                writeMode,
                deletionVectorRewriteThreshold,
                compaction,
                compression,
                keyIndex);
    }

    public MergeOptions withPruneStrategy(PruneStrategy value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                readBatchSize,
                value,
                commitRetries,
                nullKeyPolicy,
                writeMode,
                deletionVectorRewriteThreshold,
                compaction,
                compression,
                keyIndex);
    }

    public MergeOptions withCommitRetries(int value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                readBatchSize,
                pruneStrategy,
                value,
                nullKeyPolicy,
                writeMode,
                deletionVectorRewriteThreshold,
                compaction,
                compression,
                keyIndex);
    }

    public MergeOptions withNullKeyPolicy(NullKeyPolicy value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                readBatchSize,
                pruneStrategy,
                commitRetries,
                value,
                writeMode,
                deletionVectorRewriteThreshold,
                compaction,
                compression,
                keyIndex);
    }

    public MergeOptions withWriteMode(WriteMode value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                readBatchSize,
                pruneStrategy,
                commitRetries,
                nullKeyPolicy,
                value,
                deletionVectorRewriteThreshold,
                compaction,
                compression,
                keyIndex);
    }

    public MergeOptions withDeletionVectorRewriteThreshold(double value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                readBatchSize,
                pruneStrategy,
                commitRetries,
                nullKeyPolicy,
                writeMode,
                value,
                compaction,
                compression,
                keyIndex);
    }

    public MergeOptions withCompaction(CompactionOptions value) {
        return new MergeOptions(
                maxParallelFiles,
                maxBufferedBytes,
                targetFileSizeBytes,
                rowGroupSizeBytes,
                readBatchSize,
                pruneStrategy,
                commitRetries,
                nullKeyPolicy,
                writeMode,
                deletionVectorRewriteThreshold,
                value,
                compression,
                keyIndex);
    }
}
