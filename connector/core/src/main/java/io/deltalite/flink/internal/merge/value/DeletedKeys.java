package io.deltalite.flink.internal.merge.value;

import java.util.ArrayList;
import java.util.List;

/**
 * The keys a checkpoint deleted in one partition, as a re-merge needs them: a few inline, the rest
 * in staged files. Either way the state that carries them stays small.
 *
 * @param inline keys held in the value itself
 * @param staged files holding the other keys
 */
public record DeletedKeys(List<RowKey> inline, List<StagedKeys> staged) {
    /** Up to this many keys of a merge travel inline; more are staged in a file. */
    public static final int INLINE_LIMIT = 256;

    public static final DeletedKeys NONE = new DeletedKeys(List.of(), List.of());

    public DeletedKeys {
        inline = List.copyOf(inline);
        staged = List.copyOf(staged);
    }

    public static DeletedKeys inline(List<RowKey> keys) {
        return new DeletedKeys(keys, List.of());
    }

    public static DeletedKeys staged(StagedKeys file) {
        return new DeletedKeys(List.of(), List.of(file));
    }

    /** How many keys, counting a key deleted by two merges twice. */
    public long count() {
        long count = inline.size();
        for (StagedKeys file : staged) {
            count += file.count();
        }
        return count;
    }

    public boolean isEmpty() {
        return inline.isEmpty() && staged.isEmpty();
    }

    /** These keys and {@code later}'s. A key in both is listed twice, which deletes it once. */
    public DeletedKeys plus(DeletedKeys later) {
        if (later.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return later;
        }
        List<RowKey> keys = new ArrayList<>(inline);
        List<StagedKeys> files = new ArrayList<>(staged);
        keys.addAll(later.inline);
        files.addAll(later.staged);
        return new DeletedKeys(keys, files);
    }

    /** The paths of the staged files. */
    public List<String> stagedPaths() {
        List<String> paths = new ArrayList<>(staged.size());
        staged.forEach(file -> paths.add(file.path()));
        return paths;
    }
}
