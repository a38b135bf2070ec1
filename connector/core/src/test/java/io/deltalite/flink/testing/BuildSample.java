package io.deltalite.flink.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;

/**
 * Which cases of the build's largest test matrices a run runs. A matrix whose every case costs a
 * Flink job, a Spark {@code MERGE} or a long random sequence runs a sample in the default build,
 * drawn from a seed that each test JVM prints once in its output ("Test sample: ...
 * -Dtests.seed=N", in {@code target/surefire-reports/*-output.txt}), so {@code -Dtests.seed=N}
 * repeats a run's sample exactly, and {@code -Dtests.all=true} runs every case of every matrix (the
 * README, "Building and testing"). The samples are built so that every dimension of a matrix is
 * still covered in every run ({@link #eachWithOneOf}); only the combinations rotate between runs.
 */
public final class BuildSample {
    private static final boolean ALL = Boolean.getBoolean("tests.all");
    private static final long SEED = Long.getLong("tests.seed", new Random().nextLong());

    static {
        System.out.println(
                ALL
                        ? "Test sample: every case of every sampled matrix runs (tests.all)"
                        : "Test sample: the large test matrices run a sample drawn with"
                                + " -Dtests.seed="
                                + SEED
                                + " (-Dtests.all=true runs every case)");
    }

    private BuildSample() {}

    /** Whether this run runs every case of every matrix. */
    public static boolean all() {
        return ALL;
    }

    /** The run's sample, for messages: {@code tests.seed=N}, or {@code tests.all}. */
    public static String describe() {
        return ALL ? "tests.all" : "tests.seed=" + SEED;
    }

    /** Random numbers for {@code name}, the same for the same seed and name in every JVM. */
    public static Random random(String name) {
        // Mixed: java.util.Random draws alike first numbers from seeds that differ a little, as
        // the hash codes of names like "m1" and "m2" do.
        return new Random(mix(mix(SEED) + name.hashCode()));
    }

    /** A 64-bit finalizer (the one of MurmurHash3): nearby inputs give unrelated outputs. */
    private static long mix(long value) {
        long z = value;
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /**
     * {@code count} of {@code cases} (all of them under {@code tests.all}), drawn for {@code
     * matrix}, in their given order.
     */
    public static <T> List<T> some(String matrix, List<T> cases, int count) {
        if (ALL || count >= cases.size()) {
            return List.copyOf(cases);
        }
        List<Integer> indexes = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            indexes.add(i);
        }
        Collections.shuffle(indexes, random(matrix));
        List<Integer> kept = new ArrayList<>(indexes.subList(0, count));
        kept.sort(null);
        List<T> sample = new ArrayList<>();
        kept.forEach(i -> sample.add(cases.get(i)));
        return sample;
    }

    /**
     * Each of {@code each} once, combined with one of {@code variants} (under {@code tests.all},
     * with every variant): the variants are shuffled and dealt out in turn, so when there are at
     * least as many items as variants every variant runs too, and over runs every combination.
     */
    public static <T, V, R> List<R> eachWithOneOf(
            String matrix, List<T> each, List<V> variants, BiFunction<T, V, R> combine) {
        List<R> cases = new ArrayList<>();
        if (ALL) {
            for (V variant : variants) {
                for (T item : each) {
                    cases.add(combine.apply(item, variant));
                }
            }
            return cases;
        }
        List<V> dealt = new ArrayList<>(variants);
        Collections.shuffle(dealt, random(matrix));
        for (int i = 0; i < each.size(); i++) {
            cases.add(combine.apply(each.get(i), dealt.get(i % dealt.size())));
        }
        return cases;
    }
}
