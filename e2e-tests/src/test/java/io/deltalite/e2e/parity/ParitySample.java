package io.deltalite.e2e.parity;

import java.util.Random;

/**
 * Which batches of a parity scenario Spark reads deltalite's tables after. Spark's MERGE (the
 * oracle) runs for every batch and Kernel compares every deltalite table with it after every batch;
 * Spark, the second reader, reads deltalite's tables after the first and the last batch of every
 * scenario and after the batches in between that this run samples. Each run draws a seed and prints
 * it; {@code -Dparity.seed=N} repeats a run's sample, {@code -Dparity.all=true} has Spark read
 * after every batch (the README, "Building and testing").
 */
final class ParitySample {
    /** The share of the batches between the first and the last that Spark reads after. */
    private static final double SHARE = 1.0 / 3;

    private static final boolean ALL = Boolean.getBoolean("parity.all");
    private static final long SEED = Long.getLong("parity.seed", new Random().nextLong());

    static {
        System.out.println(
                ALL
                        ? "Parity: Spark reads deltalite's tables after every batch (parity.all)"
                        : "Parity: Spark reads deltalite's tables after the first and the last batch"
                                + " of each scenario and a third of the others, sampled with"
                                + " -Dparity.seed="
                                + SEED
                                + " (-Dparity.all=true reads after every batch)");
    }

    private final Random random;

    private ParitySample(Random random) {
        this.random = random;
    }

    /** The sample of one scenario, the same for the same seed and scenario name. */
    static ParitySample of(String scenario) {
        return new ParitySample(new Random(SEED ^ scenario.hashCode()));
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
