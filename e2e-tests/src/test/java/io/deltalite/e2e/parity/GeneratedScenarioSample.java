package io.deltalite.e2e.parity;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs the {@link GeneratedScenario}s of a test class that this run's sample holds: half of them
 * (rounded up), drawn from the run's seed and the class name, so that {@code -Dparity.seed=N}
 * repeats a run. The others are reported as skipped, with the seed and the command that runs them.
 */
final class GeneratedScenarioSample implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("not a test method");
        }
        Method method = context.getTestMethod().get();
        if (ParitySample.all()) {
            return ConditionEvaluationResult.enabled("parity.all: every generated scenario runs");
        }
        List<String> sample = sample(method.getDeclaringClass());
        return sample.contains(method.getName())
                ? ConditionEvaluationResult.enabled(
                        "in this run's sample of generated scenarios ("
                                + ParitySample.describe()
                                + ")")
                : ConditionEvaluationResult.disabled(
                        "not in this run's sample of generated scenarios ("
                                + ParitySample.describe()
                                + " runs "
                                + sample
                                + "; -Dparity.all=true runs every one)");
    }

    /** The names of the generated scenarios of {@code testClass} that this run runs. */
    static List<String> sample(Class<?> testClass) {
        List<String> generated = new ArrayList<>();
        for (Method candidate : testClass.getDeclaredMethods()) {
            if (candidate.isAnnotationPresent(GeneratedScenario.class)) {
                generated.add(candidate.getName());
            }
        }
        generated.sort(Comparator.naturalOrder());
        Collections.shuffle(generated, ParitySample.random(testClass.getName()));
        return List.copyOf(generated.subList(0, (generated.size() + 1) / 2));
    }
}
