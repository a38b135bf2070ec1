package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.internal.delta.fileio.ConnectorClassLoader;
import io.deltalite.flink.internal.delta.fileio.ParquetInputFiles;
import io.deltalite.flink.internal.delta.fileio.TrackingFileIO;
import io.deltalite.flink.internal.delta.kernel.KernelBatchStream;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.delta.kernel.KernelIterators;
import io.deltalite.flink.internal.delta.kernel.KernelRowBatch;
import io.deltalite.flink.internal.delta.kernel.KernelSchemas;
import io.deltalite.flink.internal.delta.kernel.KeyStatisticsReader;
import io.deltalite.flink.internal.delta.kernel.LogStatistics;
import io.deltalite.flink.internal.delta.kernel.PartitionValueCodec;
import io.deltalite.flink.internal.delta.kernel.PhysicalNames;
import io.deltalite.flink.internal.delta.kernel.RowTrackingVectors;
import io.deltalite.flink.internal.delta.kernel.RowsColumnarBatch;
import io.deltalite.flink.internal.delta.kernel.TableRowDecoder;
import io.deltalite.flink.internal.delta.kernel.Utf8Strings;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.table.BatchStream;
import io.deltalite.flink.internal.merge.table.ChangedKeys;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.KeyHits;
import io.deltalite.flink.internal.merge.table.KeyIdentitySink;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletionVector;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.parquet.KeyIdentityReader;
import io.deltalite.flink.internal.parquet.ParquetKeyScanner;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;

/**
 * Reads and writes the Parquet data files of a table with Kernel's Parquet handler.
 *
 * <p>Files are read one batch at a time in their physical layout (data columns only, or only the
 * key columns), in file order: each row's position is counted from the start of the file, and the
 * file's deletion vector marks the rows at its positions as not live. New files are written with
 * Kernel's multi-file writer, which rolls at the target file size and computes statistics; the
 * match-key columns always get them.
 */
final class KernelFileStore implements DataFileStore {
    private final DeltaTable table;
    private final Engine engine;
    private final TableSchema schema;
    private final StructType dataSchema;

    /**
     * The columns of the rows the store reads and writes: the data columns, and in a table with row
     * tracking its two row tracking columns after them ({@link RowTrackingColumns}).
     */
    private final StructType rowSchema;

    /**
     * The columns of the files the store writes: {@link #rowSchema}, with the row tracking columns'
     * Parquet field ids where the data columns have them ({@link
     * RowTrackingColumns#appendForWriting}).
     */
    private final StructType writeSchema;

    /** The row tracking columns, or null when the table does not track rows. */
    private final RowTrackingColumns tracking;

    private final StructType keySchema;
    private final int[] dataKeyOrdinals;
    private final int[] keyOnlyOrdinals;
    private final List<ValueType> keyTypes;
    private final List<Column> keyColumns;
    private final PartitionValueCodec partitionCodec;
    private final KeyStatisticsReader statisticsReader;
    private final TableRowDecoder rowDecoder;
    private final ParquetKeyScanner keyScanner;
    private final KeyIdentityReader identityReader;

    /** Reads the materialized row-id column alone; null when the table does not track rows. */
    private final KeyIdentityReader rowIdReader;

    /** Joins small files row group by row group, for folds (none in a table that keeps row ids). */
    private final RowGroupSplice splice;

    /** Writes new rows without Kernel's column vectors; null where Kernel must write them. */
    private final RowParquetWriter rowWriter;

    /**
     * The row-group layouts of the files read by row group lately, by path (empty: a file whose row
     * groups cannot be read apart).
     */
    private final Map<String, Optional<RowGroupLayout>> layouts =
            java.util.Collections.synchronizedMap(
                    new java.util.LinkedHashMap<>(16, 0.75f, true) {
                        @Override
                        protected boolean removeEldestEntry(
                                Map.Entry<String, Optional<RowGroupLayout>> eldest) {
                            return size() > 256;
                        }
                    });

