package io.deltalite.flink.testing;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.table.CommitOutcomeUnknownException;
import io.deltalite.flink.internal.merge.table.ConcurrentCommitException;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.TableCommit;
import io.deltalite.flink.internal.merge.table.TableSnapshot;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import java.util.List;
import java.util.Map;

/**
 * Another writer that compacts one partition, as {@code OPTIMIZE} would: it rewrites every live
 * file of the partition into new files with the same rows and commits the swap, or gives up (and
 * deletes what it wrote) when another commit got there first.
 */
public final class TableCompactor {
    private TableCompactor() {}

    /**
     * @return whether the compaction was committed
     */
    public static boolean compact(
            String location, TableDefinition definition, PartitionValues partition) {
        DeltaTable table =
                DeltaTable.open(location, Map.of(), MergeOptions.DEFAULTS, definition, false);
        TableSnapshot snapshot = table.latestSnapshot();
        List<DataFile> live = snapshot.liveFiles(List.of(partition)).get(partition);
        if (live.size() < 2) {
            return false;
        }
        DataFileStore store = table.files();
        List<DataFile> written = store.write(partition, new FileRows(store, live));
        try {
            snapshot.commit(
                    new TableCommit(
                            "compactor",
                            snapshot.version(),
                            Map.of(partition, live),
                            Map.of(partition, written)));
            return true;
        } catch (ConcurrentCommitException e) {
            written.forEach(store::deleteUncommitted);
            return false;
        } catch (CommitOutcomeUnknownException e) {
            return false; // it may have landed: its files stay
        }
    }
}
