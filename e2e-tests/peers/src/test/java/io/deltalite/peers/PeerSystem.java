package io.deltalite.peers;

import io.deltalite.flink.sink.Distribution;
import io.deltalite.flink.sink.WriteMode;

/** The systems side by side, each with the class path it runs on. */
enum PeerSystem {
    DELTALITE_COPY_ON_WRITE("deltalite copy-on-write", "deltalite"),
    DELTALITE_DELETION_VECTORS("deltalite deletion vectors", "deltalite"),
    /**
     * Deletion vectors with the option that spreads one partition over every writer: an
     * unpartitioned table is one partition, so by default one writer of the two does its work.
     */
    DELTALITE_DELETION_VECTORS_BY_KEY(
            "deltalite deletion vectors, distribution = key", "deltalite"),
    ICEBERG_UPSERT("Iceberg upsert (equality deletes)", "iceberg"),
    PAIMON_MERGE_ON_READ("Paimon primary key, merge-on-read", "paimon"),
    PAIMON_DELETION_VECTORS("Paimon primary key, deletion vectors", "paimon");

    final String label;

    /** The class path file the build writes for it ({@code target/classpaths/<name>.txt}). */
    final String classPath;

    PeerSystem(String label, String classPath) {
        this.label = label;
        this.classPath = classPath;
    }

    /** The system's sink; only call it in a JVM started on {@link #classPath}. */
    Target target() {
        return switch (this) {
            case DELTALITE_COPY_ON_WRITE ->
                    new DeltaLiteTarget(WriteMode.COPY_ON_WRITE, Distribution.PARTITION);
            case DELTALITE_DELETION_VECTORS ->
                    new DeltaLiteTarget(WriteMode.DELETION_VECTORS, Distribution.PARTITION);
            case DELTALITE_DELETION_VECTORS_BY_KEY ->
                    new DeltaLiteTarget(WriteMode.DELETION_VECTORS, Distribution.KEY);
            case ICEBERG_UPSERT -> new IcebergTarget();
            case PAIMON_MERGE_ON_READ -> new PaimonTarget(false);
            case PAIMON_DELETION_VECTORS -> new PaimonTarget(true);
        };
    }

    /** The system's own Java reader; only call it in a JVM started on {@link #classPath}. */
    TableReader reader() {
        return switch (this) {
            case DELTALITE_COPY_ON_WRITE,
                    DELTALITE_DELETION_VECTORS,
                    DELTALITE_DELETION_VECTORS_BY_KEY ->
                    new KernelRead();
            case ICEBERG_UPSERT -> new IcebergRead();
            case PAIMON_MERGE_ON_READ, PAIMON_DELETION_VECTORS -> new PaimonRead();
        };
    }
}
