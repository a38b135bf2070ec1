package io.deltalite.flink.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that measures (BENCHMARKS.md): tagged {@code benchmark}, so the build's test run leaves it
 * out, and refused in a JVM whose figures would not be the product's ({@link MeasuringJvm}).
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Tag("benchmark")
@ExtendWith(MeasuringJvm.class)
public @interface Benchmark {}
