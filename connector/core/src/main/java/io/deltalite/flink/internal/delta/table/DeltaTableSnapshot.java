package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.ScanBuilder;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.commit.CommitFailedException;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.CommitStateUnknownException;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.KernelEngineException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.expressions.And;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Or;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.delta.kernel.KernelIterators;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.table.CommitOutcomeUnknownException;
import io.deltalite.flink.internal.merge.table.CommitRecord;
import io.deltalite.flink.internal.merge.table.ConcurrentCommitException;
import io.deltalite.flink.internal.merge.table.TableCommit;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.value.ColumnStatistics;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.DeletionVectorRef;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.internal.merge.value.RowLineage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One version of a Delta table: its live files and the commit of the next version. */
final class DeltaTableSnapshot implements TableSnapshot {
    private static final Logger LOG = LoggerFactory.getLogger(DeltaTableSnapshot.class);

    /** Above this many partitions, one full listing is cheaper than a large OR predicate. */
    private static final int MAX_PARTITIONS_IN_FILTER = 64;

    private final DeltaTable table;
    private final Snapshot snapshot;
    private final Engine engine;
    private final TableSchema schema;
    private final KernelFileStore files;

    /** The {@code add} structs of the files listed so far, by file identity, for removes. */
    private final Map<String, Row> listedAdds = new HashMap<>();

    private final Map<String, OptionalLong> committedCheckpoints = new HashMap<>();
    private CommitLogReader commitLog;

    DeltaTableSnapshot(DeltaTable table, Snapshot snapshot) {
        this.table = table;
        this.snapshot = snapshot;
        this.engine = table.engine();
        this.schema = table.schema();
        this.files = table.kernelFiles();
    }

    @Override
    public long version() {
        return snapshot.getVersion();
    }

    @Override
    public synchronized OptionalLong committedCheckpoint(String appId) {
        return readingLog(
                () ->
                        committedCheckpoints.computeIfAbsent(
                                appId,
                                id ->
                                        snapshot.getLatestTransactionVersion(engine, id)
                                                .map(OptionalLong::of)
                                                .orElse(OptionalLong.empty())));
    }

    /**
     * Runs a read of the log's content; if it fails because a log file is damaged, the error says
     * which (see {@link LogDamage}).
     */
    private <T> T readingLog(java.util.function.Supplier<T> read) {
        try {
            return read.get();
        } catch (io.deltalite.flink.exceptions.DeltaLiteException e) {
            throw e;
        } catch (RuntimeException e) {
            io.deltalite.flink.internal.storage.S3AccessCheck.denied(
                            table.location(), "reading its Delta log", e)
                    .ifPresent(
                            denied -> {
                                throw denied;
                            });
            LogDamage.explain(table.location(), table.tablePath(), engine, table.fileIO(), e)
                    .ifPresent(
                            damaged -> {
                                throw damaged;
                            });
            throw e;
        }
    }

    @Override
    public synchronized Optional<List<CommitRecord>> commitsAfter(long version) {
        if (commitLog == null) {
            commitLog =
                    new CommitLogReader(
                            engine,
                            table.location(),
                            table.tablePath(),
                            tableRoot(),
                            snapshot.getVersion());
        }
        return readingLog(() -> commitLog.commitsAfter(version));
    }

    @Override
    public java.util.Optional<java.time.Duration> deletedFileRetention() {
        if (!snapshot.getTableProperties().containsKey(DELETED_FILE_RETENTION)) {
            return java.util.Optional.empty(); // Delta's default applies: the pass's floor
        }
        return java.util.Optional.of(
                java.time.Duration.ofMillis(KernelInternals.deletedFileRetentionMillis(snapshot)));
    }

    private static final String DELETED_FILE_RETENTION = "delta.deletedFileRetentionDuration";

    @Override
    public boolean allowsDeletionVectors() {
        return KernelInternals.tableFeatures(snapshot).contains("deletionVectors")
                && "true"
                        .equalsIgnoreCase(
                                snapshot.getTableProperties()
                                        .getOrDefault("delta.enableDeletionVectors", "false")
                                        .trim());
    }

