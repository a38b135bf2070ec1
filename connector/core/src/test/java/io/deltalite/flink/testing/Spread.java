package io.deltalite.flink.testing;

import java.util.ArrayList;
import java.util.List;

/** The min / median / max of a benchmark's repeated measurements, as BENCHMARKS.md prints them. */
public final class Spread {
    private Spread() {}

    /** Millions of {@code items} per second of each time in {@code nanos}: "min / median / max". */
    public static String millionsPerSecond(List<Long> nanos, long items, int decimals) {
        List<Double> rates = new ArrayList<>();
        nanos.forEach(n -> rates.add(items / (n / 1e9) / 1e6));
        rates.sort(null);
        String number = "%." + decimals + "f";
        return String.format(
                number + " / " + number + " / " + number,
                rates.get(0),
                rates.get(rates.size() / 2),
                rates.get(rates.size() - 1));
    }

    /**
     * A row of a benchmark's table: {@code label}, millions of {@code items} per CPU-second, CPU
     * milliseconds and wall milliseconds per run, each as "min / median / max".
     */
    public static String row(
            String label, List<Long> cpu, List<Long> wall, long items, int decimals) {
        return String.format(
                "| %s | %s | %s | %s |%n",
                label, millionsPerSecond(cpu, items, decimals), millis(cpu), millis(wall));
    }

    /** The times in {@code nanos} in milliseconds: "min / median / max". */
    public static String millis(List<Long> nanos) {
        List<Long> sorted = new ArrayList<>(nanos);
        sorted.sort(null);
        return String.format(
                "%,d / %,d / %,d",
                sorted.get(0) / 1_000_000,
                sorted.get(sorted.size() / 2) / 1_000_000,
                sorted.get(sorted.size() - 1) / 1_000_000);
    }
}
