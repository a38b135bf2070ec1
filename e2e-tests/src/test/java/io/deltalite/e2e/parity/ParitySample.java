package io.deltalite.e2e.parity;

import java.util.Random;

/**
 * What one run of the parity suite samples, from a seed it draws and prints: which of a class's
 * {@link GeneratedScenario}s run (half of them, {@link GeneratedScenarioSample}; every scenario of
 * hand-written batches runs), and which batches of a scenario Spark reads deltalite's tables after.
 * Spark's MERGE (the oracle) runs for every batch and Kernel compares every deltalite table with it
 * after every batch; Spark, the second reader, reads deltalite's tables after the first and the
 * last batch of every scenario and after the batches in between that this run samples. {@code
 * -Dparity.seed=N} repeats a run's sample, {@code -Dparity.all=true} runs every generated scenario
 * and has Spark read after every batch (the README, "Building and testing").
 */
final class ParitySample {
    /** The share of the batches between the first and the last that Spark reads after. */
    private static final double SHARE = 1.0 / 3;

    private static final boolean ALL = Boolean.getBoolean("parity.all");
    private static final long SEED = Long.getLong("parity.seed", new Random().nextLong());

    static {
        System.out.println(
                ALL
                        ? "Parity: every generated scenario runs, and Spark reads deltalite's tables"
                                + " after every batch (parity.all)"
                        : "Parity: half of each class's generated scenarios run, and Spark reads"
                                + " deltalite's tables after the first and the last batch of each"
                                + " scenario and a third of the others, sampled with"
                                + " -Dparity.seed="
                                + SEED
                                + " (-Dparity.all=true runs every scenario and reads after every"
                                + " batch)");
    }

    private final Random random;

    private ParitySample(Random random) {
        this.random = random;
    }

    /** The sample of one scenario, the same for the same seed and scenario name. */
    static ParitySample of(String scenario) {
        return new ParitySample(random(scenario));
    }

    /** Random numbers for {@code name}, the same for the same seed and name. */
    static Random random(String name) {
        return new Random(SEED ^ name.hashCode());
    }

    /** Whether this run runs every generated scenario and reads with Spark after every batch. */
    static boolean all() {
        return ALL;
    }

    /** The run's seed, for the messages of failed comparisons. */
    static String describe() {
        return ALL ? "parity.all" : "parity.seed=" + SEED;
    }

    /**
     * Whether Spark reads deltalite's tables after {@code batch} (1 for the first), a batch that
     * may not be the last. Draws exactly one number per call, so that a scenario's sample depends
     * only on the seed.
     */
    boolean sparkReadsAfter(int batch) {
        boolean drawn = random.nextDouble() < SHARE;
        return ALL || batch == 1 || drawn;
    }
}