    KernelFileStore(DeltaTable table) {
        this.table = table;
        this.engine = table.engine();
        this.schema = table.schema();
        PhysicalNames names = table.physicalNames();
        this.dataSchema = names.fileSchema(KernelSchemas.dataSchema(schema));
        this.tracking = table.rowTracking();
        this.rowSchema = tracking == null ? dataSchema : tracking.appendTo(dataSchema);
        this.writeSchema = tracking == null ? dataSchema : tracking.appendForWriting(dataSchema);
        this.keyTypes = schema.matchKeyTypes();
        List<String> keyNames = names.of(schema.matchKey());
        StructType keys = new StructType();
        List<Column> columns = new ArrayList<>();
        this.dataKeyOrdinals = new int[keyNames.size()];
        for (int i = 0; i < keyNames.size(); i++) {
            keys = keys.add(dataSchema.get(keyNames.get(i)));
            dataKeyOrdinals[i] = dataSchema.indexOf(keyNames.get(i));
            columns.add(new Column(keyNames.get(i)));
        }
        this.keySchema = keys;
        this.keyOnlyOrdinals = java.util.stream.IntStream.range(0, keyNames.size()).toArray();
        this.keyColumns = List.copyOf(columns);
        this.partitionCodec = new PartitionValueCodec(schema, names.of(schema.partitionColumns()));
        this.statisticsReader = new KeyStatisticsReader(dataSchema, keyNames, keyTypes);
        this.rowDecoder = new TableRowDecoder(schema);
        this.keyScanner = new ParquetKeyScanner(keyNames, keyTypes);
        this.identityReader = new KeyIdentityReader(keyNames, keyTypes);
        this.rowIdReader =
                tracking == null
                        ? null
                        : new KeyIdentityReader(
                                List.of(tracking.rowId()),
                                List.of(ValueType.of(ValueType.Kind.BIGINT)));
        this.rowWriter =
                tracking == null
                        ? RowParquetWriter.forSchema(table.engineFileIO(), schema, dataSchema)
                        : null;
        this.splice =
                new RowGroupSplice(
                        table.fileIO(),
                        tracking == null
                                ? io.deltalite.flink.internal.delta.kernel.KernelInternals
                                        .parquetSchemaOfWrites(dataSchema)
                                : null);
    }

    StructType dataSchema() {
        return dataSchema;
    }

    PartitionValueCodec partitionCodec() {
        return partitionCodec;
    }

    KeyStatisticsReader statisticsReader() {
        return statisticsReader;
    }

    @Override
    public BatchStream readKeys(DataFile file) {
        return read(file, keySchema, keyOnlyOrdinals, null);
    }

    /**
     * Reads the key columns with parquet-java's column reader ({@link ParquetKeyScanner}); a file
     * whose key columns it cannot compare exactly is read row-wise through Kernel instead.
     */
    @Override
    public KeyHits locateKeys(DataFile file, ChangedKeys keys, boolean firstOnly) {
        Optional<KeyHits> located;
        try {
            DeletionVector deleted = readDeletionVector(file);
            located =
                    ConnectorClassLoader.call(
                            () ->
                                    keyScanner.locate(
                                            ParquetInputFiles.open(
                                                    table.fileIO(), file.path(), file.sizeBytes()),
                                            keys,
                                            deleted,
                                            firstOnly));
        } catch (DeltaLiteException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw readFailure(file, e);
        }
        return located.orElseGet(() -> locateKeysRowWise(file, keys, firstOnly));
    }

    /** The row-wise search through Kernel's reader: the fallback, and the reference in tests. */
    KeyHits locateKeysRowWise(DataFile file, ChangedKeys keys, boolean firstOnly) {
        return DataFileStore.super.locateKeys(file, keys, firstOnly);
    }

    /**
     * Reads the key columns with parquet-java's column reader ({@link KeyIdentityReader}); a file
     * whose key columns it cannot decode exactly (or keys of other types than this table's) is read
     * row-wise through Kernel instead.
     */
    @Override
    public long readKeyIdentities(DataFile file, List<ValueType> types, KeyIdentitySink sink) {
        if (!types.equals(keyTypes)) {
            return readKeyIdentitiesRowWise(file, types, sink);
        }
        OptionalLong rows;
        try {
            rows =
                    ConnectorClassLoader.call(
                            () ->
                                    identityReader.read(
                                            ParquetInputFiles.open(
                                                    table.fileIO(), file.path(), file.sizeBytes()),
                                            sink));
        } catch (DeltaLiteException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw readFailure(file, e);
        }
        return rows.isPresent() ? rows.getAsLong() : readKeyIdentitiesRowWise(file, types, sink);
    }

    /** The row-wise read through Kernel's reader: the fallback, and the reference in tests. */
    long readKeyIdentitiesRowWise(DataFile file, List<ValueType> types, KeyIdentitySink sink) {
        return DataFileStore.super.readKeyIdentities(file, types, sink);
    }

