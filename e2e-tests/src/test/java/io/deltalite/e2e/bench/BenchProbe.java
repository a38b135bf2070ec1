package io.deltalite.e2e.bench;

import io.deltalite.flink.internal.delta.table.DeltaTable;
import io.deltalite.flink.internal.merge.commit.CommitOutcome;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.table.DataFileStore;
import io.deltalite.flink.internal.merge.table.RowBatch;
import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.PartitionValues;
import io.deltalite.flink.sink.UpsertStats;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.FileRows;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One measured run, in a JVM of its own: the operation's wall time, the peak heap in use (sampled
 * every 2 ms after a forced GC) and the process's peak resident set (VmHWM). Prints one line {@code
 * RESULT key=value ...} for the parent to collect.
 *
 * <pre>
 *   BenchProbe deltalite TABLE KEYS TABLE_ROWS CORRECTIONS INSERTS SEED LOCAL_START LOCAL_RANGE [WRITE_MODE]
 *   BenchProbe spark     (same arguments, no write mode)
 *   BenchProbe commits   TABLE TABLE_ROWS COMMITS CORRECTIONS SEED WRITE_MODE
 *                                                  COMMITS checkpoints of scattered corrections,
 *                                                  one after the other in this JVM
 *   BenchProbe floor     TABLE FILE_NAME...        read and rewrite exactly these files, in as many
 *                                                  lanes as a merge uses
 *   BenchProbe scan      TABLE                     read every row of the table (Kernel)
 *   BenchProbe spark-scan TABLE                    aggregate every column with Spark
 * </pre>
 */
public final class BenchProbe {
    private BenchProbe() {}

    public static void main(String[] args) throws Exception {
        String workload = args[0];
        String table = args[1];
        Map<String, Object> result = new LinkedHashMap<>();
        Runnable run;
        switch (workload) {
            case "deltalite", "spark" -> {
                BenchTable.Keys keys = BenchTable.Keys.valueOf(args[2]);
                List<Object[]> changes =
                        BenchTable.changes(
                                keys,
                                Long.parseLong(args[3]),
                                Integer.parseInt(args[4]),
                                Integer.parseInt(args[5]),
                                Long.parseLong(args[6]),
                                Long.parseLong(args[7]),
                                Long.parseLong(args[8]));
                if (workload.equals("spark")) {
                    SparkMerge merge = new SparkMerge(keys);
                    run = () -> merge.merge(table, changes);
                } else {
                    WriteMode mode = args.length > 9 ? WriteMode.parse(args[9]) : WriteMode.AUTO;
                    run = () -> deltaliteMerge(table, keys, changes, mode, result);
                }
            }
            case "commits" ->
                    run =
                            () ->
                                    commits(
                                            table,
                                            Long.parseLong(args[2]),
                                            Integer.parseInt(args[3]),
                                            Integer.parseInt(args[4]),
                                            Long.parseLong(args[5]),
                                            WriteMode.parse(args[6]),
                                            result);
            case "spark-scan" -> {
                // The session starts before the clock does, as the MERGE's does.
                SparkMerge.session();
                run = () -> result.put("rows", SparkMerge.scan(table));
            }
            case "floor" -> {
                Set<String> names = Set.copyOf(Arrays.asList(args).subList(2, args.length));
                run = () -> rewrite(table, names, result);
            }
            case "scan" -> run = () -> scan(table, result);
            default -> throw new IllegalArgumentException("unknown workload " + workload);
        }
        measure(run, result);
        StringBuilder line = new StringBuilder("RESULT workload=" + workload);
        result.forEach((key, value) -> line.append(' ').append(key).append('=').append(value));
        System.out.println(line);
        System.exit(0);
    }

