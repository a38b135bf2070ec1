/**
 * The commit protocol: {@link io.deltalite.flink.internal.merge.commit.CheckpointCommitter} lands
 * the results of one checkpoint as one Delta version, exactly once, merging again what a concurrent
 * commit made stale; {@link io.deltalite.flink.internal.merge.commit.CommitOutcome} says how it
 * ended. The committer's rules are listed in its javadoc.
 *
 * <p>It may use {@code merge.rewrite}, {@code merge.journal}, {@code merge.result}, {@code
 * merge.options} and the rooms below them; not {@code merge.writer}.
 */
package io.deltalite.flink.internal.merge.commit;
