package io.deltalite.flink.internal.merge;

import java.util.List;

/**
 * Where writers note, when a checkpoint is taken, the data files its results add — so that if that
 * checkpoint never completes (the job fails first), the files can be found and deleted after the
 * restore. Entries are tiny and removed once their checkpoint is committed.
 */
public interface AttemptJournal {

    /** One writer subtask's files of one checkpoint. */
    record Entry(String appId, long checkpointId, int subtask, List<String> files) {
        public Entry {
            files = List.copyOf(files);
        }
    }

    void record(Entry entry);

    /** The entries noted under {@code appId}, in checkpoint order. */
    List<Entry> entries(String appId);

    void remove(Entry entry);
}