    /**
     * In a table with row tracking, the rows come with their row ids and commit versions resolved
     * ({@link RowTrackingVectors#resolved}), so that writing them keeps both.
     */
    @Override
    public BatchStream readRows(DataFile file) {
        return read(file, rowSchema, dataKeyOrdinals, rowDecoder);
    }

    @Override
    public boolean tracksRowIds() {
        return tracking != null;
    }

    @Override
    public RowBatch newRows(List<Object[]> rows, long[] rowIds, int rowIdsFrom) {
        return KernelRowBatch.of(
                new RowsColumnarBatch(schema, rowSchema, rows, rowIds, rowIdsFrom),
                Optional.empty(),
                dataKeyOrdinals,
                keyTypes,
                rowDecoder);
    }

    /** Reads the key columns and the row tracking columns, with the ids resolved. */
    @Override
    public java.util.Map<io.deltalite.flink.internal.merge.value.RowKey, Long> rowIdsOf(
            DataFile file, io.deltalite.flink.internal.merge.table.KeyMatcher keys) {
        if (tracking == null) {
            return java.util.Map.of();
        }
        DeletionVector deleted = readDeletionVector(file);
        java.util.Map<io.deltalite.flink.internal.merge.value.RowKey, Long> ids =
                new java.util.HashMap<>();
        long position = 0;
        try (CloseableIterator<ColumnarBatch> batches =
                physical(file, tracking.appendTo(keySchema))) {
            while (batches.hasNext()) {
                ColumnarBatch batch =
                        RowTrackingVectors.resolved(batches.next(), file.rowLineage(), position);
                KernelRowBatch rows =
                        KernelRowBatch.of(
                                batch, position, deleted, keyOnlyOrdinals, keyTypes, null);
                ColumnVector rowIds = batch.getColumnVector(keySchema.length());
                for (int row = 0; row < batch.getSize(); row++) {
                    if (!rows.isLive(row)) {
                        continue;
                    }
                    io.deltalite.flink.internal.merge.value.RowKey key =
                            keys == null ? rows.keyAt(row) : keys.match(rows, row);
                    if (key != null) {
                        ids.put(key, rowIds.isNullAt(row) ? -1L : rowIds.getLong(row));
                    }
                }
                position += batch.getSize();
            }
        } catch (DeltaLiteException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw readFailure(file, e);
        }
        return ids;
    }

    /**
     * Reads the row-id column alone, with parquet-java's column reader ({@link KeyIdentityReader},
     * which hands over each non-null value with its position); a row whose materialized id is null
     * has the id {@code baseRowId + position}. Null when the file holds no such column or one the
     * reader cannot decode exactly.
     */
    @Override
    public long[] rowIdsAt(DataFile file, long[] positions) {
        if (tracking == null) {
            return null;
        }
        long[] sorted = java.util.Arrays.stream(positions).sorted().distinct().toArray();
        long[] materialized = new long[sorted.length];
        boolean[] present = new boolean[sorted.length];
        // The next wanted position; blocks come in file order, as the positions are sorted.
        int[] next = {0};
        OptionalLong rows;
        try {
            rows =
                    ConnectorClassLoader.call(
                            () ->
                                    rowIdReader.read(
                                            ParquetInputFiles.open(
                                                    table.fileIO(), file.path(), file.sizeBytes()),
                                            (high, low, at, count) -> {
                                                // Both in file order: a merge of the two lists.
                                                for (int i = 0;
                                                        i < count && next[0] < sorted.length;
                                                        i++) {
                                                    while (next[0] < sorted.length
                                                            && sorted[next[0]] < at[i]) {
                                                        next[0]++;
                                                    }
                                                    if (next[0] < sorted.length
                                                            && sorted[next[0]] == at[i]) {
                                                        materialized[next[0]] = high[i];
                                                        present[next[0]] = true;
                                                        next[0]++;
                                                    }
                                                }
                                            }));
        } catch (DeltaLiteException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw readFailure(file, e);
        }
        if (rows.isEmpty()
                || (sorted.length > 0 && sorted[sorted.length - 1] >= rows.getAsLong())) {
            // A position past the file's rows would take another file's id from the lineage:
            // read ids with the keys instead.
            return null;
        }
        io.deltalite.flink.internal.merge.value.RowLineage lineage = file.rowLineage();
        long[] ids = new long[positions.length];
        for (int i = 0; i < positions.length; i++) {
            int at = java.util.Arrays.binarySearch(sorted, positions[i]);
            ids[i] =
                    present[at]
                            ? materialized[at]
                            : lineage == null ? -1 : lineage.rowIdAt(positions[i]);
        }
        return ids;
    }

