package io.deltalite.flink.internal.merge;

import java.util.List;
import java.util.Objects;

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
     * @param owner who wrote the files: {@code w<subtask>} for a writer subtask, {@code c<id>} for
     *     a committer's re-merge
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

    /** Owners of writer entries are {@code w<subtask>}. */
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
     * A lineage that has notes in the journal.
     *
     * @param appId the app id as the journal names it (a {@code /} in it is noted as {@code _})
     * @param newestNoteMillis when the newest of its notes was written, in epoch milliseconds
     */
    record Lineage(String appId, long newestNoteMillis) {
        public Lineage {
            Objects.requireNonNull(appId, "appId");
        }
    }

    /** Every lineage with at least one note, in app id order. */
    List<Lineage> lineages();

    /**
     * Removes what is left of a lineage once its entries are removed: temporary files of notes that
     * a crash left unpublished, and the lineage's folder. Nothing is removed while it holds an
     * entry.
     */
    void removeLineage(String appId);
}
