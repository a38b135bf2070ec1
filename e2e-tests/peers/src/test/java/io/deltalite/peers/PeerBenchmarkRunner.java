package io.deltalite.peers;

import io.deltalite.peers.Changelog.Phase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * Feeds the same changelogs into every system, each write and each read in a fresh JVM on that
 * system's class path, runs of the systems alternating, and prints the side-by-side tables of
 * BENCHMARKS.md section 11.
 *
 * <ol>
 *   <li><b>CDC of a large table</b>: a bulk load of {@code bulk} rows, then {@code changes} records
 *       (40 % inserts, 50 % updates, 10 % deletes of random live keys) unthrottled;
 *   <li><b>events with late corrections</b>: {@code events} records into day partitions, 5 %
 *       correcting a recent event;
 *   <li><b>CDC at a fixed rate</b>: workload 1's changelog at {@code rate} records/s for {@code
 *       rateSeconds}, on a copy of the same bulk-loaded table, for commit latency.
 * </ol>
 */
final class PeerBenchmarkRunner {
    /** Sizes and settings shared by every system. */
    record Scale(
            long bulk,
            long changes,
            long events,
            long eventsPerDay,
            double rate,
            long rateSeconds,
            long checkpointMillis,
            int parallelism,
            int repetitions,
            Set<Workload> workloads) {}

    enum Workload {
        CDC("1. CDC of a large table"),
        LATE_CORRECTIONS("2. Events with late corrections"),
        FIXED_RATE("3. CDC at a fixed rate");

        final String title;

        Workload(String title) {
            this.title = title;
        }
    }

    /** One system's run of one workload. */
    record Run(
            PeerSystem system,
            Workload workload,
            JobArguments bulk,
            JobArguments write,
            long bytesWritten,
            JobArguments nativeRead,
            JobArguments sparkRead) {
        boolean correct() {
            return matches(nativeRead) && (sparkRead == null || matches(sparkRead));
        }

        private static boolean matches(JobArguments read) {
            return read.get("rows").equals(read.get("expectedRows"))
                    && read.get("checksum").equals(read.get("expectedChecksum"));
        }

        double recordsPerSecond() {
            return write.getLong("records") * 1000.0 / write.getLong("runtimeMillis");
        }
    }

    private final Path work;
    private final Scale scale;
    private final List<PeerSystem> systems;
    private final ChildJvm jvm;
    private Set<PeerSystem> readWithSpark =
            EnumSet.of(
                    PeerSystem.DELTALITE_COPY_ON_WRITE,
                    PeerSystem.DELTALITE_DELETION_VECTORS,
                    PeerSystem.DELTALITE_DELETION_VECTORS_BY_KEY);
    private final Map<Workload, List<Run>> runs = new EnumMap<>(Workload.class);

    PeerBenchmarkRunner(Path work, Scale scale, List<PeerSystem> systems, ChildJvm jvm) {
        this.work = work;
        this.scale = scale;
        this.systems = List.copyOf(systems);
        this.jvm = jvm;
        for (Workload workload : Workload.values()) {
            runs.put(workload, new ArrayList<>());
        }
    }

    /**
     * Reads these systems' tables with Spark too (Delta tables only; both deltalite modes by
     * default).
     */
    PeerBenchmarkRunner readingWithSpark(Set<PeerSystem> systems) {
        readWithSpark = Set.copyOf(systems);
        return this;
    }

    Map<Workload, List<Run>> runs() {
        return runs;
    }

    /** Every repetition of every system; the order of the systems rotates between repetitions. */
    void runAll() {
        for (int repetition = 0; repetition < scale.repetitions(); repetition++) {
            for (int i = 0; i < systems.size(); i++) {
                PeerSystem system = systems.get((i + repetition) % systems.size());
                Path base = work.resolve("run-" + repetition).resolve(system.name());
                log("repetition %d: %s", repetition + 1, system.label);
                if (scale.workloads().contains(Workload.CDC)) {
                    runCdc(system, base);
                }
                if (scale.workloads().contains(Workload.FIXED_RATE)) {
                    runFixedRate(system, base);
                }
                if (scale.workloads().contains(Workload.LATE_CORRECTIONS)) {
                    runLateCorrections(system, base);
                }
                delete(base);
            }
        }
    }

