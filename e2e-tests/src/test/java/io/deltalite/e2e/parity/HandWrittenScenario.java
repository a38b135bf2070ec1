package io.deltalite.e2e.parity;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a parity scenario of hand-written batches, and names its topic: the scenarios of one topic
 * (this one and a {@link GeneratedScenario}) take turns between builds ({@link ScenarioSample}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ScenarioSample.class)
@interface HandWrittenScenario {
    /** What the scenario checks, the same words as its generated twin's. */
    String value();
}
