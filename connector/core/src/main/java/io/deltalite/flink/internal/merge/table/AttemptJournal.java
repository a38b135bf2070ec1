package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.journal.FileReclaimer;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the files of a checkpoint are noted before the checkpoint can become committable, so that
 * whatever happens next — the checkpoint never completes, a re-merge replaces them, the process
 * dies — they can be found and their fate decided from the Delta log (see {@link FileReclaimer}).
 * Entries are tiny and removed once their checkpoint is resolved.
 */
public interface AttemptJournal {

    /**
     * The files one owner wrote for one checkpoint.
     *
     * @param appId the transaction application id the checkpoint is committed under
     * @param checkpointId the transaction version
     * @param owner who wrote the files: {@code w<subtask>-<nonce>} for a start of a writer subtask
     *     ({@code w<subtask>} before the nonce), {@code u<subtask>-<nonce>} for its files no
     *     checkpoint took yet, {@code c<id>} for a committer's re-merge
     * @param notCommittedAt a table version at which the checkpoint was not committed yet (the
     *     commit, if any, comes later), or -1 when unknown
     * @param files fully qualified paths of data files and staged key files
     */
    record Entry(
            String appId,
            long checkpointId,
            String owner,
            long notCommittedAt,
            List<String> files) {
        public Entry {
            Objects.requireNonNull(appId, "appId");
            Objects.requireNonNull(owner, "owner");
            files = List.copyOf(files);
        }

        /** The entry's name without its files, to remove it. */
        public Entry withoutFiles() {
            return new Entry(appId, checkpointId, owner, notCommittedAt, List.of());
        }

        public boolean isCommitters() {
            return owner.startsWith(COMMITTER_PREFIX);
        }
    }

    /** Owners of writer entries start with {@code w<subtask>}. */
    String WRITER_PREFIX = "w";

    /** Owners of committer entries are {@code c<id>}. */
    String COMMITTER_PREFIX = "c";

    static String writer(int subtask) {
        return WRITER_PREFIX + subtask;
    }

    /** Notes the entry, replacing an earlier one of the same app id, checkpoint and owner. */
    void record(Entry entry);

    /** The entries noted under {@code appId}, in checkpoint order. */
    List<Entry> entries(String appId);

    /**
     * The entries noted under {@code appId} whose note was last written before {@code cutoffMillis}
     * (epoch milliseconds): what a maintenance pass may judge, never a note a live writer wrote
     * while the pass ran.
     */
    List<Entry> entriesNotedBefore(String appId, long cutoffMillis);

    void remove(Entry entry);

    /**
     * A lineage that has notes or a heartbeat in the journal.
     *
     * @param appId the app id as the journal names it (a {@code /} in it is noted as {@code _})
     * @param newestNoteMillis when the newest of its notes was written, in epoch milliseconds; -1
     *     when it has none
     * @param heartbeat its newest heartbeat, if a running job of it ever wrote one
     */
    record Lineage(String appId, long newestNoteMillis, Optional<Heartbeat> heartbeat) {
        public Lineage {
            Objects.requireNonNull(appId, "appId");
            Objects.requireNonNull(heartbeat, "heartbeat");
        }

        /** A lineage without a heartbeat (a job of a version that wrote none, or a tool's). */
        public Lineage(String appId, long newestNoteMillis) {
            this(appId, newestNoteMillis, Optional.empty());
        }

        public boolean hasNotes() {
            return newestNoteMillis >= 0;
        }
    }

    /**
     * The newest heartbeat of a lineage: a running job refreshes it every {@code interval}, so a
     * heartbeat much older than that is one a job that stopped left.
     *
     * @param writtenMillis when the storage last wrote it, in epoch milliseconds (the storage's
     *     clock, as for notes)
     * @param interval how often the job that wrote it refreshes it; {@link #UNKNOWN_INTERVAL} when
     *     the heartbeat cannot be read
     */
    record Heartbeat(long writtenMillis, Duration interval) {
        /** The interval of a heartbeat whose content cannot be read. */
        public static final Duration UNKNOWN_INTERVAL = ChronoUnit.FOREVER.getDuration();

        public Heartbeat {
            Objects.requireNonNull(interval, "interval");
        }
    }

    /**
     * Writes or refreshes the heartbeat of {@code owner} (a writer subtask or the committer) in the
     * lineage of {@code appId}: proof for a maintenance pass that a job of the lineage is running,
     * also when it has no input and so writes no notes and no commits.
     *
     * @param interval how often the owner refreshes it
     */
    void beat(String appId, String owner, Duration interval);

    /**
     * Removes the heartbeats of {@code appId} written before {@code writtenBeforeMillis} (epoch
     * milliseconds): {@code Long.MAX_VALUE} once the lineage ended; a maintenance pass only those
     * older than its retention, never one a job wrote while the pass ran.
     */
    void removeHeartbeats(String appId, long writtenBeforeMillis);

    /** Every lineage with at least one note or a heartbeat, in app id order. */
    List<Lineage> lineages();

    /**
     * Removes what is left of a lineage once its entries are removed: temporary files of notes that
     * a crash left unpublished, and the lineage's folder. Nothing is removed while it holds an
     * entry or a heartbeat.
     */
    void removeLineage(String appId);
}
