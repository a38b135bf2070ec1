package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.SnapshotBuilder;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.MetadataColumnSpec;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.deltalite.flink.internal.delta.kernel.ColumnValues;
import io.deltalite.flink.internal.delta.kernel.KernelIterators;
import io.deltalite.flink.internal.delta.kernel.KernelSchemas;
import io.deltalite.flink.internal.delta.kernel.PhysicalNames;
import io.deltalite.flink.internal.merge.schema.ValueType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;

/**
 * Reads a whole Delta table the way any Kernel-based reader does — a plain scan, deletion vectors
 * applied, partition columns restored by Kernel — independent of the merge engine's read path. Rows
 * come back in table-column order, values as described in {@link ValueType}.
 */
public final class KernelTableReader {
    private KernelTableReader() {}

    public static List<Object[]> readAll(String path) {
        return readAll(path, Map.of());
    }

    /** Reads a table on storage that needs Hadoop settings, for example S3A's. */
    public static List<Object[]> readAll(String path, Map<String, String> hadoopOptions) {
        List<Object[]> rows = new ArrayList<>();
        scan(path, -1, hadoopOptions, (file, row) -> rows.add(row));
        return rows;
    }

    public static List<Object[]> readVersion(String path, long version) {
        return flatten(read(path, version));
    }

    /**
     * The live data files of the latest version, each with its rows, by the file's fully qualified
     * path (the form the engine uses for {@code DataFile.path()}).
     */
    public static Map<String, List<Object[]>> readByFile(String path) {
        return read(path, -1);
    }

