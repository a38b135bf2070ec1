package io.deltalite.flink.internal.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.Row;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SingleAction;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every use of Delta Kernel's internal API, in one place, so that a Kernel upgrade breaks here and
 * nowhere else. Kernel 4.4 has no public API to remove a file or to read the protocol's table
 * features; both are needed by a writer that rewrites files.
 */
final class KernelInternals {
    private KernelInternals() {}

    /**
     * The remove action for the file described by {@code addFile} (the {@code add} struct of a
     * scan-file row): same path, partition values, size, statistics and deletion vector, with
     * {@code dataChange = true} and the given deletion time.
     */
    static Row removeAction(Row addFile, long deletionTimestampMillis) {
        Row remove =
                new AddFile(addFile).toRemoveFileRow(true, Optional.of(deletionTimestampMillis));
        return SingleAction.createRemoveFileSingleAction(remove);
    }

    /**
     * Checks Delta table properties as Kernel does when it creates a table: an unknown {@code
     * delta.*} key or an invalid value throws Kernel's exception, which names the property.
     */
    static void validateTableProperties(java.util.Map<String, String> properties) {
        io.delta.kernel.internal.TableConfig.validateAndNormalizeDeltaProperties(properties);
    }

    /** The reader and writer table features the table's protocol lists, in order. */
    static Set<String> tableFeatures(Snapshot snapshot) {
        Set<String> features = new TreeSet<>(snapshot.getProtocol().getWriterFeatures());
        features.addAll(snapshot.getProtocol().getReaderFeatures());
        return features;
    }
}
