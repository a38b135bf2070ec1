package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.KernelException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.exceptions.UnsupportedTableFeatureException;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.transaction.CreateTableTransactionBuilder;
import io.delta.kernel.transaction.DataLayoutSpec;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.exceptions.DeltaLiteSchemaMismatchException;
import io.deltalite.flink.exceptions.DeltaLiteStorageException;
import io.deltalite.flink.exceptions.DeltaLiteTableNotFoundException;
import io.deltalite.flink.exceptions.DeltaLiteUnsupportedTableException;
import io.deltalite.flink.internal.delta.fileio.ConnectorClassLoader;
import io.deltalite.flink.internal.delta.fileio.FaultInjectingFileIO;
import io.deltalite.flink.internal.delta.fileio.GuardedEngine;
import io.deltalite.flink.internal.delta.fileio.LocalWritability;
import io.deltalite.flink.internal.delta.fileio.LogStoreGuard;
import io.deltalite.flink.internal.delta.fileio.RenamingFileIO;
import io.deltalite.flink.internal.delta.fileio.S3FileIO;
import io.deltalite.flink.internal.delta.fileio.TemporaryFileSweep;
import io.deltalite.flink.internal.delta.fileio.TrackingFileIO;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.delta.kernel.KernelSchemas;
import io.deltalite.flink.internal.delta.kernel.PhysicalNames;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.InputProjection;
import io.deltalite.flink.internal.merge.schema.SchemaChange;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.table.AttemptJournal;
import io.deltalite.flink.internal.merge.table.Causes;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.MergeTable;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.storage.S3ADefaults;
import io.deltalite.flink.internal.storage.S3AccessCheck;
import io.deltalite.flink.internal.storage.S3TableStorage;
import io.deltalite.flink.internal.storage.StorageKind;
import io.deltalite.flink.internal.storage.StorageSettings;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Delta table opened for upserts through Delta Kernel: the engine configured for it, its schema
 * and primary key, and the state Kernel needs to place and describe new files.
 */
public final class DeltaTable implements MergeTable {
    private static final Logger LOG = LoggerFactory.getLogger(DeltaTable.class);

    /** Recorded in every commit, and in the table properties of tables deltalite creates. */
    static final String ENGINE_INFO = "deltalite/0.1.0";

    /** Table property recording the primary key of a table deltalite created. */
    public static final String PRIMARY_KEY_PROPERTY = "deltalite.primaryKey";

    private final String location;

    /** The location qualified once through Hadoop's Path: a Hadoop path string, not a URI. */
    private final String tablePath;

    /** {@link #tablePath} as a URI ({@code Path.toUri()}), against which log paths resolve. */
    private final URI tableRoot;

    private final Engine engine;
    private final TableSchema schema;
    private final TableShape shape;
    private final Row writeState;
    private final KernelFileStore files;
    private final FileJournal journal;
    private final StagedKeyFiles stagedKeys;
    private final DeletionVectorFiles deletionVectors;
    private final TrackingFileIO engineFileIO;
    private final long targetFileSize;

    /** When this process last deleted expired log files of the table (0: never). */
    private final java.util.concurrent.atomic.AtomicLong lastLogCleanupMillis =
            new java.util.concurrent.atomic.AtomicLong();

    private final FileIO fileIO;

    /**
     * The names whose columns' values the input supplies: its columns, and the old names of the
     * columns it renames (none when the table is opened for maintenance).
     */
    private final List<String> inputColumns;

    /** Whether the writer may remove rows: {@link TableDefinition#removesRows()}. */
    private final boolean removesRows;

    /**
     * The values the writers store in the columns the input lacks that have a default (Delta's
     * column defaults), by column name; null values included.
     */
    private final Map<String, Object> columnDefaults;

    /**
     * The clustering columns of a table with liquid clustering ({@code CLUSTER BY}), by physical
     * name; empty for other tables. Data files carry statistics for them, as Delta requires.
     */
    private final List<io.delta.kernel.expressions.Column> clusteringColumns;

    /** The top-level clustering columns by logical name: they order the rows the sink writes. */
    private final List<String> rowClustering;

    /** Rows per batch the store reads (the option {@code read-batch-size}). */
    private final int readBatchSize;