    /** The add actions of the live files of the latest version, by fully qualified path. */
    public static Map<String, LiveFile> liveFiles(String path) {
        Engine engine = DefaultEngine.create(new Configuration());
        Snapshot snapshot = TableManager.loadSnapshot(path).build(engine);
        Map<String, LiveFile> files = new LinkedHashMap<>();
        try (CloseableIterator<FilteredColumnarBatch> batches =
                snapshot.getScanBuilder().build().getScanFiles(engine, true)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> scanFiles = batches.next().getRows()) {
                    while (scanFiles.hasNext()) {
                        Row scanFile = scanFiles.next();
                        Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
                        int stats = add.getSchema().indexOf("stats");
                        String file = qualifiedPath(engine, path, add);
                        files.put(
                                file,
                                new LiveFile(
                                        file,
                                        add.getString(add.getSchema().indexOf("path")),
                                        add.getLong(add.getSchema().indexOf("size")),
                                        stats < 0 || add.isNullAt(stats)
                                                ? null
                                                : add.getString(stats)));
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("listing " + path + " failed", e);
        }
        return files;
    }

    /**
     * A live data file as the Delta log describes it.
     *
     * @param path fully qualified path
     * @param logPath the path as written in the add action (relative and URI-encoded)
     * @param size file size in bytes
     * @param stats the statistics JSON, or null
     */
    public record LiveFile(String path, String logPath, long size, String stats) {}

    private static String qualifiedPath(Engine engine, String table, Row add) throws Exception {
        String root = engine.getFileSystemClient().resolvePath(table);
        return DeltaTableSnapshot.absolutePath(
                new org.apache.hadoop.fs.Path(root).toUri(),
                add.getString(add.getSchema().indexOf("path")));
    }

    private static List<Object[]> flatten(Map<String, List<Object[]>> byFile) {
        List<Object[]> rows = new ArrayList<>();
        byFile.values().forEach(rows::addAll);
        return rows;
    }

    public static long latestVersion(String path) {
        Engine engine = DefaultEngine.create(new Configuration());
        return TableManager.loadSnapshot(path).build(engine).getVersion();
    }

    /** The schema of the latest version, with each field's metadata (column mapping, defaults). */
    public static io.delta.kernel.types.StructType schema(String path) {
        Engine engine = DefaultEngine.create(new Configuration());
        return TableManager.loadSnapshot(path).build(engine).getSchema();
    }

    /**
     * Streams every row of the latest version to {@code rows}, one at a time, without holding the
     * table in memory.
     */
    public static void forEachRow(String path, Consumer<Object[]> rows) {
        scan(path, -1, (file, row) -> rows.accept(row));
    }

    private static Map<String, List<Object[]>> read(String path, long version) {
        Map<String, List<Object[]>> rows = new LinkedHashMap<>();
        scan(
                path,
                version,
                (file, row) -> rows.computeIfAbsent(file, unused -> new ArrayList<>()).add(row));
        return rows;
    }

    private static void scan(String path, long version, BiConsumer<String, Object[]> rows) {
        scan(path, version, Map.of(), rows);
    }

    private static void scan(
            String path,
            long version,
            Map<String, String> hadoopOptions,
            BiConsumer<String, Object[]> rows) {
        Configuration hadoopConf = new Configuration();
        hadoopOptions.forEach(hadoopConf::set);
        Engine engine = DefaultEngine.create(hadoopConf);
        SnapshotBuilder builder = TableManager.loadSnapshot(path);
        if (version >= 0) {
            builder = builder.atVersion(version);
        }
        Snapshot snapshot = builder.build(engine);
        StructType logical = snapshot.getSchema();
        List<ValueType.Field> fields = KernelSchemas.fromKernel(logical, path);
        StructType dataColumns = new StructType();
        for (StructField field : logical.fields()) {
            if (!snapshot.getPartitionColumnNames().contains(field.getName())) {
                dataColumns = dataColumns.add(field);
            }
        }
        StructType physical =
                PhysicalNames.of(logical, snapshot.getTableProperties())
                        .fileSchema(dataColumns)
                        .add(KernelSchemas.ROW_INDEX);
        Scan scan = snapshot.getScanBuilder().build();
        forEachBatch(
                engine,
                path,
                scan,
                physical,
                (file, batch) -> collect(batch, fields, row -> rows.accept(file, row)));
    }

    /**
     * Reads every live file of {@code scan} in the file schema {@code physical} and hands each of
     * its batches, as Kernel turns it into the scan's logical rows, to {@code batches} with the
     * file's path.
     */
    private static void forEachBatch(
            Engine engine,
            String path,
            Scan scan,
            StructType physical,
            BiConsumer<String, FilteredColumnarBatch> batches) {
        Row state = scan.getScanState(engine);
        try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
            while (files.hasNext()) {
                try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
                    while (scanFiles.hasNext()) {
                        Row scanFile = scanFiles.next();
                        Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
                        String file = qualifiedPath(engine, path, add);
                        FileStatus status =
                                FileStatus.of(
                                        file, add.getLong(add.getSchema().indexOf("size")), 0);
                        CloseableIterator<ColumnarBatch> data =
                                engine.getParquetHandler()
                                        .readParquetFiles(
                                                toIterator(status), physical, Optional.empty())
                                        .map(FileReadResult::getData);
                        try (CloseableIterator<FilteredColumnarBatch> logicalData =
                                Scan.transformPhysicalData(engine, state, scanFile, data)) {
                            while (logicalData.hasNext()) {
                                batches.accept(file, logicalData.next());
                            }
                        }
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("reading " + path + " failed", e);
        }
    }

    /**
     * The row id and row commit version of each row of the latest version, as Kernel's scan
     * resolves them (Delta's row tracking: the materialized values, else the file's base row id
     * plus the row's index and its default commit version), by the value of the {@code BIGINT}
     * column {@code keyColumn}.
     */
    public static Map<Long, long[]> rowTracking(String path, String keyColumn) {
        Engine engine = DefaultEngine.create(new Configuration());
        Snapshot snapshot = TableManager.loadSnapshot(path).build(engine);
        StructType read =
                snapshot.getSchema()
                        .addMetadataColumn("_row_id", MetadataColumnSpec.ROW_ID)
                        .addMetadataColumn(
                                "_row_commit_version", MetadataColumnSpec.ROW_COMMIT_VERSION);
        Scan scan = snapshot.getScanBuilder().withReadSchema(read).build();
        StructType physical =
                io.delta.kernel.internal.data.ScanStateRow.getPhysicalDataReadSchema(
                        scan.getScanState(engine));
        Map<Long, long[]> tracked = new LinkedHashMap<>();
        forEachBatch(
                engine,
                path,
                scan,
                physical,
                (file, filtered) -> {
                    ColumnarBatch batch = filtered.getData();
                    StructType schema = batch.getSchema();
                    ColumnVector keys = batch.getColumnVector(schema.indexOf(keyColumn));
                    ColumnVector ids = batch.getColumnVector(schema.indexOf("_row_id"));
                    ColumnVector versions =
                            batch.getColumnVector(schema.indexOf("_row_commit_version"));
                    Optional<ColumnVector> selection = filtered.getSelectionVector();
                    for (int row = 0; row < batch.getSize(); row++) {
                        if (selection.isPresent()
                                && (selection.get().isNullAt(row)
                                        || !selection.get().getBoolean(row))) {
                            continue;
                        }
                        long[] previous =
                                tracked.put(
                                        keys.getLong(row),
                                        new long[] {ids.getLong(row), versions.getLong(row)});
                        if (previous != null) {
                            throw new IllegalStateException(
                                    "key " + keys.getLong(row) + " twice in " + path);
                        }
                    }
                });
        return tracked;
    }

    private static void collect(
            FilteredColumnarBatch filtered, List<ValueType.Field> fields, Consumer<Object[]> rows) {
        ColumnarBatch batch = filtered.getData();
        Optional<ColumnVector> selection = filtered.getSelectionVector();
        for (int row = 0; row < batch.getSize(); row++) {
            if (selection.isPresent()
                    && (selection.get().isNullAt(row) || !selection.get().getBoolean(row))) {
                continue;
            }
            Object[] values = new Object[fields.size()];
            for (int i = 0; i < fields.size(); i++) {
                int ordinal = batch.getSchema().indexOf(fields.get(i).name());
                values[i] =
                        ColumnValues.read(
                                batch.getColumnVector(ordinal), row, fields.get(i).type());
            }
            rows.accept(values);
        }
    }

    private static CloseableIterator<FileStatus> toIterator(FileStatus status) {
        return KernelIterators.of(List.of(status).iterator());
    }
}
