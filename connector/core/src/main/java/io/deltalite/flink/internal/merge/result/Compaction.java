package io.deltalite.flink.internal.merge.result;

import io.deltalite.flink.internal.merge.value.DataFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Files of a partition rewritten into fewer, larger ones without changing a row: the live rows of
 * {@code inputs} are exactly the rows of {@code outputs}. It is committed with {@code dataChange =
 * false}, so change-data and streaming readers of the table skip it.
 *
 * <p>Its one rule: a compaction is valid only while every input is live with the same identity (the
 * same deletion vector) — otherwise its outputs would bring back rows that were deleted or updated
 * since. The committer drops a compaction whose inputs changed, and drops the compaction of every
 * result it merges again; nothing else checks it.
 *
 * @param inputs committed files read and removed
 * @param outputs new files holding the live rows of the inputs
 * @param bytesRead the bytes of the inputs
 */
public record Compaction(List<DataFile> inputs, List<DataFile> outputs, long bytesRead) {
    public static final Compaction NONE = new Compaction(List.of(), List.of(), 0);

    public Compaction {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
    }

    public boolean isEmpty() {
        return inputs.isEmpty() && outputs.isEmpty();
    }

    /** Both compactions, of the same partition and disjoint inputs. */
    public Compaction plus(Compaction other) {
        if (isEmpty()) {
            return other;
        }
        if (other.isEmpty()) {
            return this;
        }
        List<DataFile> in = new ArrayList<>(inputs);
        in.addAll(other.inputs);
        List<DataFile> out = new ArrayList<>(outputs);
        out.addAll(other.outputs);
        return new Compaction(in, out, bytesRead + other.bytesRead);
    }

    /** Whether every input is among {@code liveFiles} exactly as it was read. */
    public boolean isValidOn(List<DataFile> liveFiles) {
        if (inputs.isEmpty()) {
            return true;
        }
        Map<String, String> live = new HashMap<>();
        liveFiles.forEach(file -> live.put(file.path(), file.identity()));
        for (DataFile input : inputs) {
            if (!input.identity().equals(live.get(input.path()))) {
                return false;
            }
        }
        return true;
    }

    public long outputBytes() {
        long total = 0;
        for (DataFile file : outputs) {
            total += file.sizeBytes();
        }
        return total;
    }
}