    private static void measure(Runnable run, Map<String, Object> result) throws Exception {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        System.gc();
        Thread.sleep(200);
        AtomicLong peakHeap = new AtomicLong(memory.getHeapMemoryUsage().getUsed());
        Thread sampler =
                new Thread(
                        () -> {
                            while (!Thread.currentThread().isInterrupted()) {
                                peakHeap.accumulateAndGet(
                                        memory.getHeapMemoryUsage().getUsed(), Math::max);
                                try {
                                    Thread.sleep(2);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        });
        sampler.setDaemon(true);
        AtomicLong peakLive = new AtomicLong(memory.getHeapMemoryUsage().getUsed());
        List<Runnable> unsubscribe = listenToCollections(peakLive);
        sampler.start();
        long started = System.nanoTime();
        run.run();
        long millis = (System.nanoTime() - started) / 1_000_000;
        sampler.interrupt();
        sampler.join();
        unsubscribe.forEach(Runnable::run);
        result.put("millis", millis);
        result.put("peakHeapBytes", peakHeap.get());
        result.put("peakLiveHeapBytes", peakLive.get());
        result.put("peakRssBytes", procStatusBytes("VmHWM"));
    }

    /**
     * Tracks the heap still in use right after each garbage collection: the peak of those is close
     * to the most memory the run really needed at once, whatever garbage accumulated between
     * collections.
     */
    private static List<Runnable> listenToCollections(AtomicLong peakLive) {
        List<Runnable> unsubscribe = new ArrayList<>();
        for (java.lang.management.GarbageCollectorMXBean collector :
                ManagementFactory.getGarbageCollectorMXBeans()) {
            if (!(collector instanceof javax.management.NotificationEmitter emitter)) {
                continue;
            }
            javax.management.NotificationListener listener =
                    (notification, handback) -> {
                        if (!notification
                                .getType()
                                .equals(
                                        com.sun.management.GarbageCollectionNotificationInfo
                                                .GARBAGE_COLLECTION_NOTIFICATION)) {
                            return;
                        }
                        com.sun.management.GarbageCollectionNotificationInfo info =
                                com.sun.management.GarbageCollectionNotificationInfo.from(
                                        (javax.management.openmbean.CompositeData)
                                                notification.getUserData());
                        long used = 0;
                        for (java.lang.management.MemoryUsage pool :
                                info.getGcInfo().getMemoryUsageAfterGc().values()) {
                            used += pool.getUsed();
                        }
                        // Non-heap pools (metaspace, code cache) are in that map too; they are
                        // small and constant during a run.
                        peakLive.accumulateAndGet(used, Math::max);
                    };
            emitter.addNotificationListener(listener, null, null);
            unsubscribe.add(
                    () -> {
                        try {
                            emitter.removeNotificationListener(listener);
                        } catch (javax.management.ListenerNotFoundException e) {
                            // Already gone.
                        }
                    });
        }
        return unsubscribe;
    }

    /** A memory figure of this process from /proc/self/status, in bytes (-1 off Linux). */
    private static long procStatusBytes(String field) throws IOException {
        Path status = Paths.get("/proc/self/status");
        if (!Files.exists(status)) {
            return -1;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return -1;
    }

    /**
     * The sink's defaults in {@code mode}, except that no file is small to compaction: in
     * deletion-vector mode every touched file is marked (as section 7 was measured), however small
     * the smoke run's files are.
     */
    private static MergeOptions mergeOptions(WriteMode mode) {
        io.deltalite.flink.internal.merge.options.CompactionOptions defaults =
                MergeOptions.DEFAULTS.compaction();
        return MergeOptions.DEFAULTS
                .withWriteMode(mode)
                .withCompaction(
                        new io.deltalite.flink.internal.merge.options.CompactionOptions(
                                true,
                                1,
                                defaults.maxBytesPerCheckpoint(),
                                defaults.deletedRowsThreshold()));
    }

    private static void deltaliteMerge(
            String table,
            BenchTable.Keys keys,
            List<Object[]> changes,
            WriteMode mode,
            Map<String, Object> result) {
        try (UpsertHarness deltalite =
                UpsertHarness.open(table, BenchTable.definition(keys), mergeOptions(mode))) {
            for (Object[] row : changes) {
                deltalite.upsert(row);
            }
            CommitOutcome outcome = deltalite.commit();
            UpsertStats stats = outcome.stats();
            result.put("deletionVectorsWritten", stats.deletionVectorsWritten());
            result.put("deletionVectorBytes", stats.deletionVectorBytes());
            result.put("filesProbed", stats.filesProbed());
            result.put("filesRemoved", stats.filesRemoved());
            result.put("filesAdded", stats.filesAdded());
            result.put("filesKept", stats.filesCarriedOver());
            result.put("bytesWritten", stats.bytesWritten());
            result.put("rowsCopied", stats.rowsCopied());
            result.put("rowsUpdated", stats.rowsUpdated());
            result.put("rowsInserted", stats.rowsInserted());
        }
    }

    /**
     * {@code commits} checkpoints of {@code corrections} corrections each, scattered over the
     * table, merged one after the other by one writer: the steady state of a stream of scattered
     * updates, in a warm JVM. Reports the wall time of each checkpoint after the first (which pays
     * for class loading and JIT) as {@code commitMillis.<n>}.
     */
    private static void commits(
            String table,
            long tableRows,
            int commits,
            int corrections,
            long seed,
            WriteMode mode,
            Map<String, Object> result) {
        long vectors = 0;
        long vectorBytes = 0;
        long bytesWritten = 0;
        try (UpsertHarness deltalite =
                UpsertHarness.open(
                        table,
                        BenchTable.definition(BenchTable.Keys.SEQUENTIAL),
                        mergeOptions(mode))) {
            for (int commit = 0; commit < commits; commit++) {
                long started = System.nanoTime();
                for (Object[] row :
                        BenchTable.changes(
                                BenchTable.Keys.SEQUENTIAL,
                                tableRows,
                                corrections,
                                0,
                                seed * 1_000_003L + commit,
                                0,
                                0)) {
                    deltalite.upsert(row);
                }
                UpsertStats stats = deltalite.commit().stats();
                if (commit > 0) {
                    result.put("commitMillis." + commit, (System.nanoTime() - started) / 1_000_000);
                }
                vectors += stats.deletionVectorsWritten();
                vectorBytes += stats.deletionVectorBytes();
                bytesWritten += stats.bytesWritten();
            }
        }
        result.put("deletionVectorsWritten", vectors);
        result.put("deletionVectorBytes", vectorBytes);
        result.put("bytesWritten", bytesWritten);
    }

    /** The floor: read the named files batch by batch and write every row again. */
    private static void rewrite(String table, Set<String> names, Map<String, Object> result) {
        DeltaTable delta =
                DeltaTable.open(
                        table,
                        Map.of(),
                        MergeOptions.DEFAULTS,
                        BenchTable.definition(BenchTable.Keys.SEQUENTIAL),
                        false);
        List<DataFile> files = new ArrayList<>();
        for (DataFile file : liveFiles(delta)) {
            if (names.contains(file.name())) {
                files.add(file);
            }
        }
        if (files.size() != names.size()) {
            throw new IllegalStateException(
                    "found " + files.size() + " of " + names.size() + " files");
        }
        DataFileStore store = delta.files();
        // As many lanes as a merge uses (max-parallel-files), each reading its files in turn and
        // writing its own output: the merge's I/O without the merge.
        int lanes = Math.min(MergeOptions.DEFAULTS.maxParallelFiles(), files.size());
        List<List<DataFile>> groups = new ArrayList<>();
        for (int i = 0; i < lanes; i++) {
            groups.add(new ArrayList<>());
        }
        for (int i = 0; i < files.size(); i++) {
            groups.get(i % lanes).add(files.get(i));
        }
        List<DataFile> written = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (List<DataFile> group : groups) {
            Thread lane =
                    new Thread(
                            () ->
                                    written.addAll(
                                            store.write(
                                                    PartitionValues.UNPARTITIONED,
                                                    new FileRows(store, group))));
            lane.start();
            threads.add(lane);
        }
        for (Thread lane : threads) {
            try {
                lane.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        long bytes = 0;
        for (DataFile file : written) {
            bytes += file.sizeBytes();
            store.deleteUncommitted(file);
        }
        result.put("filesRead", files.size());
        result.put("bytesWritten", bytes);
    }

    private static void scan(String table, Map<String, Object> result) {
        DeltaTable delta =
                DeltaTable.open(table, Map.of(), MergeOptions.DEFAULTS, definitionOf(table), false);
        long rows = 0;
        try (FileRows all = new FileRows(delta.files(), liveFiles(delta))) {
            while (all.hasNext()) {
                RowBatch batch = all.next();
                for (int row = 0; row < batch.size(); row++) {
                    if (batch.isLive(row)) {
                        rows++;
                    }
                }
            }
        }
        result.put("rows", rows);
    }

    private static io.deltalite.flink.internal.merge.schema.TableDefinition definitionOf(
            String table) {
        return DeltaTable.existingSchema(
                        table,
                        io.deltalite.flink.internal.storage.StorageSettings.of(Map.of()),
                        BenchTable.definition(BenchTable.Keys.SEQUENTIAL))
                .map(
                        schema ->
                                BenchTable.definition(
                                        schema.column("id").type()
                                                                instanceof
                                                                io.deltalite.flink.internal.merge
                                                                                .schema.ValueType
                                                                                .Primitive
                                                                        p
                                                        && p.kind()
                                                                == io.deltalite.flink.internal.merge
                                                                        .schema.ValueType.Kind
                                                                        .STRING
                                                ? BenchTable.Keys.UUID
                                                : BenchTable.Keys.SEQUENTIAL))
                .orElseThrow();
    }

    private static List<DataFile> liveFiles(DeltaTable delta) {
        return delta.latestSnapshot()
                .liveFiles(List.of(PartitionValues.UNPARTITIONED))
                .get(PartitionValues.UNPARTITIONED);
    }
}
