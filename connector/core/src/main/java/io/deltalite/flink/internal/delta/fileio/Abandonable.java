package io.deltalite.flink.internal.delta.fileio;

/** A file being written that can be dropped unpublished, for a writer that will never finish it. */
interface Abandonable {
    /**
     * Drops the file if it was neither published nor dropped, and frees what holds it (an open
     * descriptor, an unfinished upload). True if there was something to drop.
     */
    boolean abandonIfOpen();
}
