package io.deltalite.e2e.bench;

import io.deltalite.e2e.bench.BenchTable.Keys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;

/**
 * Runs the benchmark scenarios of BENCHMARKS.md: every measured run in a fresh JVM on a fresh copy
 * of its table, runs of competing systems alternating, each repeated; prints markdown.
 */
final class BenchmarkRunner {
    private final Path work;
    private final int repetitions;
    private final double scale;
    private final StringBuilder report = new StringBuilder();
    private boolean findSmallestHeap = true;

    BenchmarkRunner(Path work, int repetitions, double scale) {
        this.work = work;
        this.repetitions = repetitions;
        this.scale = scale;
    }

    /** After how many deletion-vector checkpoints section 7 scans the table; 0 is the clean one. */
    private int[] vectorCommitLevels = {0, 1, 10, 100};

    /** Checkpoints in a row, after a first one, for the warm comparison of section 7. */
    private int warmCommits = 10;

    /**
     * Scans after fewer deletion-vector checkpoints (each scan is two JVMs), as the smoke test
     * does.
     */
    BenchmarkRunner withVectorCommitLevels(int... levels) {
        vectorCommitLevels = levels.clone();
        warmCommits = 2;
        return this;
    }

    /** Skips the search for the smallest heap (many runs), as the smoke test does. */
    BenchmarkRunner withoutSmallestHeap() {
        findSmallestHeap = false;
        return this;
    }

    String report() {
        return report.toString();
    }

    private long rows(long rows) {
        return Math.max(1_000, Math.round(rows * scale));
    }

    private int count(int count) {
        return (int) Math.max(10, Math.round(count * scale));
    }

    // ---------------------------------------------------------------- scenarios

    /** 1. Peak heap and RSS of a merge of a 5,000-row change set into tables of growing size. */
    void memoryVersusTableSize() {
        section(
                "1. Memory vs table size",
                "one partition; 5,000 changes (2,500 corrections spread over the table, 2,500 inserts); every file is rewritten");
        row(
                "table rows",
                "files",
                "wall ms",
                "peak heap MiB",
                "peak live heap MiB",
                "peak RSS MiB",
                "smallest -Xmx that completes, MiB");
        int smallest = HEAP_LADDER[0];
        for (long size : new long[] {62_500, 250_000, 1_000_000, 4_000_000, 16_000_000}) {
            long tableRows = rows(size);
            // The same number of files at every size, so every merge uses the same number of
            // rewrite lanes: only the size of the files grows.
            int files = 8;
            Path master = table("memory-" + tableRows, Keys.SEQUENTIAL, files, tableRows / files);
            List<Map<String, Long>> runs = new ArrayList<>();
            for (int i = 0; i < repetitions; i++) {
                runs.add(
                        probe(
                                "deltalite",
                                copy(master),
                                Keys.SEQUENTIAL,
                                tableRows,
                                count(2_500),
                                count(2_500),
                                i,
                                0,
                                0));
            }
            smallest = smallestHeapMib("deltalite", master, tableRows, HEAP_LADDER[0]);
            row(
                    tableRows,
                    files,
                    stat(runs, r -> r.get("millis")),
                    mib(runs, "peakHeapBytes"),
                    mib(runs, "peakLiveHeapBytes"),
                    mib(runs, "peakRssBytes"),
                    smallest);
        }
    }

