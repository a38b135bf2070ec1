package io.deltalite.flink.internal.delta.fileio;

import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import java.io.IOException;
import org.apache.hadoop.fs.FSError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream through which Kernel writes every new file of a table, on any storage. The bytes go to
 * a {@link Target} that keeps them out of sight — a temporary file on a local disk, an S3 upload —
 * and {@link #close()} makes the file appear under its name only if {@link PublishGuard} finds it
 * whole; otherwise the target is discarded and close fails, naming the file and why.
 *
 * <p>A stream that is never closed — its writer failed or was cancelled mid-file — must be {@link
 * #abandonIfOpen() abandoned}: that frees what the target holds (an open file descriptor, which on
 * a full disk keeps its space; the parts of a multipart upload, which S3 keeps and bills). {@link
 * TrackingFileIO} abandons the streams its write scope opened.
 */
final class PublishingStream extends PositionOutputStream implements Abandonable {
    private static final Logger LOG = LoggerFactory.getLogger(PublishingStream.class);

    /** Where the bytes of a file go before it is published. */
    interface Target {
        void write(int b) throws IOException;

        void write(byte[] b, int off, int len) throws IOException;

        void flush() throws IOException;

        /** Makes the complete file visible under its name. */
        void publish() throws IOException;

        /** Drops what was written; nothing becomes visible. Must not throw. */
        void discard();
    }

    private final String path;
    private final Target target;
    private final PublishGuard guard;
    private long position;

    private enum State {
        OPEN,
        PUBLISHED,
        /** A close refused or failed to publish it (and said so). */
        FAILED,
        /** Dropped by {@link #abandonIfOpen()}: its writer must not think it exists. */
        ABANDONED
    }

    private State state = State.OPEN;

    PublishingStream(String path, Target target) {
        this.path = path;
        this.target = target;
        this.guard = new PublishGuard(path);
    }

    @Override
    public long getPos() {
        return position;
    }

    @Override
    public void write(int b) throws IOException {
        requireOpen();
        try {
            target.write(b);
        } catch (IOException | RuntimeException | Error e) {
            throw failed(e);
        }
        guard.wrote(b);
        position++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        requireOpen();
        try {
            target.write(b, off, len);
        } catch (IOException | RuntimeException | Error e) {
            throw failed(e);
        }
        guard.wrote(b, off, len);
        position += len;
    }

    @Override
    public void flush() throws IOException {
        try {
            target.flush();
        } catch (IOException | RuntimeException | Error e) {
            throw failed(e);
        }
    }

    /** Publishes the file if it is whole; else discards it and says why. */
    @Override
    public synchronized void close() throws IOException {
        if (state == State.PUBLISHED || state == State.FAILED) {
            return;
        }
        requireOpen();
        state = State.FAILED;
        boolean published = false;
        try {
            String refusal = guard.refusal();
            if (refusal != null) {
                throw new IOException("Not publishing " + path + ": " + refusal + ".");
            }
            target.publish();
            published = true;
            state = State.PUBLISHED;
        } catch (IOException | RuntimeException | Error e) {
            throw annotated(e);
        } finally {
            if (!published) {
                target.discard();
            }
        }
    }

    @Override
    public synchronized boolean abandonIfOpen() {
        if (state != State.OPEN) {
            return false;
        }
        state = State.ABANDONED;
        target.discard();
        LOG.info("Abandoned the unfinished write of {}", path);
        return true;
    }

    /** A stream that was abandoned, published or refused takes no more writes. */
    private void requireOpen() throws IOException {
        if (state == State.ABANDONED) {
            throw new IOException(
                    "The write of " + path + " was abandoned; the file is not published.");
        }
        if (state != State.OPEN) {
            throw new IOException("The write of " + path + " is closed.");
        }
    }

    private IOException failed(Throwable e) {
        guard.failed();
        return annotated(e);
    }

    /**
     * The failure as an {@link IOException} that names the file — a local disk's "No space left on
     * device" does not. Hadoop's local file system reports a failed write as {@code FSError}, an
     * {@link Error} that would pass every cleanup that catches exceptions.
     */
    private IOException annotated(Throwable e) {
        if (e instanceof RuntimeException runtime) {
            throw runtime;
        }
        Throwable cause = e instanceof FSError && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof Error error) {
            throw error;
        }
        String message = cause.getMessage();
        if (cause instanceof java.nio.file.FileSystemException io) {
            // names its file already; callers look for FileAlreadyExistsException by type
            return io;
        }
        if (cause instanceof IOException io && message != null && message.contains(path)) {
            return io;
        }
        return new IOException("Writing " + path + " failed: " + message, cause);
    }

    @Override
    public String toString() {
        return path;
    }
}
