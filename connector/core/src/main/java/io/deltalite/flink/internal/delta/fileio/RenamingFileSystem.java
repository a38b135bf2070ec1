package io.deltalite.flink.internal.delta.fileio;

import java.io.Closeable;
import java.io.IOException;

/**
 * The operations of a file system on which {@link RenamingFileIO} publishes a file by giving it its
 * name atomically: a local disk (hard link or rename), HDFS (rename). Paths are Hadoop path
 * strings, as Kernel passes them.
 */
interface RenamingFileSystem {
    /**
     * A new file, open for writing, created only if the name is free (its folders as needed).
     *
     * @throws java.nio.file.FileAlreadyExistsException if a file has the name
     */
    NewFile createNew(String path) throws IOException;

    /** A file open for writing under its name, replacing any file of that name. */
    NewFile createReplacing(String path) throws IOException;

    /**
     * Gives {@code temporary} the name {@code target}, atomically: replacing an existing file when
     * {@code overwrite}, else only if the name is free. {@code temporary} is gone afterwards,
     * whether the rename succeeded or not.
     *
     * @throws java.nio.file.FileAlreadyExistsException if {@code overwrite} is false and the name
     *     is taken
     */
    void rename(String temporary, String target, boolean overwrite) throws IOException;

    /**
     * Makes the names in {@code folder} durable — a file just created, linked or renamed there —
     * where the file system can be asked to; a no-op where it cannot or need not be.
     */
    void syncFolder(String folder) throws IOException;

    /** Deletes {@code path} if it exists. */
    void deleteIfExists(String path) throws IOException;

    /** A file being written. */
    interface NewFile extends Closeable {
        void write(int b) throws IOException;

        void write(byte[] b, int off, int len) throws IOException;

        void flush() throws IOException;

        /**
         * Forces every byte written so far to durable storage (a local disk's {@code fsync}, HDFS's
         * {@code hsync}): once it returns, a power loss cannot leave the file shorter.
         */
        void sync() throws IOException;

        /** Closes the file; releases its descriptor even if flushing fails. */
        @Override
        void close() throws IOException;
    }
}
