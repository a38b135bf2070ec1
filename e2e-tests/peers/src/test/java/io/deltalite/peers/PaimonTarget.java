package io.deltalite.peers;

import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.flink.sink.FlinkSinkBuilder;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

/**
 * An Apache Paimon primary-key table in a filesystem catalog whose warehouse is the table's
 * directory: fixed buckets (one per writer, PEERS.md), deduplicate merge engine, compaction inline
 * — every setting Paimon's default except, in one mode, {@code deletion-vectors.enabled}.
 */
final class PaimonTarget implements Target {
    static final Identifier TABLE = Identifier.create("bench", "changes");

    private final boolean deletionVectors;

    PaimonTarget(boolean deletionVectors) {
        this.deletionVectors = deletionVectors;
    }

    @Override
    public void create(Path warehouse, boolean partitionedByDay) throws Exception {
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("id", DataTypes.BIGINT().notNull())
                        .column("day", DataTypes.STRING().notNull())
                        .column("amount", DataTypes.BIGINT())
                        .column("note", DataTypes.STRING())
                        .option("bucket", "2")
                        .option("deletion-vectors.enabled", Boolean.toString(deletionVectors));
        if (partitionedByDay) {
            schema.partitionKeys("day").primaryKey("day", "id");
        } else {
            schema.primaryKey("id");
        }
        try (Catalog catalog = catalog(warehouse)) {
            catalog.createDatabase(TABLE.getDatabaseName(), true);
            catalog.createTable(TABLE, schema.build(), false);
        }
    }

    @Override
    public void sink(
            DataStream<RowData> changes,
            Path warehouse,
            boolean partitionedByDay,
            int parallelism) {
        new FlinkSinkBuilder(table(warehouse)).forRowData(changes).parallelism(parallelism).build();
    }

    @Override
    public Map<Long, Long> commitTimes(Path warehouse, long jobStartMillis) throws Exception {
        Map<Long, Long> committed = new TreeMap<>();
        Iterator<Snapshot> snapshots = table(warehouse).snapshotManager().snapshots();
        while (snapshots.hasNext()) {
            Snapshot snapshot = snapshots.next();
            // An APPEND snapshot makes a checkpoint's rows visible; a COMPACT one of the same
            // checkpoint follows it.
            if (snapshot.timeMillis() >= jobStartMillis) {
                committed.merge(snapshot.commitIdentifier(), snapshot.timeMillis(), Math::min);
            }
        }
        return committed;
    }

    static FileStoreTable table(Path warehouse) {
        try (Catalog catalog = catalog(warehouse)) {
            return (FileStoreTable) catalog.getTable(TABLE);
        } catch (Exception e) {
            throw new IllegalStateException("Paimon table in " + warehouse + " not found", e);
        }
    }

    private static Catalog catalog(Path warehouse) {
        return CatalogFactory.createCatalog(
                CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri())));
    }
}
