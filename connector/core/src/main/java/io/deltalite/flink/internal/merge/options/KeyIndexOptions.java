package io.deltalite.flink.internal.merge.options;

import io.deltalite.flink.internal.merge.index.KeyIndex;
import io.deltalite.flink.sink.KeyIndexMode;
import java.io.Serializable;
import java.util.Objects;

/**
 * How writers keep their {@link KeyIndex}.
 *
 * @param mode off, on, or from a partition's second merge on
 * @param maxMemoryBytes the heap one writer's index may take; past it, the least recently merged
 *     partitions are dropped, and a partition too large alone is probed instead
 * @param validate whether every merge also runs the exact probe and fails on any difference (a
 *     check for tests and for doubt, at the cost of the probe)
 */
public record KeyIndexOptions(KeyIndexMode mode, long maxMemoryBytes, boolean validate)
        implements Serializable {
    public static final long DEFAULT_MAX_MEMORY = 512L << 20;

    public static final KeyIndexOptions DEFAULTS =
            new KeyIndexOptions(KeyIndexMode.AUTO, DEFAULT_MAX_MEMORY, false);

    public KeyIndexOptions {
        Objects.requireNonNull(mode, "mode");
        if (maxMemoryBytes <= 0) {
            throw new IllegalArgumentException(
                    "key-index.max-memory must be positive, but is " + maxMemoryBytes);
        }
    }

    public boolean isOn() {
        return mode != KeyIndexMode.OFF;
    }

    public KeyIndexOptions withMode(KeyIndexMode value) {
        return new KeyIndexOptions(value, maxMemoryBytes, validate);
    }

    public KeyIndexOptions withValidate(boolean value) {
        return new KeyIndexOptions(mode, maxMemoryBytes, value);
    }
}
