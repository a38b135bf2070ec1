/**
 * Keeping track of every file deltalite writes until its fate is known: a writer's notes in the
 * attempt journal, the sweep that resolves the notes nobody else will, and {@link
 * io.deltalite.flink.internal.merge.journal.FileReclaimer}, through which every deletion of a file
 * that left its writer goes.
 *
 * <p>It may use {@code merge.result}, {@code merge.table}, {@code merge.value} and {@code
 * merge.schema}.
 */
package io.deltalite.flink.internal.merge.journal;