    /** 2. deltalite against Spark MERGE, same table and change set, alternating. */
    void versusSparkMerge() {
        long tableRows = rows(1_000_000);
        int files = 2;
        section(
                "2. Against Spark MERGE",
                tableRows
                        + " rows in "
                        + files
                        + " files; 5,000 changes (2,500 corrections, 2,500 inserts); Spark 4.2 + Delta 4.4 local[2]; each run in a fresh JVM");
        Path master = table("spark-" + tableRows, Keys.SEQUENTIAL, files, tableRows / files);
        List<Map<String, Long>> deltalite = new ArrayList<>();
        List<Map<String, Long>> spark = new ArrayList<>();
        for (int i = 0; i < repetitions; i++) {
            deltalite.add(
                    probe(
                            "deltalite",
                            copy(master),
                            Keys.SEQUENTIAL,
                            tableRows,
                            count(2_500),
                            count(2_500),
                            i,
                            0,
                            0));
            spark.add(
                    probe(
                            "spark",
                            copy(master),
                            Keys.SEQUENTIAL,
                            tableRows,
                            count(2_500),
                            count(2_500),
                            i,
                            0,
                            0));
        }
        int deltaliteHeap = smallestHeapMib("deltalite", master, tableRows, HEAP_LADDER[0]);
        int sparkHeap = smallestHeapMib("spark", master, tableRows, HEAP_LADDER[0]);
        row(
                "system",
                "wall ms",
                "peak heap MiB",
                "peak live heap MiB",
                "peak RSS MiB",
                "smallest -Xmx that completes, MiB");
        row(
                "deltalite",
                stat(deltalite, r -> r.get("millis")),
                mib(deltalite, "peakHeapBytes"),
                mib(deltalite, "peakLiveHeapBytes"),
                mib(deltalite, "peakRssBytes"),
                deltaliteHeap);
        row(
                "Spark MERGE",
                stat(spark, r -> r.get("millis")),
                mib(spark, "peakHeapBytes"),
                mib(spark, "peakLiveHeapBytes"),
                mib(spark, "peakRssBytes"),
                sparkHeap);
        report.append(
                String.format(
                        "%nRatios (Spark / deltalite, medians): time %.1f×, peak heap %.1f×, peak live heap %.1f×, peak RSS %.1f×, smallest heap %.1f×%n",
                        ratio(spark, deltalite, "millis"),
                        ratio(spark, deltalite, "peakHeapBytes"),
                        ratio(spark, deltalite, "peakLiveHeapBytes"),
                        ratio(spark, deltalite, "peakRssBytes"),
                        (double) sparkHeap / deltaliteHeap));
    }

    /** 3. deltalite against the floor: reading and rewriting exactly the files it touches. */
    void versusFloor() {
        long tableRows = rows(4_000_000);
        int files = 8;
        section(
                "3. Against the floor",
                tableRows
                        + " rows in "
                        + files
                        + " files; 5,000 changes; the floor reads and rewrites the files deltalite rewrote, with the same Parquet reader and writer and no merge logic");
        Path master = table("floor-" + tableRows, Keys.SEQUENTIAL, files, tableRows / files);
        List<Map<String, Long>> deltalite = new ArrayList<>();
        List<Map<String, Long>> floor = new ArrayList<>();
        for (int i = 0; i < repetitions; i++) {
            Path merged = copy(master);
            deltalite.add(
                    probe(
                            "deltalite",
                            merged,
                            Keys.SEQUENTIAL,
                            tableRows,
                            count(2_500),
                            count(2_500),
                            i,
                            0,
                            0));
            List<String> touched = DeltaLogFiles.removedInLastCommit(merged);
            List<String> args = new ArrayList<>(List.of("floor", copy(master).toString()));
            args.addAll(touched);
            floor.add(run(args));
        }
        row("run", "wall ms", "files", "peak live heap MiB");
        row(
                "deltalite merge",
                stat(deltalite, r -> r.get("millis")),
                stat(deltalite, r -> r.get("filesRemoved")),
                mib(deltalite, "peakLiveHeapBytes"));
        row(
                "floor: read + write",
                stat(floor, r -> r.get("millis")),
                stat(floor, r -> r.get("filesRead")),
                mib(floor, "peakLiveHeapBytes"));
        report.append(
                String.format(
                        "%ndeltalite / floor (medians): %.2f×%n",
                        ratio(deltalite, floor, "millis")));
    }

    /** 4. Write amplification of corrections, scattered and temporally local. */
    void writeAmplification() {
        long rowsPerFile = rows(640_000);
        int files = 8;
        long tableRows = rowsPerFile * files;
        int corrections = count(5_000);
        section(
                "4. Write amplification",
                files
                        + " files × "
                        + rowsPerFile
                        + " rows (id, amount, note); "
                        + corrections
                        + " corrections of one row each (16 bytes changed per correction: id and amount)");
        Path master = table("amplification-" + tableRows, Keys.SEQUENTIAL, files, rowsPerFile);
        row(
                "corrections",
                "files touched",
                "MiB written",
                "amplification",
                "scan ms before",
                "scan ms after");
        for (boolean local : new boolean[] {false, true}) {
            List<Map<String, Long>> merges = new ArrayList<>();
            List<Map<String, Long>> before = new ArrayList<>();
            List<Map<String, Long>> after = new ArrayList<>();
            for (int i = 0; i < repetitions; i++) {
                Path table = copy(master);
                before.add(run(List.of("scan", table.toString())));
                merges.add(
                        probe(
                                "deltalite",
                                table,
                                Keys.SEQUENTIAL,
                                tableRows,
                                corrections,
                                0,
                                i,
                                local ? 3 * rowsPerFile : 0,
                                local ? rowsPerFile : 0));
                after.add(run(List.of("scan", table.toString())));
            }
            double written = median(merges, r -> r.get("bytesWritten"));
            row(
                    local ? "temporally local (one file)" : "scattered",
                    stat(merges, r -> r.get("filesRemoved")),
                    String.format("%.1f", written / (1 << 20)),
                    String.format("%,.0f×", written / (corrections * 16.0)),
                    stat(before, r -> r.get("millis")),
                    stat(after, r -> r.get("millis")));
        }
    }

