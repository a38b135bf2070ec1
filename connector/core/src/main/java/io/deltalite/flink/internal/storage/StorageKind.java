package io.deltalite.flink.internal.storage;

import io.deltalite.flink.exceptions.DeltaLiteUnsupportedStorageException;
import java.util.Locale;
import org.apache.hadoop.fs.Path;

/**
 * The storages deltalite writes tables on, each with the guarantees its commit protocol rests on
 * proven against a real one: that a Delta log file is created only if no other writer created it
 * (atomically, across processes), and that a file appears under its name only once it is whole. Any
 * other scheme is refused before anything is written.
 */
public enum StorageKind {
    /**
     * A local or mounted file system ({@code /path}, {@code file:}, a Windows drive): a file is
     * published with an atomic hard link or rename.
     */
    LOCAL,
    /** {@code hdfs://}: a file is published with HDFS's atomic rename, which never overwrites. */
    HDFS,
    /**
     * {@code s3a://} or {@code s3://}: conditional puts, after a probe that the store honours them.
     */
    S3;

    /**
     * The kind of storage of {@code location}.
     *
     * @throws DeltaLiteUnsupportedStorageException for any other scheme, naming it and what to do
     */
    public static StorageKind of(String location) {
        String scheme = new Path(location).toUri().getScheme();
        if (scheme == null || scheme.length() == 1 || scheme.equalsIgnoreCase("file")) {
            return LOCAL;
        }
        if (scheme.equalsIgnoreCase("hdfs")) {
            return HDFS;
        }
        if (S3Locations.isS3(location)) {
            return S3;
        }
        throw new DeltaLiteUnsupportedStorageException(
                "The Delta table location "
                        + location
                        + " is on the storage scheme '"
                        + scheme
                        + "', which deltalite does not write: "
                        + missing(scheme.toLowerCase(Locale.ROOT))
                        + " Put the table on S3 (s3a://), on HDFS (hdfs://) or on a local or"
                        + " mounted file system (a path or file://).");
    }

    /** What deltalite has not proven on {@code scheme}, the guarantees its commits rest on. */
    private static String missing(String scheme) {
        String guarantees =
                "deltalite has not proven there an atomic put-if-absent of each Delta log file"
                        + " across processes (without it two writers can both commit one version,"
                        + " and one's rows are lost), nor its publishing guard (a log file,"
                        + " journal note or staged file appears only once whole, and an abandoned"
                        + " write is dropped).";
        return switch (scheme) {
            case "abfs", "abfss" ->
                    "Azure Data Lake Storage is not tested with deltalite; " + guarantees;
            case "wasb", "wasbs" ->
                    "Azure Blob Storage through WASB renames by copying, not atomically; "
                            + guarantees;
            case "gs" -> "Google Cloud Storage is not tested with deltalite; " + guarantees;
            default ->
                    guarantees.substring(0, 1).toUpperCase(Locale.ROOT) + guarantees.substring(1);
        };
    }
}
