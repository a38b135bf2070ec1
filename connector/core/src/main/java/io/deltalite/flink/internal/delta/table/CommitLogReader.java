package io.deltalite.flink.internal.delta.table;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.deltalite.flink.internal.delta.fileio.LogFiles;
import io.deltalite.flink.internal.delta.kernel.KernelInternals;
import io.deltalite.flink.internal.delta.kernel.KernelIterators;
import io.deltalite.flink.internal.merge.table.CommitRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads what individual commit files of a table's log recorded — transaction ids, added files and
 * the deletion vector files they reference, and when each was written — to tell which version holds
 * a checkpoint. It lists the log from the first version asked for (on S3 a listing that starts
 * after a key, not of the whole log) and reads each commit file once.
 */
final class CommitLogReader {
    private static final StructType READ_SCHEMA =
            new StructType()
                    .add(
                            "txn",
                            new StructType()
                                    .add("appId", StringType.STRING)
                                    .add("version", LongType.LONG))
                    .add(
                            "add",
                            new StructType()
                                    .add("path", StringType.STRING)
                                    .add(
                                            "deletionVector",
                                            new StructType()
                                                    .add("storageType", StringType.STRING)
                                                    .add("pathOrInlineDv", StringType.STRING)
                                                    .add(
                                                            "offset",
                                                            io.delta.kernel.types.IntegerType
                                                                    .INTEGER)));

    private final Engine engine;
    private final String location;
    private final String tablePath;
    private final URI tableRoot;
    private final long latestVersion;
    private final TreeMap<Long, CommitRecord> read = new TreeMap<>();

    CommitLogReader(
            Engine engine, String location, String tablePath, URI tableRoot, long latestVersion) {
        this.engine = engine;
        this.location = location;
        this.tablePath = tablePath;
        this.tableRoot = tableRoot;
        this.latestVersion = latestVersion;
    }

    /**
     * The records of the versions after {@code version} up to the latest; empty if one is gone, or
     * if {@code version} is newer than the latest (the table's history is not the one that version
     * was seen in: it was recreated at the same location).
     */
    synchronized Optional<List<CommitRecord>> commitsAfter(long version) {
        long first = version + 1;
        if (version > latestVersion) {
            return Optional.empty();
        }
        if (first > latestVersion) {
            return Optional.of(List.of());
        }
        // What was read so far is the range from read.firstKey() to the latest version.
        long upTo = read.isEmpty() ? latestVersion : read.firstKey() - 1;
        if (first <= upTo) {
            Map<Long, FileStatus> files = list(first, upTo);
            for (long v = upTo; v >= first; v--) {
                FileStatus file = files.get(v);
                if (file == null) {
                    // Expired from the log (or never listed): the range cannot be read.
                    return Optional.empty();
                }
                read.put(v, readCommit(v, file));
            }
        }
        List<CommitRecord> records = new ArrayList<>(read.tailMap(first, true).values());
        if (records.size() != latestVersion - version) {
            return Optional.empty();
        }
        return Optional.of(records);
    }

    private Map<Long, FileStatus> list(long first, long last) {
        Map<Long, FileStatus> files = new HashMap<>();
        // a file system path string, not the (encoded) URI: listFrom reads it with new Path(..)
        String start = LogFiles.commitFile(tablePath, first);
        try (CloseableIterator<FileStatus> listing = engine.getFileSystemClient().listFrom(start)) {
            while (listing.hasNext()) {
                FileStatus file = listing.next();
                OptionalLong v = LogFiles.commitVersion(file.getPath());
                if (v.isEmpty()) {
                    continue;
                }
                if (v.getAsLong() > last) {
                    break;
                }
                files.put(v.getAsLong(), file);
            }
        } catch (java.io.FileNotFoundException e) {
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Listing the Delta log of table " + location + " from version " + first, e);
        }
        return files;
    }

    private CommitRecord readCommit(long version, FileStatus file) {
        Map<String, Long> transactions = new HashMap<>();
        Set<String> added = new HashSet<>();
        try (CloseableIterator<ColumnarBatch> batches =
                engine.getJsonHandler()
                        .readJsonFiles(
                                KernelIterators.of(List.of(file).iterator()),
                                READ_SCHEMA,
                                Optional.empty())) {
            while (batches.hasNext()) {
                ColumnarBatch batch = batches.next();
                ColumnVector txn = batch.getColumnVector(0);
                ColumnVector add = batch.getColumnVector(1);
                for (int row = 0; row < batch.getSize(); row++) {
                    if (!txn.isNullAt(row)) {
                        transactions.put(
                                txn.getChild(0).getString(row), txn.getChild(1).getLong(row));
                    }
                    if (!add.isNullAt(row) && !add.getChild(0).isNullAt(row)) {
                        added.add(
                                DeltaTableSnapshot.absolutePath(
                                        tableRoot, add.getChild(0).getString(row)));
                        ColumnVector vector = add.getChild(1);
                        if (!vector.isNullAt(row)
                                && !"i".equals(vector.getChild(0).getString(row))) {
                            // The file of its deletion vector is referenced too.
                            added.add(
                                    KernelInternals.deletionVectorPath(
                                            new io.deltalite.flink.internal.merge.value
                                                    .DeletionVectorRef(
                                                    vector.getChild(0).getString(row),
                                                    vector.getChild(1).getString(row),
                                                    vector.getChild(2).isNullAt(row)
                                                            ? 1
                                                            : vector.getChild(2).getInt(row),
                                                    0,
                                                    0),
                                            tablePath));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Reading version " + version + " of the Delta log of table " + location, e);
        }
        return new CommitRecord(version, transactions, added, file.getModificationTime());
    }
}