    /** 5. How many files the probe reads and rewrites, against the minimum possible. */
    void probeEffectiveness() {
        long rowsPerFile = rows(250_000);
        int files = 8;
        long tableRows = rowsPerFile * files;
        int corrections = count(1_000);
        section(
                "5. Probe effectiveness",
                files
                        + " files × "
                        + rowsPerFile
                        + " rows with random UUID keys (statistics cannot rule a file out); "
                        + corrections
                        + " corrections");
        Path master = table("probe-" + tableRows, Keys.UUID, files, rowsPerFile);
        row("updates", "files probed", "files rewritten", "minimum rewritten", "wall ms");
        for (boolean local : new boolean[] {true, false}) {
            List<Map<String, Long>> runs = new ArrayList<>();
            for (int i = 0; i < repetitions; i++) {
                runs.add(
                        probe(
                                "deltalite",
                                copy(master),
                                Keys.UUID,
                                tableRows,
                                corrections,
                                0,
                                i,
                                local ? 5 * rowsPerFile : 0,
                                local ? rowsPerFile : 0));
            }
            row(
                    local ? "temporally local" : "scattered",
                    stat(runs, r -> r.get("filesProbed")),
                    stat(runs, r -> r.get("filesRemoved")),
                    local ? 1 : files,
                    stat(runs, r -> r.get("millis")));
        }
    }