    private DeltaTable(
            String location,
            String tablePath,
            Engine engine,
            TrackingFileIO engineFileIO,
            FileIO fileIO,
            TableSchema schema,
            TableShape shape,
            Row writeState,
            long targetFileSize,
            int readBatchSize,
            Configuration hadoopConf,
            TableDefinition definition,
            Map<String, Object> columnDefaults,
            List<io.delta.kernel.clustering.ClusteringColumnInfo> clustering) {
        this.targetFileSize = targetFileSize;
        this.readBatchSize = readBatchSize;
        this.columnDefaults = java.util.Collections.unmodifiableMap(new HashMap<>(columnDefaults));
        this.clusteringColumns =
                clustering.stream()
                        .map(io.delta.kernel.clustering.ClusteringColumnInfo::getPhysicalColumn)
                        .toList();
        this.rowClustering =
                clustering.stream()
                        .map(info -> info.getLogicalColumn().getNames())
                        .filter(names -> names.length == 1)
                        .map(names -> names[0])
                        .toList();
        List<String> supplied = new ArrayList<>();
        definition.columns().forEach(column -> supplied.add(column.name()));
        definition
                .schemaEvolution()
                .renames()
                .forEach(
                        (from, to) -> {
                            if (supplied.stream().anyMatch(to::equalsIgnoreCase)) {
                                supplied.add(from);
                            }
                        });
        this.inputColumns = List.copyOf(supplied);
        this.removesRows = definition.removesRows();
        this.fileIO = fileIO;
        this.engineFileIO = engineFileIO;
        this.journal = new FileJournal(tablePath, fileIO, hadoopConf);
        this.stagedKeys = new StagedKeyFiles(tablePath, fileIO);
        this.deletionVectors = new DeletionVectorFiles(tablePath, fileIO);
        this.location = location;
        this.tablePath = tablePath;
        this.tableRoot = new Path(tablePath).toUri();
        this.engine = engine;
        this.schema = schema;
        this.shape = shape;
        this.writeState = writeState;
        this.files = new KernelFileStore(this);
    }

    /** The columns that keep copied rows' ids, or null when the table does not track rows. */
    RowTrackingColumns rowTracking() {
        return shape.rowTracking();
    }

    /** The names the table's columns have in its data files and its log. */
    PhysicalNames physicalNames() {
        return PhysicalNames.of(shape.schema(), shape.columnMapping());
    }

    /**
     * Opens the table at {@code location} with the given Hadoop settings and several writers
     * allowed; see {@link #open(String, StorageSettings, MergeOptions, TableDefinition, boolean)}.
     */
    public static DeltaTable open(
            String location,
            Map<String, String> hadoopOptions,
            MergeOptions options,
            TableDefinition definition,
            boolean createIfMissing) {
        return open(
                location, StorageSettings.of(hadoopOptions), options, definition, createIfMissing);
    }

    /**
     * Opens the table at {@code location}, creating it from {@code definition} when it does not
     * exist and {@code createIfMissing} is set.
     *
     * @param storage storage settings (for example {@code fs.s3a.endpoint}) and S3 single-writer
     *     mode
     */
    public static DeltaTable open(
            String location,
            StorageSettings storage,
            MergeOptions options,
            TableDefinition definition,
            boolean createIfMissing) {
        Configuration hadoopConf = hadoopConfiguration(storage.hadoopOptions());
        FileIO fileIO = fileIO(location, storage);
        String tablePath = qualify(location, fileIO);
        if (StorageKind.of(location) != StorageKind.S3) {
            // what writers that died mid-write left under hidden names (S3 has no such files)
            TemporaryFileSweep.sweep(tablePath, hadoopConf, System.currentTimeMillis());
        }
        Engine bootstrap = DefaultEngine.create(fileIO);
        Snapshot snapshot =
                loadOrCreate(
                        location, tablePath, bootstrap, hadoopConf, definition, createIfMissing);
        TableFeatureCheck.requireWritable(snapshot, location, definition.removesRows());
        // Defaults are checked on the schema the job writes with: the change may rename or drop
        // a column that has one (and checks the changed schema before it commits it).
        snapshot = evolveSchema(location, tablePath, snapshot, bootstrap, hadoopConf, definition);
        Map<String, Object> defaults = columnDefaults(snapshot, definition, location);
        TableSchema schema = schemaOf(snapshot, definition, location);

        long targetFileSize = targetFileSize(options, snapshot);
        TrackingFileIO engineFileIO = new TrackingFileIO(fileIO, settings(options, targetFileSize));
        Engine engine = new GuardedEngine(DefaultEngine.create(engineFileIO));
        Row writeState;
        try {
            writeState =
                    snapshot.buildUpdateTableTransaction(ENGINE_INFO, Operation.STREAMING_UPDATE)
                            .build(engine)
                            .getTransactionState(engine);
        } catch (UnsupportedTableFeatureException e) {
            throw new DeltaLiteUnsupportedTableException(
                    "The Delta table at "
                            + location
                            + " uses a table feature that Delta Kernel"
                            + " cannot write: "
                            + e.getMessage()
                            + " Write to a table without it.",
                    e);
        }
        return new DeltaTable(
                location,
                tablePath,
                engine,
                engineFileIO,
                fileIO,
                schema,
                TableShape.of(snapshot, location),
                writeState,
                targetFileSize,
                options.readBatchSize(),
                hadoopConf,
                definition,
                defaults,
                snapshot.getClusteringColumnInfos().orElse(List.of()));
    }

