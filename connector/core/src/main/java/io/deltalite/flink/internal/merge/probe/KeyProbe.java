package io.deltalite.flink.internal.merge.probe;

import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.KeyMatcher;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The exact test of whether a file holds one of a set of keys: it decodes only the match-key
 * columns of the file and stops at the first hit. Rows deleted by a deletion vector and rows with a
 * null key never count.
 */
public final class KeyProbe {
    private final DataFileStore store;
    private final ParallelFileWork parallel;

    public KeyProbe(DataFileStore store, ParallelFileWork parallel) {
        this.store = store;
        this.parallel = parallel;
    }

    /** The files among {@code candidates} that hold at least one of {@code keys}. */
    public List<DataFile> filesHoldingAny(List<DataFile> candidates, KeyMatcher keys) {
        List<Callable<Boolean>> probes = new ArrayList<>(candidates.size());
        for (DataFile file : candidates) {
            probes.add(() -> holdsAny(file, keys));
        }
        List<Boolean> hits = parallel.runAll(probes, unused -> {});
        List<DataFile> matched = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            if (hits.get(i)) {
                matched.add(candidates.get(i));
            }
        }
        return matched;
    }

    /** Which of {@code keys} the files among {@code candidates} hold. */
    public Set<RowKey> keysHeldBy(List<DataFile> candidates, KeyMatcher keys) {
        List<Callable<Set<RowKey>>> probes = new ArrayList<>(candidates.size());
        for (DataFile file : candidates) {
            probes.add(() -> store.locateKeys(file, keys.changed(), false).foundKeys());
        }
        Set<RowKey> held = new HashSet<>();
        parallel.runAll(probes, unused -> {}).forEach(held::addAll);
        return held;
    }

    boolean holdsAny(DataFile file, KeyMatcher keys) {
        return !store.locateKeys(file, keys.changed(), true).isEmpty();
    }
}
