package io.deltalite.flink.internal.storage;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.AWSServiceIOException;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;

/**
 * Put-if-absent of a whole object with S3's conditional write ({@code If-None-Match: *}), through
 * S3A's conditional create (Hadoop 3.4.2 and later).
 *
 * <p>The store checks the condition when the object is published — at the single PUT, or at the
 * completion of a multipart upload — so S3A reports a lost race from {@code close()}: HTTP 412
 * ({@link RemoteFileChangedException}). AWS answers 409 {@code ConditionalRequestConflict} while
 * another conditional write of the same key is in flight; that too is reported as a lost race.
 * Either way the object is left as the winner wrote it, and the caller sees {@link
 * FileAlreadyExistsException}, which is what Delta Kernel expects of a log write that lost.
 */
final class ConditionalPut {
    /** The Hadoop create option that turns on {@code If-None-Match: *}. */
    static final String CREATE_IF_ABSENT = "fs.option.create.conditional.overwrite";

    private static final int PRECONDITION_FAILED = 412;
    private static final int CONFLICT = 409;

    private ConditionalPut() {}

    /**
     * Whether the file system can do conditional creates for {@code path} (S3A may turn it off).
     */
    static boolean isAvailable(FileSystem fs, Path path) throws IOException {
        return fs.hasPathCapability(path, CREATE_IF_ABSENT);
    }

    /**
     * Writes {@code content} to {@code path} unless an object exists there.
     *
     * @throws FileAlreadyExistsException if the object exists, or another writer is creating it
     */
    static void write(FileSystem fs, Path path, byte[] content) throws IOException {
        try {
            FSDataOutputStreamBuilder<?, ?> create = fs.createFile(path);
            create.must(CREATE_IF_ABSENT, true);
            FSDataOutputStream out = create.build();
            try (out) {
                out.write(content);
            }
        } catch (RemoteFileChangedException e) {
            throw lostRace(path, e);
        } catch (AWSServiceIOException e) {
            if (e.statusCode() == PRECONDITION_FAILED || e.statusCode() == CONFLICT) {
                throw lostRace(path, e);
            }
            throw e;
        }
    }

    private static FileAlreadyExistsException lostRace(Path path, IOException cause) {
        FileAlreadyExistsException lost =
                new FileAlreadyExistsException(
                        path.toString(),
                        null,
                        "another writer created it first (HTTP " + statusOf(cause) + ")");
        lost.initCause(cause);
        return lost;
    }

    private static int statusOf(IOException e) {
        return e instanceof AWSServiceIOException service
                ? service.statusCode()
                : PRECONDITION_FAILED;
    }
}