    /**
     * The one reading of a location string, Hadoop's and so Delta's and Spark's: {@code new
     * Path(location)}, qualified by its file system (what Kernel's {@code resolvePath} returns).
     * Nothing in it is percent-decoded: {@code sp%20ace} is a folder named so.
     */
    private static String qualify(String location, FileIO fileIO) {
        try {
            return fileIO.resolvePath(location);
        } catch (IOException | RuntimeException e) {
            throw new DeltaLiteException("Cannot resolve the table path " + location, e);
        }
    }

    /** The latest snapshot of the table at {@code location}, for a look before opening it. */
    private static Snapshot latest(String location, Configuration hadoopConf) {
        // on S3 this may start S3A's threads: see ConnectorClassLoader
        return ConnectorClassLoader.call(
                () -> load(location, location, DefaultEngine.create(hadoopConf), hadoopConf));
    }

    /**
     * The table properties of the Delta table at {@code location} ({@code delta.*} and others), or
     * none when there is no table there yet.
     */
    public static Map<String, String> tableProperties(String location, StorageSettings storage) {
        Configuration hadoopConf = hadoopConfiguration(storage.hadoopOptions());
        try {
            return Map.copyOf(latest(location, hadoopConf).getTableProperties());
        } catch (TableNotFoundException e) {
            return Map.of();
        }
    }

    /**
     * The schema of the existing table at {@code location} as the sink would write it, checked
     * against {@code definition} (supported features, partition columns, recorded primary key);
     * empty when there is no table yet.
     */
    public static Optional<TableSchema> existingSchema(
            String location, StorageSettings storage, TableDefinition definition) {
        Snapshot snapshot;
        StorageKind kind = StorageKind.of(location);
        Configuration hadoopConf = hadoopConfiguration(storage.hadoopOptions());
        if (kind == StorageKind.S3) {
            // At once, before S3A's retries could hide a typo in the settings for many minutes:
            // reachable, credentials, bucket; then what each writer checks when it starts (write
            // permission, conditional writes). Throws MaybeUnreachable when the store may be
            // unreachable only from here: the writers check then.
            ConnectorClassLoader.run(
                    () -> {
                        S3AccessCheck.require(location, hadoopConf);
                        S3TableStorage.open(location, hadoopConf, storage.s3SingleWriter());
                    });
        }
        try {
            snapshot = latest(location, hadoopConf);
        } catch (TableNotFoundException e) {
            TableLocationCheck.requireCreatable(location, hadoopConf);
            return Optional.empty();
        }
        TableFeatureCheck.requireWritable(snapshot, location, definition.removesRows());
        // What the writers will make of the table when they start: checked here, changed there.
        TableSchema schema = schemaOf(snapshot, definition, location);
        SchemaChange change =
                SchemaChange.between(
                        schema, definition.columns(), definition.schemaEvolution(), location);
        Map<String, Object> defaults;
        if (change.isEmpty()) {
            defaults = columnDefaults(snapshot, definition, location);
        } else {
            StructType changed =
                    SchemaChangeCommit.checkedSchema(
                            snapshot, change, definition.columns(), location);
            defaults =
                    definition.isExistingTable()
                            ? Map.of()
                            : TableFeatureCheck.defaultsFor(
                                    changed,
                                    snapshot.getPartitionColumnNames(),
                                    definition.columns(),
                                    location);
            LOG.info(
                    "The sink will change the schema of the Delta table {} when it starts ({}):"
                            + " {}",
                    location,
                    definition.schemaEvolution(),
                    change);
        }
        if (!definition.isExistingTable()) {
            // The input as the writers will map it, defaults included: refused here, at build.
            InputProjection.plan(definition.columns(), change.applyTo(schema), defaults, location);
        }
        return Optional.of(change.applyTo(schema));
    }

