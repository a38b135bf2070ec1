package io.deltalite.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.AbstractMap.SimpleEntry;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BuildSampleTest {
    private static final List<String> POINTS = List.of("write", "prepare", "commit", "after");
    private static final List<Integer> VARIANTS = List.of(1, 2, 3);

    @Test
    void everyItemRunsOnceAndEveryVariantAtLeastOnce() {
        for (int matrix = 0; matrix < 50; matrix++) {
            List<Map.Entry<String, Integer>> cases =
                    BuildSample.eachWithOneOf("m" + matrix, POINTS, VARIANTS, SimpleEntry::new);
            Set<Integer> variants = new HashSet<>();
            cases.forEach(c -> variants.add(c.getValue()));
            assertThat(variants).containsExactlyInAnyOrderElementsOf(VARIANTS);
            if (BuildSample.all()) {
                assertThat(cases).hasSize(POINTS.size() * VARIANTS.size()).doesNotHaveDuplicates();
            } else {
                assertThat(cases).extracting(Map.Entry::getKey).isEqualTo(POINTS);
            }
        }
    }

    @Test
    void overMatricesEveryCombinationRuns() {
        Set<Map.Entry<String, Integer>> seen = new HashSet<>();
        for (int matrix = 0; matrix < 200; matrix++) {
            seen.addAll(
                    BuildSample.eachWithOneOf("m" + matrix, POINTS, VARIANTS, SimpleEntry::new));
        }
        assertThat(seen).hasSize(POINTS.size() * VARIANTS.size());
    }

    @Test
    void someKeepsTheCountAsked() {
        Set<List<String>> samples = new HashSet<>();
        for (int matrix = 0; matrix < 50; matrix++) {
            List<String> sample = BuildSample.some("s" + matrix, POINTS, 2);
            assertThat(POINTS).containsAll(sample);
            assertThat(sample).doesNotHaveDuplicates();
            assertThat(sample)
                    .as("in the given order")
                    .isSortedAccordingTo(
                            (a, b) -> Integer.compare(POINTS.indexOf(a), POINTS.indexOf(b)));
            assertThat(sample).hasSize(BuildSample.all() ? POINTS.size() : 2);
            samples.add(sample);
        }
        assertThat(samples)
                .as("different matrices draw differently")
                .hasSize(BuildSample.all() ? 1 : 6);
    }

    @Test
    void theSameMatrixDrawsTheSameInOneRun() {
        assertThat(BuildSample.eachWithOneOf("same", POINTS, VARIANTS, SimpleEntry::new))
                .isEqualTo(BuildSample.eachWithOneOf("same", POINTS, VARIANTS, SimpleEntry::new));
        assertThat(BuildSample.some("same", POINTS, 2))
                .isEqualTo(BuildSample.some("same", POINTS, 2));
    }
}