    /**
     * 7. Deletion vectors against copy-on-write: what one checkpoint of scattered corrections
     * writes and costs in each mode, then what readers pay after 1, 10 and 100 such checkpoints.
     */
    void deletionVectors() {
        long rowsPerFile = rows(640_000);
        int files = 8;
        long tableRows = rowsPerFile * files;
        int corrections = count(5_000);
        section(
                "7. Deletion vectors",
                files
                        + " files × "
                        + rowsPerFile
                        + " rows (id, amount, note), deletion vectors enabled; "
                        + corrections
                        + " corrections scattered over the table per checkpoint; default dv.rewrite-threshold (0.5)");
        Path master = work.resolve("tables").resolve("vectors-" + tableRows);
        if (!Files.isDirectory(master.resolve("_delta_log"))) {
            BenchTable.generate(
                    master.toString(),
                    BenchTable.definitionWithDeletionVectors(Keys.SEQUENTIAL),
                    Keys.SEQUENTIAL,
                    files,
                    rowsPerFile,
                    42);
        }
        row(
                "write mode",
                "files rewritten",
                "files given a deletion vector",
                "MiB written (data + vectors)",
                "KiB of vectors",
                "wall ms");
        List<Map<String, Long>> copyOnWrite = new ArrayList<>();
        List<Map<String, Long>> vectors = new ArrayList<>();
        for (int i = 0; i < repetitions; i++) {
            for (String mode : List.of("copy-on-write", "deletion-vectors")) {
                List<String> args =
                        new ArrayList<>(
                                probeArgs(
                                        "deltalite",
                                        copy(master),
                                        Keys.SEQUENTIAL,
                                        tableRows,
                                        corrections,
                                        0,
                                        i,
                                        0,
                                        0));
                args.add(mode);
                (mode.equals("copy-on-write") ? copyOnWrite : vectors).add(run(args));
            }
        }
        for (List<Map<String, Long>> runs : List.of(copyOnWrite, vectors)) {
            row(
                    runs == copyOnWrite ? "copy-on-write" : "deletion vectors",
                    stat(runs, r -> r.get("filesRemoved") - r.get("deletionVectorsWritten")),
                    stat(runs, r -> r.get("deletionVectorsWritten")),
                    String.format(
                            "%.2f",
                            median(runs, r -> r.get("bytesWritten") + r.get("deletionVectorBytes"))
                                    / (1 << 20)),
                    String.format("%.1f", median(runs, r -> r.get("deletionVectorBytes")) / 1024),
                    stat(runs, r -> r.get("millis")));
        }
        report.append(
                String.format(
                        "%nDeletion vectors / copy-on-write (medians): bytes written %.2f %%, wall time %.2f×"
                                + " (copy-on-write is %.1f× slower)%n",
                        100
                                * median(
                                        vectors,
                                        r -> r.get("bytesWritten") + r.get("deletionVectorBytes"))
                                / Math.max(
                                        1.0,
                                        median(
                                                copyOnWrite,
                                                r ->
                                                        r.get("bytesWritten")
                                                                + r.get("deletionVectorBytes"))),
                        ratio(vectors, copyOnWrite, "millis"),
                        ratio(copyOnWrite, vectors, "millis")));

        // The same checkpoints in a warm JVM, one after the other (a running job's steady state):
        // each mode on its own copy, the first checkpoint excluded.
        report.append('\n');
        headerPending = true;
        row(
                "write mode, warm, " + warmCommits + " checkpoints in a row",
                "wall ms per checkpoint",
                "MiB written per checkpoint");
        Map<String, Map<String, Long>> warm = new LinkedHashMap<>();
        for (String mode : List.of("copy-on-write", "deletion-vectors")) {
            Map<String, Long> commits =
                    run(
                            List.of(
                                    "commits",
                                    copy(master).toString(),
                                    Long.toString(tableRows),
                                    Integer.toString(warmCommits + 1),
                                    Integer.toString(corrections),
                                    "1000",
                                    mode));
            warm.put(mode, commits);
            row(
                    mode,
                    stat(commitMillis(commits), r -> r.get("millis")),
                    String.format(
                            "%.2f",
                            (commits.get("bytesWritten") + commits.get("deletionVectorBytes"))
                                    / (double) (warmCommits + 1)
                                    / (1 << 20)));
        }
        report.append(
                String.format(
                        "%nWarm, copy-on-write / deletion vectors (medians per checkpoint): %.1f× the time%n",
                        median(commitMillis(warm.get("copy-on-write")), r -> r.get("millis"))
                                / median(
                                        commitMillis(warm.get("deletion-vectors")),
                                        r -> r.get("millis"))));

        // Readers after a stream of such checkpoints: each level's commits run once, one after
        // the other on the same table, in one JVM; each scan is repeated.
        report.append('\n');
        headerPending = true;
        row(
                "checkpoints merged with deletion vectors",
                "vectors written in total",
                "Kernel scan ms",
                "Spark scan ms",
                "rows");
        Path table = copy(master);
        int done = 0;
        long vectorsInTotal = 0;
        double cleanKernel = 0;
        double cleanSpark = 0;
        int lastLevel = vectorCommitLevels[vectorCommitLevels.length - 1];
        for (int level : vectorCommitLevels) {
            if (level > done) {
                Map<String, Long> commits =
                        run(
                                List.of(
                                        "commits",
                                        table.toString(),
                                        Long.toString(tableRows),
                                        Integer.toString(level - done),
                                        Integer.toString(corrections),
                                        Integer.toString(done),
                                        "deletion-vectors"));
                vectorsInTotal += commits.get("deletionVectorsWritten");
                done = level;
            }
            List<Map<String, Long>> kernel = new ArrayList<>();
            List<Map<String, Long>> spark = new ArrayList<>();
            for (int i = 0; i < repetitions; i++) {
                kernel.add(run(List.of("scan", table.toString())));
                spark.add(run(List.of("spark-scan", table.toString())));
            }
            for (Map<String, Long> scan : spark) {
                if (!scan.get("rows").equals(kernel.get(0).get("rows"))
                        || kernel.get(0).get("rows") != tableRows) {
                    throw new IllegalStateException(
                            "after "
                                    + level
                                    + " deletion-vector checkpoints Spark read "
                                    + scan.get("rows")
                                    + " rows and Kernel "
                                    + kernel.get(0).get("rows")
                                    + "; the table has "
                                    + tableRows);
                }
            }
            if (level == 0) {
                cleanKernel = median(kernel, r -> r.get("millis"));
                cleanSpark = median(spark, r -> r.get("millis"));
            }
            row(
                    level,
                    vectorsInTotal,
                    stat(kernel, r -> r.get("millis")),
                    stat(spark, r -> r.get("millis")),
                    stat(kernel, r -> r.get("rows")));
            if (level == lastLevel) {
                report.append(
                        String.format(
                                "%nScan after %d checkpoints / clean scan (medians): Kernel %.2f×, Spark %.2f×%n",
                                level,
                                median(kernel, r -> r.get("millis")) / cleanKernel,
                                median(spark, r -> r.get("millis")) / cleanSpark));
            }
        }

        // The size of one vector: 1,000 positions scattered over a 640,000-row file, against the
        // file's rows as a plain bitmap (80,000 bytes).
        java.util.Random random = new java.util.Random(7);
        java.util.TreeSet<Long> distinct = new java.util.TreeSet<>();
        while (distinct.size() < 1_000) {
            distinct.add((long) random.nextInt(640_000));
        }
        long[] positions = distinct.stream().mapToLong(Long::longValue).toArray();
        byte[] bitmap =
                io.deltalite.flink.internal.merge.value.DeletionVector.of(positions).serialize();
        report.append(
                String.format(
                        "%nOne vector of %,d positions scattered over a 640,000-row file: %,d bytes of"
                                + " bitmap, %,d bytes in its vector file (plain bitmap of the file's"
                                + " rows: 80,000 bytes)%n",
                        positions.length, bitmap.length, bitmap.length + 9));
    }

