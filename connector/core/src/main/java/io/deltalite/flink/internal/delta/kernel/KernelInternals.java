package io.deltalite.flink.internal.delta.kernel;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.Row;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SingleAction;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every use of Delta Kernel's internal API, in one place, so that a Kernel upgrade breaks here and
 * nowhere else. Kernel 4.4 has no public API to remove a file or to read the protocol's table
 * features; both are needed by a writer that rewrites files. Nor can its public API change the
 * schema of a table without column mapping, which the Delta protocol allows (adding a nullable
 * column, widening a type) and Spark does, nor write the checksum of a version whose files Kernel's
 * own post-commit hook cannot serialize, nor read part of a data file (a range of its row groups).
 */
public final class KernelInternals {
    private KernelInternals() {}

    /**
     * The remove action for the file described by {@code addFile} (the {@code add} struct of a
     * scan-file row): same path, partition values, size, statistics and deletion vector, with the
     * given {@code dataChange} and deletion time.
     */
    public static Row removeAction(Row addFile, long deletionTimestampMillis, boolean dataChange) {
        Row remove =
                new AddFile(addFile)
                        .toRemoveFileRow(dataChange, Optional.of(deletionTimestampMillis));
        return SingleAction.createRemoveFileSingleAction(remove);
    }

    /**
     * {@code appendAction} (an add action as {@code Transaction.generateAppendActions} makes it)
     * with {@code dataChange = false}, everything else kept: for files that only rearrange rows.
     */
    public static Row withoutDataChange(
            Row appendAction, io.delta.kernel.types.StructType physicalSchema) {
        int ordinal = appendAction.getSchema().indexOf("add");
        AddFile add = new AddFile(appendAction.getStruct(ordinal));
        Row row =
                AddFile.createAddFileRow(
                        physicalSchema,
                        add.getPath(),
                        add.getPartitionValues(),
                        add.getSize(),
                        add.getModificationTime(),
                        false,
                        add.getDeletionVector(),
                        add.getTags(),
                        add.getBaseRowId(),
                        add.getDefaultRowCommitVersion(),
                        add.getStats(physicalSchema));
        return SingleAction.createAddFileSingleAction(row);
    }

    /**
     * The schema data files of a column-mapped table have for its columns {@code logical}: each
     * field under its physical name, and in {@code id} mode with its id as the Parquet field id
     * (Kernel's public API keeps this behind its own data path, which deltalite does not use).
     *
     * @param tableSchema the table's schema with the fields' column mapping metadata
     * @param mode {@code name} or {@code id}
     */
    public static io.delta.kernel.types.StructType physicalSchema(
            io.delta.kernel.types.StructType logical,
            io.delta.kernel.types.StructType tableSchema,
            String mode) {
        return io.delta.kernel.internal.util.ColumnMapping.convertToPhysicalSchema(
                logical,
                tableSchema,
                io.delta.kernel.internal.util.ColumnMapping.ColumnMappingMode.fromTableConfig(
                        mode));
    }

