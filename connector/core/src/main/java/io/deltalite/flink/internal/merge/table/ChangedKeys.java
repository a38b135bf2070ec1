package io.deltalite.flink.internal.merge.table;

import io.deltalite.flink.internal.merge.value.RowKey;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The changed keys of one merge, as a storage layer probes files for them: numbered (a reader can
 * report a hit by the key's index), matched row by row through {@link KeyMatcher}, and with room
 * for the forms a reader prepares once and reuses for every file of the same layout (hash tables of
 * the keys' values as the files store them).
 */
public final class ChangedKeys {
    private final KeyMatcher matcher;
    private final List<RowKey> keys;
    private final Map<Object, Object> prepared = new ConcurrentHashMap<>();

    ChangedKeys(KeyMatcher matcher, Set<RowKey> keys) {
        this.matcher = matcher;
        this.keys = List.copyOf(keys);
    }

    /** A set of keys to probe for (for tests and benchmarks; merges get theirs from a matcher). */
    public static ChangedKeys of(Set<RowKey> keys) {
        return KeyMatcher.of(keys).changed();
    }

    /** How many keys there are; indexes run from 0 to {@code size() - 1}. */
    public int size() {
        return keys.size();
    }

    /** The key with {@code index}. */
    public RowKey get(int index) {
        return keys.get(index);
    }

    /** The keys in index order. */
    public List<RowKey> keys() {
        return keys;
    }

    KeyMatcher matcher() {
        return matcher;
    }

    /**
     * The form of these keys that {@code build} makes for {@code layout}, built once (the first
     * caller builds it, concurrent callers for the same layout wait) and kept as long as these
     * keys.
     *
     * @param layout what the form depends on besides the keys; must implement equals and hashCode
     */
    @SuppressWarnings("unchecked")
    public <T> T prepared(Object layout, Function<ChangedKeys, T> build) {
        return (T) prepared.computeIfAbsent(layout, unused -> build.apply(this));
    }

    @Override
    public String toString() {
        return "ChangedKeys[" + keys.size() + "]";
    }
}