    /**
     * Workload 1. Workloads 1 and 3 each bulk-load their own table: Iceberg's metadata holds
     * absolute paths, so a loaded table cannot be copied.
     */
    private void runCdc(PeerSystem system, Path base) {
        Path unthrottled = base.resolve("cdc");
        JobArguments loaded = write(system, Phase.BULK, unthrottled, scale.bulk(), 0);
        long bulkBytes = size(unthrottled);
        JobArguments cdc = write(system, Phase.CDC, unthrottled, scale.changes(), 0);
        runs.get(Workload.CDC)
                .add(
                        new Run(
                                system,
                                Workload.CDC,
                                loaded,
                                cdc,
                                size(unthrottled) - bulkBytes,
                                read(system, "native", Phase.CDC, unthrottled, scale.changes()),
                                readWithSpark.contains(system)
                                        ? read(
                                                system,
                                                "spark",
                                                Phase.CDC,
                                                unthrottled,
                                                scale.changes())
                                        : null));
        delete(unthrottled);
    }

    private void runFixedRate(PeerSystem system, Path base) {
        Path throttled = base.resolve("fixed-rate");
        JobArguments reloaded = write(system, Phase.BULK, throttled, scale.bulk(), 0);
        long bulkBytes = size(throttled);
        long records = Math.round(scale.rate() * scale.rateSeconds());
        JobArguments fixed = write(system, Phase.CDC, throttled, records, scale.rate());
        runs.get(Workload.FIXED_RATE)
                .add(
                        new Run(
                                system,
                                Workload.FIXED_RATE,
                                reloaded,
                                fixed,
                                size(throttled) - bulkBytes,
                                read(system, "native", Phase.CDC, throttled, records),
                                null));
        delete(throttled);
    }

    private void runLateCorrections(PeerSystem system, Path base) {
        Path table = base.resolve("late");
        JobArguments late = write(system, Phase.LATE_CORRECTIONS, table, scale.events(), 0);
        runs.get(Workload.LATE_CORRECTIONS)
                .add(
                        new Run(
                                system,
                                Workload.LATE_CORRECTIONS,
                                null,
                                late,
                                size(table),
                                read(
                                        system,
                                        "native",
                                        Phase.LATE_CORRECTIONS,
                                        table,
                                        scale.events()),
                                readWithSpark.contains(system)
                                        ? read(
                                                system,
                                                "spark",
                                                Phase.LATE_CORRECTIONS,
                                                table,
                                                scale.events())
                                        : null));
        delete(table);
    }

    private JobArguments write(
            PeerSystem system, Phase phase, Path table, long records, double rate) {
        log("  write %s: %,d records%s", phase, records, rate > 0 ? " at " + rate + "/s" : "");
        return jvm.run(
                system.classPath,
                WriteJob.class,
                changelog(system, phase, table, records)
                        .with("rate", rate)
                        .with("checkpointMillis", scale.checkpointMillis())
                        .with("parallelism", scale.parallelism()),
                work.resolve("logs"));
    }

    private JobArguments read(
            PeerSystem system, String reader, Phase phase, Path table, long records) {
        log("  read %s with %s", phase, reader);
        return jvm.run(
                reader.equals("spark") ? "spark" : system.classPath,
                ReadJob.class,
                changelog(system, phase, table, records).with("reader", reader),
                work.resolve("logs"));
    }

    private JobArguments changelog(PeerSystem system, Phase phase, Path table, long records) {
        return new JobArguments(Map.of())
                .with("system", system.name())
                .with("phase", phase.name())
                .with("table", table)
                .with("bulk", scale.bulk())
                .with("records", records)
                .with("eventsPerDay", scale.eventsPerDay());
    }

    // ---------------------------------------------------------------- report

    /** The side-by-side tables, min / median / max over the repetitions. */
    String report() {
        StringBuilder out = new StringBuilder();
        out.append(
                String.format(
                        Locale.ROOT,
                        "Scale: bulk %,d rows, %,d CDC records, %,d events (%,d per day), %,.0f records/s"
                                + " for %d s; sink parallelism %d, checkpoint every %,d ms;"
                                + " %d repetition(s).%n%n",
                        scale.bulk(),
                        scale.changes(),
                        scale.events(),
                        scale.eventsPerDay(),
                        scale.rate(),
                        scale.rateSeconds(),
                        scale.parallelism(),
                        scale.checkpointMillis(),
                        scale.repetitions()));
        // The connector under test is the one installed in the local Maven repository.
        out.append("deltalite under test: ")
                .append(jvm.deltaliteJars("deltalite"))
                .append(String.format("%n%n"));
        if (scale.workloads().contains(Workload.CDC)) {
            List<Column> columns = new ArrayList<>();
            columns.add(column("bulk load records/s", run -> rate(run.bulk())));
            columns.add(column("CDC records/s", Run::recordsPerSecond));
            columns.addAll(writeAndReadColumns());
            table(out, Workload.CDC, columns);
        }
        if (scale.workloads().contains(Workload.LATE_CORRECTIONS)) {
            List<Column> columns = new ArrayList<>();
            columns.add(column("records/s", Run::recordsPerSecond));
            columns.addAll(writeAndReadColumns());
            table(out, Workload.LATE_CORRECTIONS, columns);
        }
        if (scale.workloads().contains(Workload.FIXED_RATE)) {
            table(
                    out,
                    Workload.FIXED_RATE,
                    List.of(
                            column("records/s", Run::recordsPerSecond),
                            column("commits", run -> run.write().getLong("commits")),
                            column("commit latency p50 ms", run -> latency(run, 50)),
                            column("commit latency p99 ms", run -> latency(run, 99)),
                            column("job peak RSS MiB", run -> mib(run.write()))));
        }
        return out.toString();
    }