    /** The per-checkpoint wall times of a {@code commits} run, one map per checkpoint. */
    private static List<Map<String, Long>> commitMillis(Map<String, Long> commits) {
        List<Map<String, Long>> times = new ArrayList<>();
        commits.forEach(
                (key, value) -> {
                    if (key.startsWith("commitMillis.")) {
                        times.add(Map.of("millis", value));
                    }
                });
        return times;
    }

    // ---------------------------------------------------------------- plumbing

    private Map<String, Long> probe(
            String workload,
            Path table,
            Keys keys,
            long tableRows,
            int corrections,
            int inserts,
            long seed,
            long localStart,
            long localRange) {
        return run(
                probeArgs(
                        workload,
                        table,
                        keys,
                        tableRows,
                        corrections,
                        inserts,
                        seed,
                        localStart,
                        localRange));
    }

    private static List<String> probeArgs(
            String workload,
            Path table,
            Keys keys,
            long tableRows,
            int corrections,
            int inserts,
            long seed,
            long localStart,
            long localRange) {
        return List.of(
                workload,
                table.toString(),
                keys.name(),
                Long.toString(tableRows),
                Integer.toString(corrections),
                Integer.toString(inserts),
                Long.toString(seed),
                Long.toString(localStart),
                Long.toString(localRange));
    }

    /** The smallest heap a scattered 5,000-change merge of {@code master} completes in. */
    private int smallestHeapMib(String workload, Path master, long tableRows, int fromMib) {
        return smallestHeapMib(
                () ->
                        probeArgs(
                                workload,
                                copy(master),
                                Keys.SEQUENTIAL,
                                tableRows,
                                count(2_500),
                                count(2_500),
                                0,
                                0,
                                0),
                fromMib);
    }

    /** Runs {@link BenchProbe} in a new JVM and returns what it measured. */
    static Map<String, Long> run(List<String> probeArgs) {
        Map<String, Long> result = run(probeArgs, List.of("-Xmx4g", "-XX:+UseG1GC"));
        if (result == null) {
            throw new IllegalStateException("benchmark run " + probeArgs + " ran out of memory");
        }
        return result;
    }

    /** The heaps tried, in MiB, to find the smallest one a run completes in. */
    private static final int[] HEAP_LADDER = {
        64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072
    };

    /**
     * The smallest maximum heap (from {@link #HEAP_LADDER}, starting at {@code fromMib}) in which a
     * run completes: the most direct measure of the memory a merge needs, free of how much garbage
     * a generous heap lets accumulate. Each attempt runs on a fresh table copy.
     */
    private int smallestHeapMib(java.util.function.Supplier<List<String>> probeArgs, int fromMib) {
        if (!findSmallestHeap) {
            return -1;
        }
        for (int heap : HEAP_LADDER) {
            if (heap < fromMib) {
                continue;
            }
            Map<String, Long> result =
                    run(
                            probeArgs.get(),
                            List.of(
                                    "-Xmx" + heap + "m",
                                    "-XX:+UseParallelGC",
                                    "-XX:+ExitOnOutOfMemoryError"));
            if (result != null) {
                return heap;
            }
        }
        return -1;
    }