    @Override
    public List<DataFile> rewriteRowIds(
            PartitionValues partition,
            DataFile file,
            java.util.Map<io.deltalite.flink.internal.merge.value.RowKey, Long> rowIds,
            io.deltalite.flink.internal.merge.value.KeyGroups keys) {
        if (tracking == null) {
            return DataFileStore.super.rewriteRowIds(partition, file, rowIds, keys);
        }
        DeletionVector deleted = readDeletionVector(file);
        long[] nextPosition = {0};
        BatchStream rows =
                new KernelBatchStream(
                        file,
                        table.location(),
                        physical(file, rowSchema)
                                .<io.deltalite.flink.internal.merge.table.RowBatch>map(
                                        batch -> {
                                            long first = nextPosition[0];
                                            nextPosition[0] += batch.getSize();
                                            return withRowIds(
                                                    RowTrackingVectors.resolved(
                                                            batch, file.rowLineage(), first),
                                                    first,
                                                    deleted,
                                                    rowIds);
                                        }));
        return write(partition, rows, keys);
    }

    /** A batch of rows read, each row whose key {@code rowIds} names with that id instead. */
    private KernelRowBatch withRowIds(
            ColumnarBatch batch,
            long first,
            DeletionVector deleted,
            java.util.Map<io.deltalite.flink.internal.merge.value.RowKey, Long> rowIds) {
        KernelRowBatch rows =
                KernelRowBatch.of(batch, first, deleted, dataKeyOrdinals, keyTypes, rowDecoder);
        ColumnVector own = batch.getColumnVector(rowSchema.length() - 2);
        long[] ids = new long[batch.getSize()];
        for (int row = 0; row < ids.length; row++) {
            io.deltalite.flink.internal.merge.value.RowKey key = rows.keyAt(row);
            Long id = key == null ? null : rowIds.get(key);
            ids[row] = id != null ? id : own.isNullAt(row) ? -1 : own.getLong(row);
        }
        return KernelRowBatch.of(
                RowTrackingVectors.withRowIds(batch, ids),
                first,
                deleted,
                dataKeyOrdinals,
                keyTypes,
                rowDecoder);
    }

    /**
     * Streams the rows of {@code file} in their physical order; each batch knows the position of
     * its first row, and a deletion vector of the file marks its rows as not live.
     */
    private BatchStream read(
            DataFile file, StructType columns, int[] keyOrdinals, TableRowDecoder rows) {
        DeletionVector deleted = readDeletionVector(file);
        return batches(file, physical(file, columns), 0, deleted, keyOrdinals, rows);
    }

    /**
     * The footer's row groups: {@code bounds[g]} is the position of row group {@code g}'s first
     * row, the last entry the file's row count. Null for a file whose row groups are not laid out
     * one after the other in file order: parquet-java picks a range of row groups by where their
     * bytes lie, and only such a layout makes that pick exactly the row groups asked for.
     */
    @Override
    public long[] rowGroupBounds(DataFile file) {
        RowGroupLayout layout = rowGroupLayout(file);
        return layout == null ? null : layout.rowBounds.clone();
    }

    /**
     * Reads the row groups through Kernel's batch materializer over parquet-java's file range
     * ({@link KernelInternals#readRowGroups}), which checks that each row is at the position
     * counted for it; otherwise as {@link #readRows(DataFile)}.
     */
    @Override
    public BatchStream readRows(DataFile file, int fromGroup, int toGroup) {
        RowGroupLayout layout = rowGroupLayout(file);
        int groups = layout == null ? 0 : layout.rowBounds.length - 1;
        if (layout == null || fromGroup < 0 || toGroup > groups || fromGroup >= toGroup) {
            throw new IllegalArgumentException(
                    "row groups "
                            + fromGroup
                            + ".."
                            + toGroup
                            + " of "
                            + file.path()
                            + (layout == null
                                    ? ", whose row groups cannot be read apart"
                                    : ", which has " + groups));
        }
        long first = layout.rowBounds[fromGroup];
        long count = layout.rowBounds[toGroup] - first;
        long fromByte = layout.byteStarts[fromGroup];
        long toByte = toGroup < groups ? layout.byteStarts[toGroup] : Long.MAX_VALUE;
        DeletionVector deleted = readDeletionVector(file);
        StructType readColumns = Utf8Strings.readSchema(rowSchema);
        CloseableIterator<ColumnarBatch> physical;
        try {
            physical =
                    ConnectorClassLoader.inConnectorLoader(
                            ConnectorClassLoader.call(
                                    () ->
                                            KernelInternals.readRowGroups(
                                                    ParquetInputFiles.open(
                                                            table.fileIO(),
                                                            file.path(),
                                                            file.sizeBytes()),
                                                    readColumns,
                                                    fromByte,
                                                    toByte,
                                                    first,
                                                    count,
                                                    table.readBatchSize())));
        } catch (IOException | RuntimeException e) {
            throw readFailure(file, e);
        }
        if (readColumns != rowSchema) {
            physical = physical.map(batch -> Utf8Strings.decoded(batch, rowSchema));
        }
        return batches(file, physical, first, deleted, dataKeyOrdinals, rowDecoder);
    }

