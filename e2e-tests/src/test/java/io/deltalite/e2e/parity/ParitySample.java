package io.deltalite.e2e.parity;

import io.deltalite.flink.testing.BuildSample;
import java.util.Random;

/**
 * Which batches of a scenario Spark reads deltalite's tables after, drawn from the build's sample
 * ({@link BuildSample}; which scenarios run is {@link ScenarioSample}'s). Spark's MERGE (the
 * oracle) runs for every batch and Kernel compares every deltalite table with it after every batch;
 * Spark, the second reader, reads deltalite's tables after the first and the last batch of every
 * scenario and after a third of the batches in between. {@code -Dtests.seed=N} repeats a build's
 * sample, {@code -Dtests.all=true} has Spark read after every batch (and runs every scenario).
 */
final class ParitySample {
    /** The share of the batches between the first and the last that Spark reads after. */
    private static final double SHARE = 1.0 / 3;

    private final Random random;

    private ParitySample(Random random) {
        this.random = random;
    }

    /** The sample of one scenario, the same for the same seed and scenario name. */
    static ParitySample of(String scenario) {
        return new ParitySample(BuildSample.random(scenario));
    }

    /** The build's sample, for the messages of failed comparisons. */
    static String describe() {
        return BuildSample.describe();
    }

    /**
     * Whether Spark reads deltalite's tables after {@code batch} (1 for the first), a batch that
     * may not be the last. Draws exactly one number per call, so that a scenario's sample depends
     * only on the seed.
     */
    boolean sparkReadsAfter(int batch) {
        boolean drawn = random.nextDouble() < SHARE;
        return BuildSample.all() || batch == 1 || drawn;
    }
}