    /** Runs {@link BenchProbe} in a new JVM; null when it ran out of memory. */
    private static Map<String, Long> run(List<String> probeArgs, List<String> memoryOptions) {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(memoryOptions);
        command.addAll(
                List.of(
                        "--add-opens=java.base/java.lang=ALL-UNNAMED",
                        "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
                        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                        "--add-opens=java.base/java.io=ALL-UNNAMED",
                        "--add-opens=java.base/java.net=ALL-UNNAMED",
                        "--add-opens=java.base/java.nio=ALL-UNNAMED",
                        "--add-opens=java.base/java.util=ALL-UNNAMED",
                        "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                        "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                        "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
                        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                        "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
                        "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
                        "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        BenchProbe.class.getName()));
        command.addAll(probeArgs);
        try {
            Path log = Files.createTempFile("bench-probe", ".log");
            Process process =
                    new ProcessBuilder(command)
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile())
                            .start();
            if (!process.waitFor(30, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException("benchmark run timed out: " + probeArgs);
            }
            List<String> output = Files.readAllLines(log, StandardCharsets.UTF_8);
            Files.deleteIfExists(log);
            for (String line : output) {
                if (line.startsWith("RESULT ")) {
                    Map<String, Long> result = new LinkedHashMap<>();
                    for (String field : line.substring(7).split(" ")) {
                        String[] pair = field.split("=", 2);
                        if (!pair[0].equals("workload")) {
                            result.put(pair[0], Long.parseLong(pair[1]));
                        }
                    }
                    return result;
                }
            }
            // Spark refuses to start below about 450 MiB of heap: for this measure, that heap
            // is too small just the same.
            if (output.stream()
                    .anyMatch(
                            line ->
                                    line.contains("OutOfMemoryError")
                                            || line.contains("INVALID_DRIVER_MEMORY"))) {
                return null;
            }
            throw new IllegalStateException(
                    "benchmark run "
                            + probeArgs
                            + " failed:\n"
                            + String.join(
                                    "\n",
                                    output.subList(
                                            Math.max(0, output.size() - 40), output.size())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Path table(String name, Keys keys, int files, long rowsPerFile) {
        Path master = work.resolve("tables").resolve(name);
        if (!Files.isDirectory(master.resolve("_delta_log"))) {
            BenchTable.generate(master.toString(), keys, files, rowsPerFile, 42);
        }
        return master;
    }

    private Path copy(Path master) {
        Path target = work.resolve("runs").resolve(master.getFileName() + "-" + System.nanoTime());
        try (Stream<Path> files = Files.walk(master)) {
            for (Path source : files.toList()) {
                Path destination = target.resolve(master.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(destination);
                } else {
                    Files.copy(source, destination);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return target;
    }

    void deleteRuns() {
        Path runs = work.resolve("runs");
        if (!Files.exists(runs)) {
            return;
        }
        try (Stream<Path> files = Files.walk(runs)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private boolean headerPending;

    private void section(String title, String setup) {
        report.append("\n### ")
                .append(title)
                .append("\n\n")
                .append(setup)
                .append(". ")
                .append(repetitions)
                .append(" run(s) each; figures are min / median / max.\n\n");
        headerPending = true;
    }

    /** A table row; the first row after a section heading is the table's header. */
    private void row(Object... cells) {
        StringBuilder line = new StringBuilder("|");
        for (Object cell : cells) {
            line.append(' ').append(cell).append(" |");
        }
        report.append(line).append('\n');
        if (headerPending) {
            report.append("|").append(" --- |".repeat(cells.length)).append('\n');
            headerPending = false;
        }
    }

    private static String stat(
            List<Map<String, Long>> runs, ToLongFunction<Map<String, Long>> value) {
        long[] values = runs.stream().mapToLong(value).sorted().toArray();
        if (values.length == 1) {
            return String.format("%,d", values[0]);
        }
        return String.format(
                "%,d / %,d / %,d", values[0], values[values.length / 2], values[values.length - 1]);
    }

    private static String mib(List<Map<String, Long>> runs, String key) {
        long[] values = runs.stream().mapToLong(r -> r.get(key) >> 20).sorted().toArray();
        if (values.length == 1) {
            return Long.toString(values[0]);
        }
        return values[0] + " / " + values[values.length / 2] + " / " + values[values.length - 1];
    }

    private static double median(
            List<Map<String, Long>> runs, ToLongFunction<Map<String, Long>> value) {
        long[] values = runs.stream().mapToLong(value).sorted().toArray();
        return values[values.length / 2];
    }

    private static double ratio(List<Map<String, Long>> a, List<Map<String, Long>> b, String key) {
        return median(a, r -> r.get(key)) / Math.max(1.0, median(b, r -> r.get(key)));
    }
}