    /**
     * Where a file's row groups start, by row and by byte: read from its footer once, as data files
     * never change while their path is live (a worn file is moved over several merges).
     */
    private record RowGroupLayout(long[] rowBounds, long[] byteStarts) {}

    private RowGroupLayout rowGroupLayout(DataFile file) {
        Optional<RowGroupLayout> known = layouts.get(file.path());
        if (known == null) {
            known = Optional.ofNullable(readRowGroupLayout(file));
            layouts.put(file.path(), known);
        }
        return known.orElse(null);
    }

    private RowGroupLayout readRowGroupLayout(DataFile file) {
        List<BlockMetaData> groups;
        try {
            groups =
                    ConnectorClassLoader.call(
                            () -> {
                                try (ParquetFileReader reader =
                                        ParquetFileReader.open(
                                                ParquetInputFiles.open(
                                                        table.fileIO(),
                                                        file.path(),
                                                        file.sizeBytes()))) {
                                    return reader.getFooter().getBlocks();
                                }
                            });
        } catch (IOException | RuntimeException e) {
            throw readFailure(file, e);
        }
        long[] rows = new long[groups.size() + 1];
        long[] bytes = new long[groups.size()];
        for (int g = 0; g < groups.size(); g++) {
            BlockMetaData group = groups.get(g);
            rows[g + 1] = rows[g] + group.getRowCount();
            bytes[g] = group.getStartingPos();
            // parquet-java takes a row group whose middle byte lies in the range read
            boolean inOrder =
                    group.getRowCount() >= 0
                            && group.getCompressedSize() > 0
                            && (g == 0
                                    || bytes[g - 1] + groups.get(g - 1).getCompressedSize()
                                            <= bytes[g]);
            if (!inOrder) {
                return null;
            }
        }
        return new RowGroupLayout(rows, bytes);
    }

    /**
     * {@code physical}'s batches as row batches of {@code file}, the first of them starting at
     * position {@code firstPosition}; {@code deleted} marks rows not live.
     */
    private BatchStream batches(
            DataFile file,
            CloseableIterator<ColumnarBatch> physical,
            long firstPosition,
            DeletionVector deleted,
            int[] keyOrdinals,
            TableRowDecoder rows) {
        long[] nextPosition = {firstPosition};
        boolean resolve = rows != null && tracking != null;
        return new KernelBatchStream(
                file,
                table.location(),
                physical.<io.deltalite.flink.internal.merge.table.RowBatch>map(
                        batch -> {
                            long first = nextPosition[0];
                            nextPosition[0] += batch.getSize();
                            return KernelRowBatch.of(
                                    resolve
                                            ? RowTrackingVectors.resolved(
                                                    batch, file.rowLineage(), first)
                                            : batch,
                                    first,
                                    deleted,
                                    keyOrdinals,
                                    keyTypes,
                                    rows);
                        }));
    }

    /**
     * The batches of {@code columns} of {@code file}, in its physical order; string columns are
     * read as their bytes and decoded by the JDK's own decoder ({@link Utf8Strings}).
     */
    private CloseableIterator<ColumnarBatch> physical(DataFile file, StructType columns) {
        StructType readColumns = Utf8Strings.readSchema(columns);
        try {
            CloseableIterator<FileReadResult> results =
                    engine.getParquetHandler()
                            .readParquetFiles(
                                    KernelIterators.of(
                                            List.of(
                                                            FileStatus.of(
                                                                    file.path(),
                                                                    file.sizeBytes(),
                                                                    file.modificationTime()))
                                                    .iterator()),
                                    readColumns,
                                    Optional.empty());
            if (readColumns == columns) {
                return results.map(FileReadResult::getData);
            }
            return results.map(result -> Utf8Strings.decoded(result.getData(), columns));
        } catch (IOException | RuntimeException e) {
            throw readFailure(file, e);
        }
    }

