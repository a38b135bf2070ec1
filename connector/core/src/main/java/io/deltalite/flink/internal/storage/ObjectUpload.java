package io.deltalite.flink.internal.storage;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.fs.Abortable;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An S3 object being written. Nothing is visible until {@link #close()} publishes it (one PUT, or
 * the completion of a multipart upload once it outgrows {@code fs.s3a.multipart.size}). An upload
 * that will not be finished must be {@linkplain #abortIfOpen() aborted}: that cancels its multipart
 * upload, whose parts S3 would otherwise keep — and bill — indefinitely.
 *
 * <p>S3A aborts the multipart upload itself when publishing fails in {@code close()}; only a stream
 * that is never closed needs {@link #abortIfOpen()}.
 */
public final class ObjectUpload extends OutputStream {
    private static final Logger LOG = LoggerFactory.getLogger(ObjectUpload.class);

    private final String path;
    private final FSDataOutputStream out;
    private volatile boolean finished;

    ObjectUpload(String path, FSDataOutputStream out) {
        this.path = path;
        this.out = out;
    }

    /** Bytes written so far. */
    public long position() {
        return out.getPos();
    }

    @Override
    public void write(int b) throws IOException {
        out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    /** Publishes the object. */
    @Override
    public void close() throws IOException {
        finished = true;
        out.close();
    }

    /**
     * Cancels the upload if it was neither closed nor aborted: the object is not created and no
     * multipart upload is left behind. True if there was something to abort.
     */
    public boolean abortIfOpen() {
        if (finished) {
            return false;
        }
        finished = true;
        try {
            Abortable.AbortableResult result = out.abort();
            if (result.anyCleanupException() != null) {
                LOG.warn(
                        "Aborting the upload of {} failed; its parts may remain until the"
                                + " bucket's lifecycle rule for incomplete multipart uploads"
                                + " removes them: {}",
                        path,
                        result.anyCleanupException().toString());
            }
            return !result.alreadyClosed();
        } catch (UnsupportedOperationException notAbortable) {
            closeQuietly();
            return true;
        }
    }

    private void closeQuietly() {
        try {
            out.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("Closing the abandoned output of {} failed: {}", path, e.toString());
        }
    }

    @Override
    public String toString() {
        return "ObjectUpload{" + path + (finished ? ", finished" : ", open") + "}";
    }
}