    /**
     * The Parquet schema Kernel's Parquet writer gives the files it writes with {@code
     * physicalSchema} (field names, types, repetition and field ids), or null when this Kernel does
     * not say. Kernel keeps the conversion package-private ({@code ParquetSchemaUtils}); deltalite
     * asks it, rather than converting on its own, so that "written as Kernel writes now" stays
     * exact.
     */
    public static org.apache.parquet.schema.MessageType parquetSchemaOfWrites(
            io.delta.kernel.types.StructType physicalSchema) {
        java.lang.invoke.MethodHandle convert = ParquetSchemas.TO_PARQUET;
        if (convert == null) {
            return null;
        }
        try {
            return (org.apache.parquet.schema.MessageType) convert.invoke(physicalSchema);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The statistics of the Parquet file {@code file} for {@code columns}, read from its footer as
     * Kernel's Parquet writer reads those of the files it writes.
     */
    public static io.delta.kernel.statistics.DataFileStatistics parquetFileStatistics(
            io.delta.kernel.defaults.engine.fileio.InputFile file,
            io.delta.kernel.types.StructType physicalSchema,
            java.util.List<io.delta.kernel.expressions.Column> columns)
            throws java.io.IOException {
        return io.delta.kernel.defaults.internal.parquet.ParquetStatsReader.readDataFileStatistics(
                file, physicalSchema, columns);
    }

    /** Kernel's {@code ParquetSchemaUtils.toParquetSchema}, looked up once; null if missing. */
    private static final class ParquetSchemas {
        static final java.lang.invoke.MethodHandle TO_PARQUET = lookUp();

        private static java.lang.invoke.MethodHandle lookUp() {
            try {
                java.lang.reflect.Method method =
                        Class.forName(
                                        "io.delta.kernel.defaults.internal.parquet.ParquetSchemaUtils")
                                .getDeclaredMethod(
                                        "toParquetSchema", io.delta.kernel.types.StructType.class);
                method.setAccessible(true);
                return java.lang.invoke.MethodHandles.lookup().unreflect(method);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    }

    /**
     * Checks Delta table properties as Kernel does when it creates a table: an unknown {@code
     * delta.*} key or an invalid value throws Kernel's exception, which names the property.
     */
    public static void validateTableProperties(java.util.Map<String, String> properties) {
        io.delta.kernel.internal.TableConfig.validateAndNormalizeDeltaProperties(properties);
    }

    /** The bytes of an inline deletion vector ({@code storageType} {@code i}). */
    public static byte[] decodeInlineDeletionVector(String encoded, int sizeInBytes) {
        return io.delta.kernel.internal.deletionvectors.Base85Codec.decodeBytes(
                encoded, sizeInBytes);
    }

    /** The Z85 form of a deletion vector file's UUID, as {@code u} descriptors name it. */
    public static String encodeUuid(java.util.UUID id) {
        return io.delta.kernel.internal.deletionvectors.Base85Codec.encodeUUID(id);
    }

    /** The file of an on-disk deletion vector of the table at {@code tablePath}. */
    public static String deletionVectorPath(
            io.deltalite.flink.internal.merge.value.DeletionVectorRef ref, String tablePath) {
        return descriptor(ref).getAbsolutePath(tablePath);
    }

    private static io.delta.kernel.internal.actions.DeletionVectorDescriptor descriptor(
            io.deltalite.flink.internal.merge.value.DeletionVectorRef ref) {
        return new io.delta.kernel.internal.actions.DeletionVectorDescriptor(
                ref.storageType(),
                ref.pathOrInlineDv(),
                ref.offset() < 0 ? Optional.empty() : Optional.of(ref.offset()),
                ref.sizeInBytes(),
                ref.cardinality());
    }

    /**
     * The add action that gives the file described by {@code addFile} (the {@code add} struct of a
     * scan-file row) the deletion vector {@code ref}: same path, partition values, size, time, tags
     * and row tracking fields, statistics without tight bounds, {@code dataChange = true}.
     */
    public static Row addWithDeletionVector(
            Row addFile,
            io.deltalite.flink.internal.merge.value.DeletionVectorRef ref,
            io.delta.kernel.types.StructType physicalSchema) {
        AddFile add = new AddFile(addFile);
        Optional<io.delta.kernel.statistics.DataFileStatistics> stats =
                add.getStats(physicalSchema)
                        .map(io.delta.kernel.statistics.DataFileStatistics::withoutTightBounds);
        Row row =
                AddFile.createAddFileRow(
                        physicalSchema,
                        add.getPath(),
                        add.getPartitionValues(),
                        add.getSize(),
                        add.getModificationTime(),
                        true,
                        Optional.of(descriptor(ref)),
                        add.getTags(),
                        add.getBaseRowId(),
                        add.getDefaultRowCommitVersion(),
                        stats);
        return SingleAction.createAddFileSingleAction(row);
    }

    /**
     * Deletes the log files of {@code snapshot}'s table that are older than its {@code
     * delta.logRetentionDuration} and precede a log checkpoint, as Delta writers do after a
     * checkpoint — unless the table turns that off ({@code delta.enableExpiredLogCleanup}) or
     * protects its checkpoints. Kernel's own checkpoint hook skips it for the snapshot a commit
     * returns, so the sink calls it after writing a checkpoint.
     *
     * @return how many files were deleted
     */
    public static long cleanupExpiredLogs(
            io.delta.kernel.engine.Engine engine, Snapshot snapshot, String tablePath)
            throws java.io.IOException {
        io.delta.kernel.internal.SnapshotImpl impl =
                (io.delta.kernel.internal.SnapshotImpl) snapshot;
        io.delta.kernel.internal.actions.Metadata metadata = impl.getMetadata();
        boolean enabled =
                io.delta.kernel.internal.TableConfig.EXPIRED_LOG_CLEANUP_ENABLED.fromMetadata(
                        metadata);
        boolean protectedCheckpoints =
                impl.getProtocol()
                        .getWriterFeatures()
                        .contains(
                                io.delta.kernel.internal.tablefeatures.TableFeatures
                                        .CHECKPOINT_PROTECTION_W_FEATURE
                                        .featureName());
        if (!enabled || protectedCheckpoints) {
            return 0;
        }
        long retention = io.delta.kernel.internal.TableConfig.LOG_RETENTION.fromMetadata(metadata);
        return io.delta.kernel.internal.snapshot.MetadataCleanup.cleanupExpiredLogs(
                engine,
                System::currentTimeMillis,
                new io.delta.kernel.internal.fs.Path(tablePath),
                retention);
    }

    /**
     * Writes the checksum file ({@code <version>.crc}) of {@code version} of the table at {@code
     * tablePath} from a replay of its log, as Kernel's {@code CHECKSUM_FULL} post-commit hook does,
     * but without the optional list of all files ({@code allFiles}). Kernel 4.4 puts that list in
     * the checksum of a table of at most 20 files, and its JSON writer cannot write it when some of
     * the files have a deletion vector and others none: {@code GenericColumnVector#getChild} of the
     * {@code deletionVector} column fails on a file without one. The checksums Kernel builds from
     * the previous one ({@code CHECKSUM_SIMPLE}) never have the list either. Does nothing when the
     * checksum exists.
     */
    public static void writeChecksum(
            io.delta.kernel.engine.Engine engine, String tablePath, long version)
            throws java.io.IOException {
        io.delta.kernel.internal.SnapshotImpl snapshot =
                (io.delta.kernel.internal.SnapshotImpl)
                        io.delta.kernel.TableManager.loadSnapshot(tablePath)
                                .atVersion(version)
                                .build(engine);
        io.delta.kernel.internal.snapshot.LogSegment segment = snapshot.getLogSegment();
        boolean written =
                segment.getLastSeenChecksum()
                        .map(
                                file ->
                                        io.delta.kernel.internal.util.FileNames.getFileVersion(
                                                        new io.delta.kernel.internal.fs.Path(
                                                                file.getPath()))
                                                == version)
                        .orElse(false);
        if (written) {
            return;
        }
        io.delta.kernel.internal.checksum.CRCInfo checksum =
                io.delta.kernel.internal.checksum.ChecksumUtils.computeChecksum(
                        engine, segment, false);
        new io.delta.kernel.internal.checksum.ChecksumWriter(segment.getLogPath())
                .writeCheckSum(engine, checksum);
    }

    /** The table's {@code delta.deletedFileRetentionDuration}, in milliseconds. */
    public static long deletedFileRetentionMillis(Snapshot snapshot) {
        return io.delta.kernel.internal.TableConfig.TOMBSTONE_RETENTION.fromMetadata(
                ((io.delta.kernel.internal.SnapshotImpl) snapshot).getMetadata());
    }

    /** The table's {@code delta.logRetentionDuration}, in milliseconds. */
    public static long logRetentionMillis(Snapshot snapshot) {
        return io.delta.kernel.internal.TableConfig.LOG_RETENTION.fromMetadata(
                ((io.delta.kernel.internal.SnapshotImpl) snapshot).getMetadata());
    }

    /** The reader and writer table features the table's protocol lists, in order. */
    public static Set<String> tableFeatures(Snapshot snapshot) {
        Set<String> features = new TreeSet<>(snapshot.getProtocol().getWriterFeatures());
        features.addAll(snapshot.getProtocol().getReaderFeatures());
        return features;
    }

    /**
     * A transaction on {@code snapshot} that commits {@code newSchema} (and, when {@code
     * typeWidening} is set, turns on the type widening table feature with {@code
     * delta.enableTypeWidening = true}) and nothing else, with no retries: a conflict surfaces as
     * Kernel's {@code ConcurrentWriteException}. It is built as {@code
     * UpdateTableTransactionBuilderImpl#build} builds one, without the step that requires column
     * mapping for any schema change.
     */
    public static io.delta.kernel.Transaction schemaChangeTransaction(
            Snapshot snapshot,
            io.delta.kernel.types.StructType newSchema,
            boolean typeWidening,
            String engineInfo) {
        io.delta.kernel.internal.SnapshotImpl impl =
                (io.delta.kernel.internal.SnapshotImpl) snapshot;
        io.delta.kernel.internal.actions.Metadata metadata =
                impl.getMetadata().withNewSchema(newSchema);
        Optional<io.delta.kernel.internal.actions.Protocol> protocol = Optional.empty();
        if (typeWidening) {
            metadata =
                    metadata.withMergedConfiguration(
                            java.util.Map.of(
                                    io.delta.kernel.internal.TableConfig.TYPE_WIDENING_ENABLED
                                            .getKey(),
                                    "true"));
            // As Kernel upgrades a protocol for a property that needs a feature: to (3, 7)
            // with the table's implicit features made explicit, plus typeWidening.
            protocol =
                    io.delta.kernel.internal.tablefeatures.TableFeatures
                            .autoUpgradeProtocolBasedOnMetadata(
                                    metadata, java.util.Set.of(), impl.getProtocol())
                            .map(upgrade -> upgrade._1);
        }
        return new io.delta.kernel.internal.TransactionImpl(
                false,
                impl.getDataPath(),
                Optional.of(impl),
                engineInfo,
                io.delta.kernel.Operation.MANUAL_UPDATE,
                protocol,
                Optional.of(metadata),
                impl.getCommitter(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(0),
                0,
                System::currentTimeMillis);
    }

    /** Kernel's check of a table schema without column mapping, defaults or Iceberg compat. */
    public static void validateSchema(
            io.delta.kernel.types.StructType schema, boolean columnMapping) {
        io.delta.kernel.internal.util.SchemaUtils.validateSchema(
                schema, columnMapping, false, false);
    }

    /**
     * The rows of the row groups of a Parquet file whose middle byte lies from {@code fromByte}
     * (inclusive) to {@code toByte} — parquet-java's file range, as a split of a file is read — in
     * batches of up to {@code batchSize} rows of {@code schema}, through Kernel's own batch
     * materializer (its public reader reads whole files only). The rows must be exactly the {@code
     * rows} rows from position {@code firstPosition} on: the iterator fails rather than hand out a
     * row at another position than the one counted for it.
     */
    public static io.delta.kernel.utils.CloseableIterator<io.delta.kernel.data.ColumnarBatch>
            readRowGroups(
                    org.apache.parquet.io.InputFile file,
                    io.delta.kernel.types.StructType schema,
                    long fromByte,
                    long toByte,
                    long firstPosition,
                    long rows,
                    int batchSize)
                    throws java.io.IOException {
        var support =
                new io.delta.kernel.defaults.internal.parquet.ParquetFileReader.BatchReadSupport(
                        batchSize, schema);
        org.apache.parquet.hadoop.ParquetReader<Object> reader =
                new org.apache.parquet.hadoop.ParquetReader.Builder<Object>(
                        file, new org.apache.parquet.conf.HadoopParquetConfiguration()) {
                    @Override
                    protected org.apache.parquet.hadoop.api.ReadSupport<Object> getReadSupport() {
                        return support;
                    }
                }.withFileRange(fromByte, toByte)
                        .useRecordFilter(false)
                        .useStatsFilter(false)
                        .useBloomFilter(false)
                        .useDictionaryFilter(false)
                        .useColumnIndexFilter(false)
                        .build();
        return new RowGroupBatches(file, reader, support, firstPosition, rows, batchSize);
    }

    /** Batches of a reader over a range of row groups, each row's position checked. */
    private static final class RowGroupBatches
            implements io.delta.kernel.utils.CloseableIterator<io.delta.kernel.data.ColumnarBatch> {
        private final org.apache.parquet.io.InputFile file;
        private final org.apache.parquet.hadoop.ParquetReader<Object> reader;
        private final io.delta.kernel.defaults.internal.parquet.ParquetFileReader.BatchReadSupport
                support;
        private final long end;
        private final int batchSize;
        private long expected;
        private boolean pending;
        private boolean done;

        RowGroupBatches(
                org.apache.parquet.io.InputFile file,
                org.apache.parquet.hadoop.ParquetReader<Object> reader,
                io.delta.kernel.defaults.internal.parquet.ParquetFileReader.BatchReadSupport
                        support,
                long firstPosition,
                long rows,
                int batchSize) {
            this.file = file;
            this.reader = reader;
            this.support = support;
            this.expected = firstPosition;
            this.end = firstPosition + rows;
            this.batchSize = batchSize;
        }

        @Override
        public boolean hasNext() {
            if (pending) {
                return true;
            }
            if (done) {
                return false;
            }
            try {
                pending = reader.read() != null;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            if (!pending) {
                done = true;
                if (expected != end) {
                    throw misplaced("ended at row " + expected);
                }
            }
            return pending;
        }

        @Override
        public io.delta.kernel.data.ColumnarBatch next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            int size = 0;
            do {
                pending = false;
                long position = reader.getCurrentRowIndex();
                if (position != expected) {
                    throw misplaced("read row " + position + " where row " + expected + " was due");
                }
                if (position >= end) {
                    throw misplaced("read row " + position + ", past the last one asked for");
                }
                support.finalizeCurrentRow(position);
                expected++;
                size++;
            } while (size < batchSize && hasNext());
            return support.getDataAsColumnarBatch(size);
        }

        private IllegalStateException misplaced(String what) {
            return new IllegalStateException(
                    "reading the row groups of "
                            + file
                            + " for rows up to "
                            + end
                            + ", Parquet "
                            + what
                            + ": the row groups read are not the ones asked for");
        }

        @Override
        public void close() throws java.io.IOException {
            reader.close();
        }
    }
}