    /** What a write left behind and what reading it cost: workloads 1 and 2. */
    private static List<Column> writeAndReadColumns() {
        return List.of(
                column("commits", run -> run.write().getLong("commits")),
                column("MiB written", run -> run.bytesWritten() / 1048576.0),
                column("files at end", run -> run.nativeRead().getLong("dataFiles")),
                column("delete files", run -> run.nativeRead().getLong("deleteFiles")),
                column("job peak RSS MiB", run -> mib(run.write())),
                column("scan ms (own reader)", run -> run.nativeRead().getLong("scanMillis")),
                column("scan ms (Spark)", run -> sparkScan(run)));
    }

    private record Column(String name, ToDoubleFunction<Run> value) {}

    private static Column column(String name, ToDoubleFunction<Run> value) {
        return new Column(name, value);
    }

    private void table(StringBuilder out, Workload workload, List<Column> columns) {
        out.append("### ").append(workload.title).append("\n\n| system |");
        columns.forEach(column -> out.append(' ').append(column.name()).append(" |"));
        out.append(" correct |\n|---|");
        columns.forEach(column -> out.append("---|"));
        out.append("---|\n");
        for (PeerSystem system : systems) {
            List<Run> mine =
                    runs.get(workload).stream().filter(run -> run.system() == system).toList();
            if (mine.isEmpty()) {
                continue;
            }
            out.append("| ").append(system.label).append(" |");
            for (Column column : columns) {
                out.append(' ').append(minMedianMax(mine, column.value())).append(" |");
            }
            long right = mine.stream().filter(Run::correct).count();
            out.append(
                    right == mine.size()
                            ? String.format(" yes, %d of %d |%n", right, mine.size())
                            : String.format(
                                    " **WRONG** in %d of %d |%n",
                                    mine.size() - right, mine.size()));
        }
        out.append('\n');
        for (Run run : runs.get(workload)) {
            if (!run.correct()) {
                out.append(
                        String.format(
                                "- %s ended wrong: own reader %s rows (expected %s), checksum %s (expected %s)%s%n",
                                run.system().label,
                                run.nativeRead().get("rows"),
                                run.nativeRead().get("expectedRows"),
                                run.nativeRead().get("checksum"),
                                run.nativeRead().get("expectedChecksum"),
                                run.sparkRead() == null
                                        ? ""
                                        : "; Spark " + run.sparkRead().get("rows") + " rows"));
            }
        }
        out.append('\n');
    }

    private static String minMedianMax(List<Run> runs, ToDoubleFunction<Run> value) {
        double[] values =
                runs.stream().mapToDouble(value).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (values.length == 0) {
            return "–";
        }
        if (values.length == 1) {
            return format(values[0]);
        }
        return format(values[0])
                + " / "
                + format(values[values.length / 2])
                + " / "
                + format(values[values.length - 1]);
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%,.0f", value);
    }

    private static double rate(JobArguments write) {
        return write.getLong("records") * 1000.0 / write.getLong("runtimeMillis");
    }

    private static double mib(JobArguments job) {
        return job.getLong("peakRssBytes") / 1048576.0;
    }

    private static double sparkScan(Run run) {
        return run.sparkRead() == null ? Double.NaN : run.sparkRead().getLong("scanMillis");
    }

    /** The percentile of the run's commit latencies (nearest rank), NaN without any. */
    static double latency(Run run, double percentile) {
        String list = run.write().get("latencies");
        if (list.isEmpty()) {
            return Double.NaN;
        }
        long[] sorted =
                Arrays.stream(list.split(",")).mapToLong(Long::parseLong).sorted().toArray();
        int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    // ---------------------------------------------------------------- files

    private static long size(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).mapToLong(PeerBenchmarkRunner::sizeOf).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Deletes a table once it was measured, unless {@code -Dbench.keepTables=true} keeps every
     * table for a look at its log afterwards (they take the disk of a whole run).
     */
    private static void delete(Path directory) {
        if (!Files.exists(directory) || Boolean.getBoolean("bench.keepTables")) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void log(String format, Object... args) {
        System.out.printf("[peers] " + format + "%n", args);
    }
}
