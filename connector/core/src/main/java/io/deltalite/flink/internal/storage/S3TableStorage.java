package io.deltalite.flink.internal.storage;

import io.deltalite.flink.exceptions.DeltaLiteException;
import io.deltalite.flink.exceptions.DeltaLiteUnsupportedStorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The S3 storage of one Delta table, checked and ready for commits. It writes Delta log files as
 * put-if-absent with S3's conditional write — never through a lock inside one JVM — and other
 * objects as plain, atomic PUTs.
 *
 * <p>{@link #open} refuses an endpoint on which put-if-absent cannot be trusted, unless the user
 * declared that exactly one writer ever writes the table ({@code s3.single-writer}).
 */
public final class S3TableStorage {
    private static final Logger LOG = LoggerFactory.getLogger(S3TableStorage.class);

    /** How a Delta log file is created. */
    enum LogWrites {
        /** {@code If-None-Match: *}: atomic, safe with any number of writers. */
        CONDITIONAL,
        /**
         * Existence check, then PUT: what single-writer mode falls back to when S3A's conditional
         * writes are turned off. Two writers can both pass the check.
         */
        CHECK_THEN_PUT
    }

    private final FileSystem fs;
    private final S3Endpoint endpoint;
    private final LogWrites logWrites;

    S3TableStorage(FileSystem fs, LogWrites logWrites) {
        this.fs = fs;
        this.endpoint = S3Endpoint.of(fs);
        this.logWrites = logWrites;
    }

    /**
     * Opens the S3 storage of the table at {@code location} (which {@link S3Locations#isS3} must
     * accept) and checks that concurrent commits to it are safe.
     *
     * @param singleWriter the user's promise that exactly one writer ever writes the table
     * @throws DeltaLiteUnsupportedStorageException if the endpoint ignores conditional writes, or
     *     S3A's conditional writes are turned off, and {@code singleWriter} is not set
     */
    public static S3TableStorage open(String location, Configuration conf, boolean singleWriter) {
        Path table = new Path(location);
        Path log = new Path(table, "_delta_log");
        FileSystem fs;
        boolean conditionalAvailable;
        try {
            fs = table.getFileSystem(conf);
            conditionalAvailable = ConditionalPut.isAvailable(fs, log);
        } catch (IOException e) {
            throw new DeltaLiteException(
                    "Opening the S3 storage of the Delta table at "
                            + location
                            + " failed: "
                            + e.getMessage()
                            + ". Check the fs.s3a.* settings (endpoint, region, credentials).",
                    e);
        }
        S3Endpoint endpoint = S3Endpoint.of(fs);
        if (singleWriter) {
            LOG.warn(
                    "Single-writer mode for the Delta table at {} (S3 {}): the sink does not check"
                            + " that the endpoint honours conditional writes. If a second writer"
                            + " ever commits to this table, commits can overwrite each other and"
                            + " data is lost silently.",
                    location,
                    endpoint.describe());
            return new S3TableStorage(
                    fs, conditionalAvailable ? LogWrites.CONDITIONAL : LogWrites.CHECK_THEN_PUT);
        }
        if (!conditionalAvailable) {
            throw new DeltaLiteUnsupportedStorageException(
                    "Refusing to write the Delta table at "
                            + location
                            + ": conditional writes are turned off in the S3A settings"
                            + " (fs.s3a.create.conditional.enabled = false), and without them two"
                            + " writers committing at the same time would overwrite each other's"
                            + " commit and lose data silently. Remove that setting, or, only if"
                            + " exactly one writer ever writes this table, set the sink option"
                            + " 's3.single-writer' to true.");
        }
        boolean honoured;
        try {
            honoured = ConditionalWriteProbe.honoursConditionalWrites(fs, log);
        } catch (IOException e) {
            S3AccessCheck.denied(location, "writing a probe object under " + log, e)
                    .ifPresent(
                            denied -> {
                                throw denied;
                            });
            throw new DeltaLiteException(
                    "Checking whether S3 "
                            + endpoint.describe()
                            + " honours conditional writes, which deltalite needs to commit to the"
                            + " Delta table at "
                            + location
                            + ", failed: writing a probe object under "
                            + log
                            + " gave "
                            + e.getMessage()
                            + ". Check the endpoint, the bucket, the credentials and the write"
                            + " permission on that path.",
                    e);
        }
        if (!honoured) {
            throw new DeltaLiteUnsupportedStorageException(
                    "Refusing to write the Delta table at "
                            + location
                            + ": S3 "
                            + endpoint.describe()
                            + " ignores conditional writes. It accepted a second write of a probe"
                            + " object with 'If-None-Match: *' instead of answering 412"
                            + " Precondition Failed. deltalite commits to the Delta log with such"
                            + " writes; on this endpoint two writers committing at the same time"
                            + " would overwrite each other's commit and data would be lost"
                            + " silently. Use an S3 store that supports conditional writes"
                            + " (If-None-Match), or, only if exactly one writer ever writes this"
                            + " table, set the sink option 's3.single-writer' to true.");
        }
        return new S3TableStorage(fs, LogWrites.CONDITIONAL);
    }

    /**
     * Creates the object at {@code path} with {@code content} unless it exists: how every Delta log
     * file that must not be replaced (commits, checksums) is written.
     *
     * @throws FileAlreadyExistsException if the object exists — another writer committed first
     */
    public void putIfAbsent(String path, byte[] content) throws IOException {
        Path target = new Path(path);
        if (logWrites == LogWrites.CONDITIONAL) {
            ConditionalPut.write(fs, target, content);
            return;
        }
        try (FSDataOutputStream out = fs.create(target, false)) {
            out.write(content);
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            FileAlreadyExistsException exists =
                    new FileAlreadyExistsException(path, null, "it exists already");
            exists.initCause(e);
            throw exists;
        }
    }

    /** Writes the whole object at {@code path}, replacing any; readers see old or new content. */
    public void put(String path, byte[] content) throws IOException {
        try (ObjectUpload upload = create(path)) {
            upload.write(content);
        }
    }

    /** Starts writing the object at {@code path}, replacing any once it is closed. */
    public ObjectUpload create(String path) throws IOException {
        return new ObjectUpload(path, fs.create(new Path(path), true));
    }

    /** Opens the object at {@code path} for reading. */
    public InputStream open(String path) throws IOException {
        return fs.open(new Path(path));
    }

    /**
     * The objects beside {@code path} whose names sort at or after its name, in name order: how a
     * Delta reader lists the log from a version on.
     *
     * @throws java.io.FileNotFoundException if nothing exists under the parent of {@code path}
     */
    public List<FileStatus> listFrom(String path) throws IOException {
        Path from = new Path(path);
        if (fs instanceof org.apache.hadoop.fs.s3a.S3AFileSystem s3a) {
            return new S3LogListing(s3a).listFrom(from);
        }
        String first = from.getName();
        List<FileStatus> files = new ArrayList<>();
        for (FileStatus status : fs.listStatus(from.getParent())) {
            if (status.isFile() && status.getPath().getName().compareTo(first) >= 0) {
                files.add(status);
            }
        }
        files.sort(Comparator.comparing(status -> status.getPath().getName()));
        return files;
    }

    @Override
    public String toString() {
        return "S3TableStorage{" + endpoint.describe() + ", log writes " + logWrites + "}";
    }
}
