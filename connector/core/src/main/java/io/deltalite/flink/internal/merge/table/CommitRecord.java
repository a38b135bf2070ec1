package io.deltalite.flink.internal.merge.table;

import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What one version of the Delta log recorded, as far as the commit protocol cares: the transaction
 * ids it set and the data files it added.
 *
 * @param version the table version
 * @param transactions transaction versions by application id
 * @param addedPaths fully qualified paths of the files its {@code add} actions name
 * @param timestampMillis when the commit was written: the modification time of its log file, the
 *     commit timestamp of Delta tables without in-commit timestamps
 */
public record CommitRecord(
        long version,
        Map<String, Long> transactions,
        Set<String> addedPaths,
        long timestampMillis) {
    public CommitRecord {
        transactions = Map.copyOf(transactions);
        addedPaths = Set.copyOf(addedPaths);
    }

    /** The transaction version this commit records for {@code appId}, if any. */
    public OptionalLong transaction(String appId) {
        Long version = transactions.get(Objects.requireNonNull(appId, "appId"));
        return version == null ? OptionalLong.empty() : OptionalLong.of(version);
    }
}