    /**
     * The snapshot to write to: {@code snapshot}, or the version that changes its schema as the
     * definition's {@link io.deltalite.flink.sink.SchemaEvolution} asks. Every writer and the
     * committer of a job come here when they open the table, each deciding from the table as it is:
     * the first commits the change, the others find it made (a conflict means someone else
     * committed: read again and decide anew). So no part of the job writes before the schema it
     * writes with is the table's, and none sees it change while it runs.
     */
    private static Snapshot evolveSchema(
            String location,
            String tablePath,
            Snapshot snapshot,
            Engine engine,
            Configuration hadoopConf,
            TableDefinition definition) {
        SchemaChange committed = null;
        long committedVersion = -1;
        for (int attempt = 1; ; attempt++) {
            TableSchema current = schemaOf(snapshot, definition, location);
            SchemaChange change =
                    SchemaChange.between(
                            current, definition.columns(), definition.schemaEvolution(), location);
            if (change.isEmpty()) {
                return snapshot;
            }
            if (change.equals(committed)) {
                // Never commit the same change again and again: the version did not make it.
                throw new DeltaLiteSchemaMismatchException(
                        "Version "
                                + committedVersion
                                + " of the Delta table at "
                                + location
                                + " was committed to "
                                + change
                                + ", but the table read again still lacks it. Nothing of the job"
                                + " was written; change the table's schema yourself (for example"
                                + " with Spark's ALTER TABLE) and start the job again.");
            }
            // Only a change after which the input fits: a column that cannot be written anyway
            // (a narrowed type, say) must not leave columns added behind it.
            InputProjection.plan(
                    definition.columns(),
                    change.applyTo(current),
                    TableFeatureCheck.defaultsFor(
                            SchemaChangeCommit.newSchema(snapshot.getSchema(), change),
                            snapshot.getPartitionColumnNames(),
                            definition.columns(),
                            location),
                    location);
            try {
                long version =
                        SchemaChangeCommit.commit(
                                snapshot,
                                change,
                                definition.columns(),
                                definition.columnComments(),
                                engine,
                                location);
                LOG.info(
                        "Changed the schema of the Delta table {} in version {} ({}): {}",
                        location,
                        version,
                        definition.schemaEvolution(),
                        change);
                committed = change;
                committedVersion = version;
            } catch (DeltaLiteSchemaMismatchException | DeltaLiteUnsupportedTableException e) {
                throw e; // the sink's own refusal, made before the commit
            } catch (RuntimeException e) {
                S3AccessCheck.denied(location, "changing the schema in its Delta log", e)
                        .ifPresent(
                                denied -> {
                                    throw denied;
                                });
                if (!isRetriable(e)) {
                    throw new DeltaLiteSchemaMismatchException(
                            "Delta Kernel refused to change the schema of the Delta table at "
                                    + location
                                    + " ("
                                    + change
                                    + "): "
                                    + e.getMessage()
                                    + " Nothing of the job was written. Change the input, or the"
                                    + " table's schema yourself (for example with Spark's ALTER"
                                    + " TABLE).",
                            e);
                }
                // A conflict, or a store that failed (the version may even have landed): the
                // table, read again, tells what is left to do.
                if (attempt >= SCHEMA_CHANGE_ATTEMPTS) {
                    throw new DeltaLiteStorageException(
                            "Could not change the schema of the Delta table at "
                                    + location
                                    + " ("
                                    + change
                                    + ") in "
                                    + attempt
                                    + " attempts: "
                                    + Causes.rootMessage(e)
                                    + ". Nothing of the job was written; check that the storage"
                                    + " is reachable and writable, or change the schema yourself.",
                            e);
                }
                LOG.info(
                        "Changing the schema of the Delta table {} failed (attempt {}): {};"
                                + " reading the table again.",
                        location,
                        attempt,
                        e.toString());
                try {
                    Thread.sleep(50L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new DeltaLiteStorageException(
                            "Interrupted while changing the schema of the Delta table at "
                                    + location,
                            interrupted);
                }
            }
            snapshot = load(location, tablePath, engine, hadoopConf);
            TableFeatureCheck.requireWritable(snapshot, location, definition.removesRows());
        }
    }

    private static final int SCHEMA_CHANGE_ATTEMPTS = 10;

    /**
     * The defaults the writers store in the columns the input lacks ({@link
     * TableFeatureCheck#defaultsFor}), refusing a table with a default they cannot store. Column
     * defaults bind writers of rows; maintenance (an {@link TableDefinition#existingTable()
     * existing table} as it is) only moves rows that are there.
     */
    private static Map<String, Object> columnDefaults(
            Snapshot snapshot, TableDefinition definition, String location) {
        if (definition.isExistingTable()) {
            return Map.of();
        }
        return TableFeatureCheck.defaultsFor(
                snapshot.getSchema(),
                snapshot.getPartitionColumnNames(),
                definition.columns(),
                location);
    }

    /** Whether a failed commit may succeed if tried again on the table read anew. */
    private static boolean isRetriable(RuntimeException e) {
        return e instanceof io.delta.kernel.exceptions.ConcurrentWriteException
                || e instanceof io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException
                || e instanceof io.delta.kernel.exceptions.CommitStateUnknownException
                || e instanceof io.delta.kernel.exceptions.KernelEngineException
                || e instanceof java.io.UncheckedIOException
                || Causes.has(e, IOException.class);
    }

    /**
     * Checks the Delta table properties the sink was given, before anything is written: a
     * misspelled or invalid {@code delta.*} property, or one that turns on a feature deltalite
     * cannot write, is refused naming it.
     */
    public static void checkTableProperties(TableDefinition definition, String location) {
        Map<String, String> properties = definition.tableProperties();
        TableFeatureCheck.requireWritableProperties(properties, location, definition.removesRows());
        try {
            KernelInternals.validateTableProperties(properties);
        } catch (KernelException e) {
            throw new DeltaLiteException(
                    "A Delta table property of the sink of "
                            + location
                            + " is not valid: "
                            + e.getMessage()
                            + " Check its spelling and value against the Delta table properties.",
                    e);
        }
    }

    /**
     * Hadoop's file access to the table. On a local file system and on HDFS a file is forced to
     * storage and then published with an atomic hard link or rename ({@link RenamingFileIO}). On S3
     * the Delta log is written with conditional puts, after a check that the endpoint honours them
     * (unless the user declared a single writer), and Kernel's log stores are out of the game.
     */
    public static FileIO fileIO(String location, StorageSettings storage) {
        return new FaultInjectingFileIO(storageFileIO(location, storage));
    }

    private static FileIO storageFileIO(String location, StorageSettings storage) {
        StorageKind kind = StorageKind.of(location);
        Configuration hadoopConf = hadoopConfiguration(storage.hadoopOptions());
        HadoopFileIO hadoop = new HadoopFileIO(hadoopConf);
        if (kind == StorageKind.LOCAL) {
            return RenamingFileIO.local(hadoop);
        }
        if (kind == StorageKind.HDFS) {
            return RenamingFileIO.hdfs(hadoop, hadoopConf);
        }
        LogStoreGuard.install(hadoopConf);
        // S3A's threads start from here: see ConnectorClassLoader
        S3TableStorage s3 =
                ConnectorClassLoader.call(
                        () -> S3TableStorage.open(location, hadoopConf, storage.s3SingleWriter()));
        return new S3FileIO(hadoop, s3);
    }

    /**
     * The storage configuration: Hadoop's defaults plus the user's settings. Its class loader is
     * deltalite's own, not the task's context loader, which Flink closes when a task ends while
     * Hadoop's shutdown hooks may still read the configuration.
     */
    private static Configuration hadoopConfiguration(Map<String, String> hadoopOptions) {
        Configuration hadoopConf = new Configuration();
        hadoopConf.setClassLoader(DeltaTable.class.getClassLoader());
        hadoopOptions.forEach(hadoopConf::set);
        S3ADefaults.apply(hadoopConf);
        return hadoopConf;
    }

    private static Snapshot loadOrCreate(
            String location,
            String tablePath,
            Engine engine,
            Configuration hadoopConf,
            TableDefinition definition,
            boolean createIfMissing) {
        try {
            return load(location, tablePath, engine, hadoopConf);
        } catch (TableNotFoundException e) {
            if (!createIfMissing) {
                throw new DeltaLiteTableNotFoundException(
                        "There is no Delta table at "
                                + location
                                + " (no _delta_log with commits)."
                                + " Check the path, or let deltalite create the table.",
                        e);
            }
        }
        TableLocationCheck.requireCreatable(location, hadoopConf);
        // The writers and the committer of a job all open the table when they start; within a
        // JVM only one of them creates it, the others find it created.
        synchronized (CREATION_LOCKS.computeIfAbsent(tablePath, key -> new Object())) {
            try {
                return load(location, tablePath, engine, hadoopConf);
            } catch (TableNotFoundException e) {
                try {
                    create(location, tablePath, engine, definition);
                } catch (RuntimeException failed) {
                    // The commit of version 0 may have landed though it reported an error.
                    try {
                        return load(location, tablePath, engine, hadoopConf);
                    } catch (RuntimeException stillMissing) {
                        failed.addSuppressed(stillMissing);
                        throw failed;
                    }
                }
            }
        }
        return load(location, tablePath, engine, hadoopConf);
    }

    /**
     * The latest snapshot of the table at {@code tablePath}; a failure other than a missing table
     * that comes from a location no table can be at (a file, a path under a file) is reported as
     * that.
     */
    private static Snapshot load(
            String location, String tablePath, Engine engine, Configuration hadoopConf) {
        try {
            return TableManager.loadSnapshot(tablePath).build(engine);
        } catch (TableNotFoundException e) {
            throw e;
        } catch (RuntimeException e) {
            TableLocationCheck.explain(location, hadoopConf)
                    .ifPresent(
                            clearer -> {
                                clearer.addSuppressed(e);
                                throw clearer;
                            });
            S3AccessCheck.denied(location, "reading its Delta log", e)
                    .ifPresent(
                            denied -> {
                                throw denied;
                            });
            LogDamage.explain(location, tablePath, engine, new HadoopFileIO(hadoopConf), e)
                    .ifPresent(
                            damaged -> {
                                throw damaged;
                            });
            throw e;
        }
    }

    /**
     * Writes a log checkpoint of the table's first version, so that every reader (the sink's own
     * snapshot loads among them, once per checkpoint and writer) finds a complete checkpoint from
     * the start instead of listing the log from version 0 — which Kernel notes with a warning on
     * each load until the first interval checkpoint. A failure leaves the table as valid as without
     * it.
     */
    private static void checkpointFirstVersion(
            TransactionCommitResult created, String location, Engine engine) {
        try {
            Snapshot first =
                    created.getPostCommitSnapshot()
                            .orElseThrow(
                                    () -> new IllegalStateException("Kernel returned no snapshot"));
            first.writeCheckpoint(engine);
        } catch (io.delta.kernel.exceptions.CheckpointAlreadyExistsException e) {
            // Another sink that created the table at the same moment wrote it.
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "Writing the log checkpoint of the first version of {} failed; the table is"
                            + " valid, readers list its log from version 0 until the first"
                            + " interval checkpoint: {}",
                    location,
                    e.toString());
        }
    }

