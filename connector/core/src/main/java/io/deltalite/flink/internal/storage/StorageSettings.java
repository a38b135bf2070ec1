package io.deltalite.flink.internal.storage;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

/**
 * How to reach the storage of one table: the user's Hadoop settings (endpoint, credentials, ...)
 * and whether the user accepts S3 single-writer mode. The settings may hold secrets, so {@link
 * #toString()} shows only their keys.
 *
 * @param hadoopOptions Hadoop file system settings, for example {@code fs.s3a.endpoint}
 * @param s3SingleWriter accept an S3 endpoint that ignores conditional writes; safe only when
 *     exactly one writer ever writes the table
 */
public record StorageSettings(Map<String, String> hadoopOptions, boolean s3SingleWriter)
        implements Serializable {

    public StorageSettings {
        hadoopOptions = Map.copyOf(hadoopOptions);
    }

    /** The given Hadoop settings, several writers allowed (the safe default). */
    public static StorageSettings of(Map<String, String> hadoopOptions) {
        return new StorageSettings(hadoopOptions, false);
    }

    @Override
    public String toString() {
        return "StorageSettings{hadoopOptions="
                + new TreeMap<>(hadoopOptions).keySet()
                + " (values hidden), s3SingleWriter="
                + s3SingleWriter
                + "}";
    }
}
