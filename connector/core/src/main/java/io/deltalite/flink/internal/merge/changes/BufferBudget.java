package io.deltalite.flink.internal.merge.changes;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many bytes a writer's change buffer may hold before its largest partitions are merged early
 * ({@code max-buffered-bytes}).
 *
 * <p>Set explicitly, the budget is that many bytes per writer. Left at its default ({@link #AUTO}),
 * the writers of one JVM (a TaskManager's slots, every job in it) share an eighth of its heap, each
 * taking an equal part of it while it is open — at most {@value #MAX_AUTO_BYTES} bytes and at least
 * {@value #MIN_AUTO_BYTES}. A writer that buffers more merges more of a checkpoint at once: fewer
 * early merges, so fewer small files to fold later (on the 5 M-row CDC benchmark a budget of 256
 * MiB instead of 64 MiB took deletion-vector ingest from 58 k to 87 k records/s); a small heap gets
 * a small buffer instead of one fixed size that could exhaust it. The key index has its own eighth
 * ({@code KeyIndex}).
 *
 * <p>The count lives in this class, so it spans the writers that load it from one class loader: all
 * jobs of a TaskManager when the connector is in its {@code lib/}, but only one job's writers when
 * each job bundles the connector in its own jar (Flink loads job jars child-first). Then every job
 * counts itself alone and the jobs together may take more than an eighth; such deployments with
 * several jobs per TaskManager should set {@code max-buffered-bytes}.
 */
public final class BufferBudget implements AutoCloseable {
    /** The configured value that asks for the automatic budget. */
    public static final long AUTO = MergeOptions.AUTO_BUFFERED_BYTES;

    static final long MAX_AUTO_BYTES = 256L << 20;
    static final long MIN_AUTO_BYTES = 4L << 20;

    /**
     * The largest row a writer with an automatic budget takes: the fixed default budget before it
     * was automatic. Not the writer's share, which depends on what else runs in the JVM: a row must
     * not be taken or refused by how many other jobs share the TaskManager.
     */
    static final long MAX_AUTO_ROW_BYTES = 64L << 20;

    /** The writers of this JVM with an automatic budget that are open. */
    private static final AtomicInteger OPEN_AUTO = new AtomicInteger();

    private static final long JVM_SHARE = Runtime.getRuntime().maxMemory() / 8;

    private final long configured;
    private boolean closed;

    private BufferBudget(long configured) {
        this.configured = configured;
    }

    /**
     * The budget of one writer from the configured value ({@link #AUTO} or bytes); an automatic one
     * counts as one of the JVM's writers until {@link #close()}.
     */
    public static BufferBudget forWriter(long configured) {
        if (configured < 0) {
            throw new IllegalArgumentException(
                    "max-buffered-bytes must be positive (or unset), but is " + configured);
        }
        if (configured == AUTO) {
            OPEN_AUTO.incrementAndGet();
        }
        return new BufferBudget(configured);
    }

    /** The budget now: the configured bytes, or this writer's part of the JVM's share. */
    public long bytes() {
        return configured != AUTO ? configured : automatic(OPEN_AUTO.get());
    }

    /**
     * The largest row this writer's buffer takes: the configured bytes, or {@value
     * #MAX_AUTO_ROW_BYTES} with an automatic budget. A row larger than the share is taken and
     * merged at once with the rest of its partition.
     */
    public long largestRowBytes() {
        return configured != AUTO ? configured : MAX_AUTO_ROW_BYTES;
    }

    /** Whether the budget is automatic (a share of the JVM's) rather than configured. */
    public boolean automatic() {
        return configured == AUTO;
    }

    /**
     * The budget for work that is not a writer's buffer but is sized like it (the committer's
     * re-merges read the changed keys of a checkpoint in chunks of it): the configured bytes, or
     * what one more writer of this JVM would get.
     */
    public static long current(long configured) {
        return configured != AUTO ? configured : automatic(OPEN_AUTO.get() + 1);
    }

    /** The writers of this JVM (of this class loader) that hold an automatic budget now. */
    public static int openAutomaticWriters() {
        return OPEN_AUTO.get();
    }

    static long automatic(int writers) {
        long share = JVM_SHARE / Math.max(1, writers);
        return Math.max(MIN_AUTO_BYTES, Math.min(MAX_AUTO_BYTES, share));
    }

    /** Gives this writer's part back to the others. Idempotent. */
    @Override
    public synchronized void close() {
        if (!closed && configured == AUTO) {
            OPEN_AUTO.decrementAndGet();
        }
        closed = true;
    }

    @Override
    public String toString() {
        return configured == AUTO ? "automatic (" + bytes() + " bytes now)" : configured + " bytes";
    }
}