    private DeltaLiteException readFailure(DataFile file, Exception cause) {
        return io.deltalite.flink.internal.merge.table.UnreadableDataFileException.of(
                file.path(), table.location(), cause);
    }

    @Override
    public io.deltalite.flink.internal.merge.value.StagedKeys stageKeys(
            java.util.Collection<io.deltalite.flink.internal.merge.value.RowKey> keys) {
        return table.stagedKeys().write(keys);
    }

    @Override
    public io.deltalite.flink.internal.merge.table.KeyStream readStagedKeys(
            io.deltalite.flink.internal.merge.value.StagedKeys file) {
        return table.stagedKeys().read(file);
    }

    @Override
    public java.util.OptionalLong fileSize(String path) {
        try {
            return java.util.OptionalLong.of(
                    engine.getFileSystemClient().getFileStatus(path).getSize());
        } catch (java.io.FileNotFoundException e) {
            return java.util.OptionalLong.empty();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(
                    "Reading the size of " + path + " of Delta table " + table.location(), e);
        }
    }

    @Override
    public boolean exists(String path) {
        try {
            engine.getFileSystemClient().getFileStatus(path);
            return true;
        } catch (java.io.FileNotFoundException e) {
            return false;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(
                    "Checking " + path + " of Delta table " + table.location(), e);
        }
    }

    @Override
    public DeletionVector readDeletionVector(DataFile file) {
        return file.hasDeletionVector()
                ? table.deletionVectors().read(file.deletionVector(), file.path())
                : DeletionVector.EMPTY;
    }

    @Override
    public io.deltalite.flink.internal.merge.table.DeletionVectorSink newDeletionVectorSink() {
        return table.deletionVectors().newFile();
    }

    @Override
    public String deletionVectorPath(
            io.deltalite.flink.internal.merge.value.DeletionVectorRef vector) {
        return "i".equals(vector.storageType()) ? null : table.deletionVectors().path(vector);
    }

    @Override
    public boolean isStagedKeyFile(String path) {
        return table.stagedKeys().isStaged(path);
    }

    @Override
    public RowBatch newRows(List<Object[]> rows) {
        return newRows(rows, null, 0);
    }

    @Override
    public List<DataFile> write(
            PartitionValues partition,
            BatchStream batches,
            io.deltalite.flink.internal.merge.value.KeyGroups keys) {
        try (batches) {
            return writeFiles(
                    partition,
                    keys,
                    (directory, statistics) -> {
                        List<DataFile> written = new ArrayList<>();
                        CloseableIterator<DataFileStatus> statuses =
                                engine.getParquetHandler()
                                        .writeParquetFiles(
                                                directory,
                                                KernelIterators.of(
                                                        new LiveBatches(
                                                                batches,
                                                                writeSchema.equals(rowSchema)
                                                                        ? null
                                                                        : writeSchema)),
                                                statistics);
                        try (statuses) {
                            while (statuses.hasNext()) {
                                DataFile file = toDataFile(statuses.next());
                                if (file.numRecords() == 0) {
                                    table.deleteQuietly(file.path());
                                } else {
                                    written.add(file);
                                }
                            }
                        }
                        return written;
                    });
        }
    }

    /**
     * Without row ids to keep, and when every column is of a type {@link RowParquetWriter} writes,
     * straight from the rows into the files Kernel's writer would write; otherwise through Kernel.
     */
    @Override
    public List<DataFile> writeNew(
            PartitionValues partition,
            List<Object[]> rows,
            long[] rowIds,
            int batchSize,
            io.deltalite.flink.internal.merge.value.KeyGroups keys) {
        if (rowWriter == null || rowIds != null || rows.isEmpty()) {
            return DataFileStore.super.writeNew(partition, rows, rowIds, batchSize, keys);
        }
        return writeFiles(
                partition,
                keys,
                // In the connector's class loader, as Kernel's writes run: Parquet caches the
                // codec it makes with the thread's context loader for the whole JVM.
                (directory, statistics) ->
                        ConnectorClassLoader.call(
                                () -> {
                                    List<DataFile> written = new ArrayList<>();
                                    for (String path : rowWriter.write(directory, rows)) {
                                        written.add(writtenFile(path, statistics));
                                    }
                                    return written;
                                }));
    }