    private static final java.util.concurrent.ConcurrentMap<String, Object> CREATION_LOCKS =
            new java.util.concurrent.ConcurrentHashMap<>();

    private static void create(
            String location, String tablePath, Engine engine, TableDefinition definition) {
        TableSchema declared = definition.toSchema();
        TableFeatureCheck.requireWritableProperties(
                definition.tableProperties(), location, definition.removesRows());
        TableFeatureCheck.requireFieldIdsWritable(
                KernelSchemas.toKernel(declared.columns()), definition.tableProperties(), location);
        Map<String, String> properties = new HashMap<>(definition.tableProperties());
        if (!declared.isAppendOnly()) {
            properties.put(PRIMARY_KEY_PROPERTY, String.join(",", declared.primaryKey()));
        }
        try {
            // Kernel checks the table properties here already (an unknown one fails).
            CreateTableTransactionBuilder builder =
                    TableManager.buildCreateTableTransaction(
                                    tablePath,
                                    KernelSchemas.toKernel(
                                            declared.columns(), definition.columnComments()),
                                    ENGINE_INFO)
                            .withTableProperties(properties);
            if (declared.isPartitioned()) {
                List<Column> partitionColumns = new ArrayList<>();
                declared.partitionColumns().forEach(name -> partitionColumns.add(new Column(name)));
                builder = builder.withDataLayoutSpec(DataLayoutSpec.partitioned(partitionColumns));
            }
            TransactionCommitResult created =
                    builder.build(engine).commit(engine, CloseableIterable.emptyIterable());
            LOG.info("Created Delta table {} with schema {}", location, declared);
            checkpointFirstVersion(created, location, engine);
        } catch (TableAlreadyExistsException e) {
            LOG.info("Delta table {} was created concurrently; using it.", location);
        } catch (io.delta.kernel.exceptions.ConcurrentWriteException e) {
            LOG.info("Delta table {} was created concurrently; using it.", location);
        } catch (RuntimeException e) {
            if (e instanceof KernelException && !Causes.has(e, java.io.IOException.class)) {
                throw new DeltaLiteException(
                        "Creating the Delta table at "
                                + location
                                + " failed: "
                                + e.getMessage()
                                + ". Check the table properties and the schema.",
                        e);
            }
            throw new DeltaLiteStorageException(
                    "Creating the Delta table at "
                            + location
                            + " failed: "
                            + Causes.rootMessage(e)
                            + "."
                            + LocalWritability.explain(location)
                            + " Check that the sink may write there (it creates the table's folder,"
                            + " with _delta_log/ and _deltalite/, if missing: write permission),"
                            + " that the storage has space and is reachable; nothing was"
                            + " committed.",
                    e);
        }
    }

