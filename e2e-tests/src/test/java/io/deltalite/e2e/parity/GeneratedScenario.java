package io.deltalite.e2e.parity;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a parity scenario of generated batches, and names its topic: the scenarios of one topic
 * (this one and a {@link HandWrittenScenario}) take turns between builds ({@link ScenarioSample}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ScenarioSample.class)
@interface GeneratedScenario {
    /** What the scenario checks, the same words as its hand-written twin's. */
    String value();
}