    /** A data file written by deltalite itself, with its statistics read from its footer. */
    private DataFile writtenFile(String path, List<Column> statistics) throws IOException {
        FileStatus written = table.fileIO().getFileStatus(path);
        String resolved = table.fileIO().resolvePath(path);
        return toDataFile(
                new DataFileStatus(
                        resolved,
                        written.getSize(),
                        written.getModificationTime(),
                        Optional.of(
                                KernelInternals.parquetFileStatistics(
                                        table.fileIO().newInputFile(resolved, written.getSize()),
                                        dataSchema,
                                        statistics))));
    }

    /** Writes files of the partition (in the folder of {@code keys}) into its directory. */
    @FunctionalInterface
    private interface FileWrite {
        List<DataFile> write(String directory, List<Column> statistics) throws IOException;
    }

    /**
     * Runs {@code write} in a write scope of the partition's directory with the statistics columns
     * the files get; if it fails, every file it created is deleted and the failure says where.
     */
    private List<DataFile> writeFiles(
            PartitionValues partition,
            io.deltalite.flink.internal.merge.value.KeyGroups keys,
            FileWrite write) {
        try (TrackingFileIO.WriteScope scope = new TrackingFileIO.WriteScope()) {
            try {
                DataWriteContext context =
                        Transaction.getWriteContext(
                                engine, table.writeState(), partitionCodec.toLiterals(partition));
                return write.write(
                        keys == null
                                ? targetDirectory(context)
                                : targetDirectory(context) + "/" + keys.folder(),
                        statisticsColumns(context));
            } catch (IOException | RuntimeException e) {
                for (String path : scope.createdFiles()) {
                    table.deleteQuietly(path);
                }
                throw writeFailure(
                        "Writing data files into partition "
                                + partition.describe(schema.partitionColumns())
                                + " of Delta table "
                                + table.location()
                                + " failed: "
                                + io.deltalite.flink.internal.merge.table.Causes.rootMessage(e)
                                + ". The files written so far were deleted; nothing was committed.",
                        e);
            }
        }
    }

    /**
     * The columns a new file gets statistics for: Kernel's choice (the first {@code
     * delta.dataSkippingNumIndexedCols} leaf columns), minus the partition columns it names under
     * their physical names in a column-mapped table (they are not in the data files), plus the keys
     * and the clustering columns (Delta requires statistics for these; Kernel's choice may miss
     * them).
     */
    private List<Column> statisticsColumns(DataWriteContext context) {
        Set<Column> statistics = new LinkedHashSet<>();
        for (Column column : context.getStatisticsColumns()) {
            if (dataSchema.fieldNames().contains(column.getNames()[0])) {
                statistics.add(column);
            }
        }
        statistics.addAll(keyColumns);
        for (Column column : table.physicalClusteringColumns()) {
            // as the data schema spells it: the clustering metadata may differ in case
            String[] path = column.getNames().clone();
            for (String name : dataSchema.fieldNames()) {
                if (name.equalsIgnoreCase(path[0])) {
                    path[0] = name;
                    statistics.add(new Column(path));
                }
            }
        }
        return new ArrayList<>(statistics);
    }

    @Override
    public DataFile splice(
            PartitionValues partition,
            List<DataFile> files,
            io.deltalite.flink.internal.merge.value.KeyGroups keys) {
        try (RowGroupSplice.Inputs inputs = splice.open(files)) {
            if (inputs == null) {
                return null;
            }
            DataWriteContext context =
                    Transaction.getWriteContext(
                            engine, table.writeState(), partitionCodec.toLiterals(partition));
            String directory =
                    keys == null
                            ? targetDirectory(context)
                            : targetDirectory(context) + "/" + keys.folder();
            // Named as Kernel names the files it writes.
            String path =
                    new org.apache.hadoop.fs.Path(
                                    directory, java.util.UUID.randomUUID() + "-000.parquet")
                            .toString();
            splice.write(inputs, path);
            try {
                FileStatus written = table.fileIO().getFileStatus(path);
                path = table.fileIO().resolvePath(path);
                DataFileStatistics statistics =
                        io.deltalite.flink.internal.delta.kernel.KernelInternals
                                .parquetFileStatistics(
                                        table.fileIO().newInputFile(path, written.getSize()),
                                        dataSchema,
                                        statisticsColumns(context));
                return toDataFile(
                        new DataFileStatus(
                                path,
                                written.getSize(),
                                written.getModificationTime(),
                                Optional.of(statistics)));
            } catch (IOException | RuntimeException e) {
                table.deleteQuietly(path);
                throw e;
            }
        } catch (RowGroupSplice.UnreadableInput e) {
            throw readFailure(e.file(), (Exception) e.getCause());
        } catch (IOException | RuntimeException e) {
            throw writeFailure(
                    "Joining "
                            + files.size()
                            + " small data files of partition "
                            + partition.describe(schema.partitionColumns())
                            + " of Delta table "
                            + table.location()
                            + " into one failed: "
                            + io.deltalite.flink.internal.merge.table.Causes.rootMessage(e)
                            + ". Nothing was committed.",
                    e);
        }
    }