    /**
     * The schema of the existing table, with the declared primary key; the declared partition
     * columns must be the table's.
     */
    private static TableSchema schemaOf(
            Snapshot snapshot, TableDefinition definition, String location) {
        List<ValueType.Field> columns = KernelSchemas.fromKernel(snapshot.getSchema(), location);
        List<String> partitionColumns = snapshot.getPartitionColumnNames();
        if (!definition.partitionColumns().isEmpty()
                && !definition.partitionColumns().equals(partitionColumns)) {
            throw new DeltaLiteSchemaMismatchException(
                    "The Delta table at "
                            + location
                            + " is partitioned by "
                            + partitionColumns
                            + ", but the sink declares partition columns "
                            + definition.partitionColumns()
                            + ". Declare the table's partition"
                            + " columns (or none, to use the table's).");
        }
        String recordedKey = snapshot.getTableProperties().get(PRIMARY_KEY_PROPERTY);
        if (definition.isExistingTable()) {
            return new TableSchema(
                    columns,
                    recordedKey == null ? List.of() : List.of(recordedKey.split(",")),
                    partitionColumns);
        }
        if (recordedKey != null
                && !List.of(recordedKey.split(",")).equals(definition.primaryKey())) {
            throw new DeltaLiteSchemaMismatchException(
                    "The Delta table at "
                            + location
                            + " was created with primary key ("
                            + recordedKey
                            + "), but the sink declares ("
                            + String.join(",", definition.primaryKey())
                            + "). Upserting by another key would leave"
                            + " duplicates; declare the table's key.");
        }
        return new TableSchema(columns, definition.primaryKey(), partitionColumns);
    }

