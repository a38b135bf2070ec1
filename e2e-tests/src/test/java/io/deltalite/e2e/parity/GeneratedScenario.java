package io.deltalite.e2e.parity;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a parity scenario of generated batches. Each run of the suite runs half of a class's
 * generated scenarios, a sample drawn from the run's seed ({@link ParitySample}); every scenario of
 * hand-written batches runs in every run. {@code -Dparity.all=true} runs them all.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(GeneratedScenarioSample.class)
@interface GeneratedScenario {}