    /**
     * The error of a failed write: {@code cause} itself when it is deltalite's, a storage error
     * (retried by the restart) when the storage refused the write (full, unreachable, no
     * permission), else a plain one.
     */
    private static DeltaLiteException writeFailure(String message, Exception cause) {
        if (cause instanceof DeltaLiteException deltaLite) {
            return deltaLite;
        }
        if (io.deltalite.flink.internal.merge.table.Causes.has(cause, IOException.class)) {
            return new io.deltalite.flink.exceptions.DeltaLiteStorageException(
                    message + " The job commits the checkpoint when it restarts.", cause);
        }
        return new DeltaLiteException(message, cause);
    }

    /**
     * The partition folder as a Hadoop path string. Kernel 4.4 returns it URI-encoded ({@code new
     * Path(dir).toUri().toString()}, see DataWriteContextImpl), but its Parquet writer reads the
     * directory with {@code new Path(String)}, which would take every escape literally: a space
     * would become a folder named {@code %20}, {@code %20} one named {@code %2520}.
     */
    static String targetDirectory(DataWriteContext context) {
        return new org.apache.hadoop.fs.Path(URI.create(context.getTargetDirectory())).toString();
    }

    private DataFile toDataFile(DataFileStatus status) {
        DataFileStatistics statistics =
                LogStatistics.withFaithfulBounds(
                        status.getStatistics()
                                .orElseThrow(
                                        () ->
                                                new IllegalStateException(
                                                        "written file without statistics")),
                        dataSchema);
        return new DataFile(
                status.getPath(),
                status.getSize(),
                status.getModificationTime(),
                statistics.getNumRecords(),
                statisticsReader.keyStatistics(statistics),
                null,
                statistics.serializeAsJson(dataSchema));
    }

    @Override
    public void deleteUncommitted(DataFile file) {
        table.deleteQuietly(file.path());
    }

    @Override
    public RowBatch gather(List<? extends RowBatch> sources, int[] from, int[] rows, int count) {
        RowBatch gathered = KernelRowBatch.gather(sources, from, rows, count);
        if (gathered == null && tracking != null) {
            // copying the table columns alone would give every row a fresh id
            throw new IllegalStateException(
                    "rows of Delta table "
                            + table.location()
                            + " to merge come from batches of other columns: the row tracking"
                            + " columns would be lost");
        }
        return gathered != null ? gathered : DataFileStore.super.gather(sources, from, rows, count);
    }

    /** A batch whose columns are written under {@code schema}: the same columns, other metadata. */
    private record SchemaOf(ColumnarBatch batch, StructType schema) implements ColumnarBatch {
        @Override
        public StructType getSchema() {
            return schema;
        }

        @Override
        public ColumnVector getColumnVector(int ordinal) {
            return batch.getColumnVector(ordinal);
        }

        @Override
        public int getSize() {
            return batch.getSize();
        }
    }

    /**
     * Hands Kernel's writer only batches with at least one row to write, in {@code schema} (null:
     * in their own).
     */
    private static final class LiveBatches implements Iterator<FilteredColumnarBatch> {
        private final BatchStream batches;
        private final StructType schema;
        private FilteredColumnarBatch next;

        LiveBatches(BatchStream batches, StructType schema) {
            this.batches = batches;
            this.schema = schema;
        }

        @Override
        public boolean hasNext() {
            while (next == null && batches.hasNext()) {
                KernelRowBatch batch = (KernelRowBatch) batches.next();
                if (batch.hasLiveRows()) {
                    next = batch.toFiltered();
                    if (schema != null) {
                        next =
                                new FilteredColumnarBatch(
                                        new SchemaOf(next.getData(), schema),
                                        next.getSelectionVector());
                    }
                }
            }
            return next != null;
        }

        @Override
        public FilteredColumnarBatch next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            FilteredColumnarBatch batch = next;
            next = null;
            return batch;
        }
    }
}