    private static long targetFileSize(MergeOptions options, Snapshot snapshot) {
        return options.targetFileSizeBytes() != 0
                ? options.targetFileSizeBytes()
                : tableTargetFileSize(snapshot);
    }

    private static Map<String, String> settings(MergeOptions options, long targetFileSize) {
        Map<String, String> settings = new HashMap<>();
        settings.put(
                "delta.kernel.default.parquet.writer.targetMaxFileSize",
                Long.toString(targetFileSize));
        settings.put(
                "delta.kernel.default.parquet.reader.batch-size",
                Integer.toString(options.readBatchSize()));
        settings.put("parquet.block.size", Long.toString(options.rowGroupSizeBytes()));
        // Kernel's Parquet writer takes the codec by Parquet's name (ZSTD, SNAPPY, …).
        settings.put("parquet.compression", options.compression().name());
        return settings;
    }

    private static long tableTargetFileSize(Snapshot snapshot) {
        String value = snapshot.getTableProperties().get("delta.targetFileSize");
        if (value != null) {
            try {
                return Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                LOG.warn(
                        "Ignoring delta.targetFileSize = '{}', which is not a number of bytes.",
                        value);
            }
        }
        return MergeOptions.DEFAULT_TARGET_FILE_SIZE;
    }

    @Override
    public long targetFileSizeBytes() {
        return targetFileSize;
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public TableSchema schema() {
        return schema;
    }

    @Override
    public TableSnapshot latestSnapshot() {
        Snapshot snapshot;
        try {
            snapshot = TableManager.loadSnapshot(tablePath).build(engine);
        } catch (TableNotFoundException e) {
            throw new DeltaLiteTableNotFoundException(
                    "The Delta table at "
                            + location
                            + " disappeared while the sink was writing"
                            + " to it.",
                    e);
        } catch (RuntimeException e) {
            S3AccessCheck.denied(location, "reading its Delta log", e)
                    .ifPresent(
                            denied -> {
                                throw denied;
                            });
            LogDamage.explain(location, tablePath, engine, fileIO, e)
                    .ifPresent(
                            damaged -> {
                                throw damaged;
                            });
            throw e;
        }
        requireShape(snapshot);
        return new DeltaTableSnapshot(this, snapshot);
    }

    /**
     * Fails when {@code snapshot} is not of the shape the sink opened the table with — schema,
     * partition columns, column mapping (another writer replaced or altered the table) — or has
     * turned on a feature deltalite cannot write: nothing is written by a layout the table no
     * longer has. A restarted job opens the table anew, and checks it as it is then.
     */
    private void requireShape(Snapshot snapshot) {
        List<String> changes = TableShape.of(snapshot, location).changesSince(shape);
        if (!changes.isEmpty()) {
            throw new DeltaLiteSchemaMismatchException(
                    "The Delta table at "
                            + location
                            + " changed while the sink was running: version "
                            + snapshot.getVersion()
                            + " changed "
                            + String.join(" and ", changes)
                            + " (another writer replaced or altered the table), and the sink"
                            + " writes by the table as it opened it. Nothing of this attempt was"
                            + " committed. Restart the job so it opens the table anew.");
        }
        TableFeatureCheck.requireWritable(snapshot, location, removesRows);
    }

    @Override
    public Optional<List<String>> partitionColumnsAt(long version) {
        try {
            return Optional.of(
                    TableManager.loadSnapshot(tablePath)
                            .atVersion(version)
                            .build(engine)
                            .getPartitionColumnNames());
        } catch (KernelException e) {
            // The version's log expired (or never was): nothing left to compare with.
            LOG.debug("Version {} of {} cannot be read: {}", version, location, e.toString());
            return Optional.empty();
        }
    }

    @Override
    public List<String> columnsLostSince(long version) {
        Snapshot then;
        try {
            then = TableManager.loadSnapshot(tablePath).atVersion(version).build(engine);
        } catch (KernelException e) {
            // The version's log expired (or never was): nothing left to compare with. Restored
            // checkpoints only, so rare; said at WARN since the check is then skipped.
            LOG.warn(
                    "A checkpoint restored for the Delta table {} was merged at version {}, whose"
                            + " log can no longer be read ({}): the sink cannot check that its"
                            + " columns are still stored under the same names, and commits it."
                            + " If another writer dropped and re-added one of the input's columns"
                            + " since, that checkpoint's values of it read as null.",
                    location,
                    version,
                    e.toString());
            return List.of();
        }
        // Only the columns whose values the input supplies (under their name then, which a rename
        // of the sink's may have changed): one the job does not write (another writer's, or one
        // the sink itself dropped because the input no longer has it) loses nothing the job was
        // asked to keep.
        List<String> dataColumns = new ArrayList<>();
        for (StructField field : then.getSchema().fields()) {
            if (!then.getPartitionColumnNames().contains(field.getName())
                    && inputColumns.stream().anyMatch(field.getName()::equalsIgnoreCase)) {
                dataColumns.add(field.getName());
            }
        }
        return physicalNames()
                .lostSince(
                        PhysicalNames.of(then.getSchema(), then.getTableProperties()), dataColumns);
    }

    @Override
    public AttemptJournal journal() {
        return journal;
    }

    @Override
    public DataFileStore files() {
        return files;
    }

    Engine engine() {
        return engine;
    }

    /**
     * The values to store in the columns the input lacks that have a default on the table, by
     * column name ({@link InputProjection#plan(List, TableSchema, Map, String)}).
     */
    public Map<String, Object> columnDefaults() {
        return columnDefaults;
    }

    @Override
    public List<String> clusteringColumns() {
        return rowClustering;
    }

    /** The clustering columns (liquid clustering), by physical name; empty when none. */
    List<io.delta.kernel.expressions.Column> physicalClusteringColumns() {
        return clusteringColumns;
    }

    FileIO fileIO() {
        return fileIO;
    }

    /** The engine's file IO: Kernel's Parquet writer's settings, the streams it opens tracked. */
    TrackingFileIO engineFileIO() {
        return engineFileIO;
    }

    int readBatchSize() {
        return readBatchSize;
    }

    /** The qualified table path, a Hadoop path string (see {@link #qualify}). */
    /**
     * Whether it is time to delete expired log files again: at most once an hour per process (and
     * at least every half retention), because doing so lists the whole retained log — a month of
     * commits by default.
     */
    boolean claimLogCleanup(long retentionMillis) {
        long now = System.currentTimeMillis();
        long last = lastLogCleanupMillis.get();
        long interval = Math.min(LOG_CLEANUP_INTERVAL_MILLIS, Math.max(0, retentionMillis / 2));
        return (last == 0 || now - last >= interval)
                && lastLogCleanupMillis.compareAndSet(last, now);
    }

    static final long LOG_CLEANUP_INTERVAL_MILLIS = 60 * 60 * 1000L;

    String tablePath() {
        return tablePath;
    }

    /** The table root as a URI, for resolving and relativizing the (URI-encoded) log paths. */
    URI tableRoot() {
        return tableRoot;
    }

    Row writeState() {
        return writeState;
    }

    DeletionVectorFiles deletionVectors() {
        return deletionVectors;
    }

    StagedKeyFiles stagedKeys() {
        return stagedKeys;
    }

    KernelFileStore kernelFiles() {
        return files;
    }

    /** Deletes a file; true when it is gone. */
    boolean deleteQuietly(String path) {
        try {
            return engine.getFileSystemClient().delete(path);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not delete uncommitted file {}: {}", path, e.toString());
            return false;
        }
    }
}
