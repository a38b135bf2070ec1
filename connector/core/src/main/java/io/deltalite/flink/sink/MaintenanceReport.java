package io.deltalite.flink.sink;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What a maintenance pass over a Delta table found in the sink's journal ({@code _deltalite/}) and
 * removed: per lineage — the checkpoints one job prepared under one app id — whether it is live or
 * dead, and what of it was removed. In a dry run nothing is removed and the counts say what would
 * have been.
 *
 * @param location the table
 * @param tableVersion the table version whose log the pass decided from
 * @param retention a lineage with a note, a heartbeat or a commit younger than this is live: the
 *     retention the pass was given, or the table's {@code delta.deletedFileRetentionDuration} when
 *     that is longer
 * @param dryRun whether the pass only reported
 * @param lineages every lineage with notes or a heartbeat in the journal, in app id order
 */
public record MaintenanceReport(
        String location,
        long tableVersion,
        Duration retention,
        boolean dryRun,
        List<Lineage> lineages) {

    public MaintenanceReport {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(retention, "retention");
        lineages = List.copyOf(lineages);
    }

    /** Whether a lineage may still commit. */
    public enum State {
        /**
         * A note, a heartbeat or a commit of it is younger than the retention: it stays untouched.
         */
        LIVE,
        /**
         * No note, no heartbeat and no commit of it is younger than the retention: its leftovers
         * go.
         */
        DEAD,
        /**
         * Its notes are old, the table records commits of it, and the log no longer reaches back to
         * the start of the retention period to tell when the last one was; or its heartbeat is old
         * but its job refreshes it too rarely for the retention to tell: it stays untouched.
         */
        UNDECIDED
    }

    /**
     * One lineage.
     *
     * @param appId its app id, as the journal names it (a {@code /} in it is noted as {@code _})
     * @param state whether it is live
     * @param reason why it is considered so
     * @param newestNote when its newest note was written; null when it has only a heartbeat
     * @param notes notes removed
     * @param dataFiles data and deletion vector files removed: written for it, referenced by no
     *     version
     * @param stagedKeyFiles staged key files removed
     * @param bytes bytes of the files removed
     * @param dataFilesKept data and deletion vector files its notes list that stay: a version added
     *     them, or the log no longer holds the versions that tell ({@code VACUUM} removes those
     *     once no version references them)
     */
    public record Lineage(
            String appId,
            State state,
            String reason,
            Instant newestNote,
            int notes,
            int dataFiles,
            int stagedKeyFiles,
            long bytes,
            int dataFilesKept) {
        public Lineage {
            Objects.requireNonNull(appId, "appId");
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(reason, "reason");
        }

        /** Files removed, of every kind (notes not counted). */
        public int files() {
            return dataFiles + stagedKeyFiles;
        }
    }

    /** The lineages found dead. */
    public List<Lineage> dead() {
        return lineages.stream().filter(lineage -> lineage.state() == State.DEAD).toList();
    }

    /** Notes removed, over all lineages. */
    public long notes() {
        return lineages.stream().mapToLong(Lineage::notes).sum();
    }

    /** Data, deletion vector and staged key files removed, over all lineages. */
    public long files() {
        return lineages.stream().mapToLong(Lineage::files).sum();
    }

    /** Bytes of the files removed, over all lineages. */
    public long bytes() {
        return lineages.stream().mapToLong(Lineage::bytes).sum();
    }

    /** The report as lines of text, one per lineage after a summary. */
    @Override
    public String toString() {
        StringBuilder text =
                new StringBuilder()
                        .append(dryRun ? "Dry run over " : "Maintenance of ")
                        .append(location)
                        .append(" at version ")
                        .append(tableVersion)
                        .append(", retention ")
                        .append(retention)
                        .append(": ")
                        .append(lineages.size())
                        .append(" lineage(s), ")
                        .append(dead().size())
                        .append(" dead; ")
                        .append(dryRun ? "would remove " : "removed ")
                        .append(notes())
                        .append(" note(s) and ")
                        .append(files())
                        .append(" file(s), ")
                        .append(bytes())
                        .append(" bytes.");
        for (Lineage lineage : lineages) {
            text.append('\n')
                    .append(lineage.appId())
                    .append(": ")
                    .append(lineage.state())
                    .append(" (")
                    .append(lineage.reason())
                    .append(")");
            if (lineage.state() == State.DEAD) {
                text.append("; ")
                        .append(lineage.notes())
                        .append(" note(s), ")
                        .append(lineage.dataFiles())
                        .append(" data file(s), ")
                        .append(lineage.stagedKeyFiles())
                        .append(" staged key file(s), ")
                        .append(lineage.bytes())
                        .append(" bytes");
                if (lineage.dataFilesKept() > 0) {
                    text.append("; ")
                            .append(lineage.dataFilesKept())
                            .append(" data file(s) kept (referenced, or left to VACUUM)");
                }
            }
        }
        return text.toString();
    }
}