    @Override
    public synchronized Map<PartitionValues, List<DataFile>> liveFiles(
            Collection<PartitionValues> partitions) {
        Set<PartitionValues> wanted = new HashSet<>(partitions);
        Map<PartitionValues, List<DataFile>> live = new HashMap<>();
        wanted.forEach(partition -> live.put(partition, new ArrayList<>()));
        if (wanted.isEmpty()) {
            return live;
        }
        readingLog(
                () -> {
                    scanLiveFiles(wanted, live);
                    return null;
                });
        return live;
    }

    @Override
    public synchronized Map<PartitionValues, List<DataFile>> allLiveFiles() {
        Map<PartitionValues, List<DataFile>> live = new HashMap<>();
        readingLog(
                () -> {
                    scanLiveFiles(null, live);
                    return null;
                });
        return live;
    }

    /** Adds the live files of the {@code wanted} partitions (null: of all) to {@code live}. */
    private void scanLiveFiles(
            Set<PartitionValues> wanted, Map<PartitionValues, List<DataFile>> live) {
        ScanBuilder builder = snapshot.getScanBuilder();
        if (wanted != null) {
            partitionFilter(wanted).ifPresent(builder::withFilter);
        }
        Scan scan = builder.build();
        URI tableRoot = tableRoot();
        try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine, true)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        Row scanFile = rows.next();
                        Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
                        PartitionValues partition =
                                files.partitionCodec().fromLog(stringMap(add, "partitionValues"));
                        if (wanted != null && !wanted.contains(partition)) {
                            continue;
                        }
                        DataFile file = toDataFile(add, tableRoot);
                        live.computeIfAbsent(partition, p -> new ArrayList<>()).add(file);
                        listedAdds.put(file.identity(), add);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Listing the files of Delta table "
                            + table.location()
                            + " at version "
                            + snapshot.getVersion()
                            + " failed",
                    e);
        }
    }

    /**
     * A partition predicate for Kernel to skip the log entries of other partitions, or empty to
     * list all and filter here. Only types whose partition values Kernel and deltalite parse alike
     * are pushed down; the result is filtered here either way.
     */
    private Optional<Predicate> partitionFilter(Set<PartitionValues> partitions) {
        if (!schema.isPartitioned() || partitions.size() > MAX_PARTITIONS_IN_FILTER) {
            return Optional.empty();
        }
        for (String column : schema.partitionColumns()) {
            ValueType type = schema.column(column).type();
            if (!(type instanceof ValueType.Primitive primitive)
                    || !switch (primitive.kind()) {
                        case STRING, INT, BIGINT, SMALLINT, TINYINT, DATE, BOOLEAN -> true;
                        default -> false;
                    }) {
                return Optional.empty();
            }
        }
        Predicate any = null;
        for (PartitionValues partition : partitions) {
            Map<String, Literal> literals = files.partitionCodec().toLiterals(partition);
            Predicate all = null;
            for (String column : schema.partitionColumns()) {
                Literal literal = literals.get(column);
                Predicate condition =
                        literal.getValue() == null
                                ? new Predicate("IS_NULL", new Column(column))
                                : new Predicate("=", new Column(column), literal);
                all = all == null ? condition : new And(all, condition);
            }
            any = any == null ? all : new Or(any, all);
        }
        return Optional.of(any);
    }

    private DataFile toDataFile(Row add, URI tableRoot) {
        String path = absolutePath(tableRoot, add.getString(add.getSchema().indexOf("path")));
        long size = add.getLong(add.getSchema().indexOf("size"));
        long modificationTime = add.getLong(add.getSchema().indexOf("modificationTime"));
        int statsOrdinal = add.getSchema().indexOf("stats");
        String json =
                statsOrdinal < 0 || add.isNullAt(statsOrdinal) ? null : add.getString(statsOrdinal);
        Optional<DataFileStatistics> statistics = files.statisticsReader().parse(json);
        long numRecords = statistics.map(DataFileStatistics::getNumRecords).orElse(-1L);
        List<ColumnStatistics> keyStatistics =
                statistics.map(files.statisticsReader()::keyStatistics).orElse(List.of());
        return new DataFile(
                path,
                size,
                modificationTime,
                numRecords,
                keyStatistics,
                deletionVector(add),
                json,
                rowLineage(add));
    }

    /** The base row id and default row commit version of an {@code add}, or null without. */
    static RowLineage rowLineage(Row add) {
        int base = add.getSchema().indexOf("baseRowId");
        if (base < 0 || add.isNullAt(base)) {
            return null;
        }
        int version = add.getSchema().indexOf("defaultRowCommitVersion");
        return new RowLineage(
                add.getLong(base),
                version < 0 || add.isNullAt(version) ? -1 : add.getLong(version));
    }

    /** The deletion vector descriptor of an {@code add}, or null. */
    static DeletionVectorRef deletionVector(Row add) {
        int ordinal = add.getSchema().indexOf("deletionVector");
        if (ordinal < 0 || add.isNullAt(ordinal)) {
            return null;
        }
        Row vector = add.getStruct(ordinal);
        StructType fields = vector.getSchema();
        int offset = fields.indexOf("offset");
        return new DeletionVectorRef(
                vector.getString(fields.indexOf("storageType")),
                vector.getString(fields.indexOf("pathOrInlineDv")),
                vector.isNullAt(offset) ? -1 : vector.getInt(offset),
                vector.getInt(fields.indexOf("sizeInBytes")),
                vector.getLong(fields.indexOf("cardinality")));
    }

    private URI tableRoot() {
        return table.tableRoot();
    }

    /** The qualified path of a log path, which is relative and URI-encoded, or absolute. */
    static String absolutePath(URI tableRoot, String logPath) {
        URI uri = URI.create(logPath);
        Path path = uri.isAbsolute() ? new Path(uri) : new Path(new Path(tableRoot), new Path(uri));
        return path.toString();
    }

    private static Map<String, String> stringMap(Row row, String field) {
        int ordinal = row.getSchema().indexOf(field);
        Map<String, String> map = new HashMap<>();
        if (ordinal < 0 || row.isNullAt(ordinal)) {
            return map;
        }
        MapValue value = row.getMap(ordinal);
        ColumnVector keys = value.getKeys();
        ColumnVector values = value.getValues();
        for (int i = 0; i < value.getSize(); i++) {
            map.put(keys.getString(i), values.isNullAt(i) ? null : values.getString(i));
        }
        return map;
    }

    @Override
    public long commit(TableCommit commit)
            throws ConcurrentCommitException, CommitOutcomeUnknownException {
        Transaction transaction;
        try {
            transaction =
                    snapshot.buildUpdateTableTransaction(
                                    DeltaTable.ENGINE_INFO, Operation.STREAMING_UPDATE)
                            .withTransactionId(commit.appId(), commit.checkpointId())
                            .withMaxRetries(0)
                            .build(engine);
        } catch (ConcurrentWriteException e) {
            // Includes ConcurrentTransactionException: the checkpoint was committed meanwhile.
            throw new ConcurrentCommitException(e.getMessage(), e);
        }
        Row state = transaction.getTransactionState(engine);
        List<Row> actions = new ArrayList<>();
        long now = System.currentTimeMillis();
        // A file given a deletion vector is removed as it was listed and added back from that
        // listing, with the new vector: same path, size, time, tags and row-tracking fields.
        Map<String, Row> removedAdds = new HashMap<>();
        addRemoves(commit.removed(), true, now, actions, removedAdds);
        // Compaction changes no row: readers of changes (and streaming readers) skip it.
        addRemoves(commit.compacted(), false, now, actions, new HashMap<>());
        boolean vectorsAllowed = allowsDeletionVectors();
        commit.added()
                .forEach(
                        (partition, added) -> {
                            List<DataFileStatus> statuses = new ArrayList<>(added.size());
                            // New files that come with a deletion vector (a fold that joined
                            // files with theirs), by path: their add actions get it.
                            Map<String, DataFile> newWithVectors = new HashMap<>();
                            for (DataFile file : added) {
                                Row listed = removedAdds.get(file.path());
                                if (file.hasDeletionVector() && listed != null) {
                                    actions.add(vectorAdd(file, listed, vectorsAllowed));
                                } else {
                                    if (file.hasDeletionVector()) {
                                        requireVectorsAllowed(file, vectorsAllowed);
                                        newWithVectors.put(file.name(), file);
                                    }
                                    statuses.add(toStatus(file));
                                }
                            }
                            int before = actions.size();
                            appendActions(state, partition, statuses, true, actions);
                            if (!newWithVectors.isEmpty()) {
                                withVectors(actions, before, newWithVectors);
                            }
                        });
        commit.compactedInto()
                .forEach(
                        (partition, added) -> {
                            List<DataFileStatus> statuses = new ArrayList<>(added.size());
                            added.forEach(file -> statuses.add(toStatus(file)));
                            appendActions(state, partition, statuses, false, actions);
                        });
        TransactionCommitResult result;
        try {
            result =
                    transaction.commit(
                            engine,
                            CloseableIterable.inMemoryIterable(
                                    KernelIterators.of(actions.iterator())));
        } catch (ConcurrentWriteException e) {
            throw new ConcurrentCommitException(e.getMessage(), e);
        } catch (MaxCommitRetryLimitReachedException e) {
            // With no retries, Kernel reports its one failed attempt this way; its cause says
            // whether the version existed (a conflict) or the store failed (unknown outcome).
            if (e.getCause() instanceof CommitFailedException failed && failed.isConflict()) {
                throw new ConcurrentCommitException(e.getMessage(), e);
            }
            throw new CommitOutcomeUnknownException(e.getMessage(), e);
        } catch (CommitStateUnknownException | UncheckedIOException | KernelEngineException e) {
            throw new CommitOutcomeUnknownException(e.getMessage(), e);
        }
        runPostCommitHooks(result);
        return result.getVersion();
    }

    /** Remove actions for {@code files}, each as this snapshot lists it. */
    private void addRemoves(
            Map<PartitionValues, List<DataFile>> files,
            boolean dataChange,
            long now,
            List<Row> actions,
            Map<String, Row> removedAdds) {
        files.forEach(
                (partition, removed) -> {
                    for (DataFile file : removed) {
                        Row add = listedAdds.get(file.identity());
                        if (add == null) {
                            throw new IllegalStateException(
                                    "File "
                                            + file.path()
                                            + " is not live in version "
                                            + snapshot.getVersion()
                                            + " of "
                                            + table.location());
                        }
                        actions.add(KernelInternals.removeAction(add, now, dataChange));
                        removedAdds.put(file.path(), add);
                    }
                });
    }

    /** Add actions for new files of {@code partition}, as Kernel generates them. */
    private void appendActions(
            Row state,
            PartitionValues partition,
            List<DataFileStatus> statuses,
            boolean dataChange,
            List<Row> actions) {
        try (CloseableIterator<Row> appends =
                Transaction.generateAppendActions(
                        engine,
                        state,
                        KernelIterators.of(statuses.iterator()),
                        Transaction.getWriteContext(
                                engine, state, files.partitionCodec().toLiterals(partition)))) {
            while (appends.hasNext()) {
                Row action = appends.next();
                actions.add(
                        dataChange
                                ? action
                                : KernelInternals.withoutDataChange(action, files.dataSchema()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Row vectorAdd(DataFile file, Row listed, boolean vectorsAllowed) {
        requireVectorsAllowed(file, vectorsAllowed);
        return KernelInternals.addWithDeletionVector(
                listed, file.deletionVector(), files.dataSchema());
    }

    private void requireVectorsAllowed(DataFile file, boolean vectorsAllowed) {
        if (!vectorsAllowed) {
            throw new IllegalStateException(
                    "Version "
                            + snapshot.getVersion()
                            + " of "
                            + table.location()
                            + " does not allow deletion vectors, yet a commit gives "
                            + file.path()
                            + " one");
        }
    }

    /**
     * Gives the add actions from {@code from} on that add one of {@code files} (by file name: new
     * files have unique names) its deletion vector: the action Kernel generated (partition values,
     * statistics, tags), with the vector and statistics without tight bounds.
     */
    private void withVectors(List<Row> actions, int from, Map<String, DataFile> files) {
        int matched = 0;
        for (int i = from; i < actions.size(); i++) {
            Row action = actions.get(i);
            Row add = action.getStruct(action.getSchema().indexOf("add"));
            String path = absolutePath(tableRoot(), add.getString(add.getSchema().indexOf("path")));
            DataFile file = files.get(path.substring(path.lastIndexOf('/') + 1));
            if (file != null) {
                actions.set(
                        i,
                        KernelInternals.addWithDeletionVector(
                                add, file.deletionVector(), this.files.dataSchema()));
                matched++;
            }
        }
        if (matched != files.size()) {
            throw new IllegalStateException(
                    "Of the "
                            + files.size()
                            + " new files of a commit to "
                            + table.location()
                            + " that come with a deletion vector, "
                            + matched
                            + " were found among Kernel's add actions: "
                            + files.keySet());
        }
    }

    private DataFileStatus toStatus(DataFile file) {
        Optional<DataFileStatistics> statistics =
                file.logStatistics() == null
                        ? Optional.empty()
                        : DataFileStatistics.deserializeFromJson(
                                file.logStatistics(), files.dataSchema());
        return new DataFileStatus(
                file.path(), file.sizeBytes(), file.modificationTime(), statistics);
    }

    /**
     * Deletes the checksum files ({@code <version>.crc}) of versions older than the oldest commit
     * file left, which Kernel's cleanup of expired log files does not delete.
     */
    private long deleteOrphanedChecksums() throws IOException {
        String log = table.tablePath() + "/_delta_log/";
        List<String> checksums = new ArrayList<>();
        long oldestCommit = Long.MAX_VALUE;
        try (CloseableIterator<io.delta.kernel.utils.FileStatus> files =
                engine.getFileSystemClient().listFrom(log + String.format("%020d", 0))) {
            while (files.hasNext()) {
                String path = files.next().getPath();
                String name = path.substring(path.lastIndexOf('/') + 1);
                if (name.matches("\\d{20}\\.json")) {
                    oldestCommit = Math.min(oldestCommit, Long.parseLong(name.substring(0, 20)));
                } else if (name.matches("\\d{20}\\.crc")) {
                    checksums.add(path);
                }
            }
        }
        long deleted = 0;
        for (String path : checksums) {
            String name = path.substring(path.lastIndexOf('/') + 1);
            if (Long.parseLong(name.substring(0, 20)) < oldestCommit
                    && engine.getFileSystemClient().delete(path)) {
                deleted++;
            }
        }
        return deleted;
    }

    /**
     * Log checkpoints and checksums; a failure here does not undo the commit. A checksum Kernel
     * must compute from the whole log (the previous version has none: a table another writer made)
     * is written without Kernel's hook, which fails on some tables with deletion vectors.
     */
    private void runPostCommitHooks(TransactionCommitResult result) {
        for (PostCommitHook hook : result.getPostCommitHooks()) {
            try {
                if (hook.getType() == PostCommitHook.PostCommitHookType.CHECKSUM_FULL) {
                    KernelInternals.writeChecksum(engine, table.tablePath(), result.getVersion());
                } else {
                    hook.threadSafeInvoke(engine);
                }
                if (hook.getType() == PostCommitHook.PostCommitHookType.CHECKPOINT
                        && table.claimLogCleanup(KernelInternals.logRetentionMillis(snapshot))) {
                    long deleted =
                            KernelInternals.cleanupExpiredLogs(engine, snapshot, table.tablePath());
                    if (deleted > 0) {
                        deleted += deleteOrphanedChecksums();
                    }
                    if (deleted > 0) {
                        LOG.info(
                                "Deleted {} log file(s) of {} past its log retention, after the"
                                        + " checkpoint at version {}.",
                                deleted,
                                table.location(),
                                result.getVersion());
                    }
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn(
                        "Post-commit step {} after version {} of {} failed; the commit stands and"
                                + " the next checkpoint interval retries it: {}",
                        hook.getType(),
                        result.getVersion(),
                        table.location(),
                        e.toString());
            }
        }
    }
}
