package io.deltalite.e2e.parity;

import io.deltalite.flink.testing.BuildSample;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs one scenario of each topic of a test class per build: where a topic has a scenario of
 * hand-written batches ({@link HandWrittenScenario}) and one of generated batches ({@link
 * GeneratedScenario}), the build's sample ({@link BuildSample}) draws which of the two runs, so
 * every topic is checked in every build and both of its scenarios over builds. A topic with a
 * single scenario always runs it. The other is reported as skipped, naming the seed and the command
 * that runs every scenario ({@code -Dtests.all=true}).
 */
final class ScenarioSample implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Optional<Method> method = context.getTestMethod();
        if (method.isEmpty() || topic(method.get()) == null) {
            return ConditionEvaluationResult.enabled("not a sampled parity scenario");
        }
        if (BuildSample.all()) {
            return ConditionEvaluationResult.enabled("tests.all: every scenario runs");
        }
        String topic = topic(method.get());
        String chosen = chosen(method.get().getDeclaringClass(), topic);
        return chosen.equals(method.get().getName())
                ? ConditionEvaluationResult.enabled(
                        "this build's scenario of \""
                                + topic
                                + "\" ("
                                + BuildSample.describe()
                                + ")")
                : ConditionEvaluationResult.disabled(
                        "this build checks \""
                                + topic
                                + "\" with "
                                + chosen
                                + " ("
                                + BuildSample.describe()
                                + "; -Dtests.all=true runs every scenario)");
    }

    /** The name of the scenario of {@code topic} in {@code testClass} that this build runs. */
    static String chosen(Class<?> testClass, String topic) {
        List<String> scenarios = new ArrayList<>();
        for (Method candidate : testClass.getDeclaredMethods()) {
            if (topic.equals(topic(candidate))) {
                scenarios.add(candidate.getName());
            }
        }
        scenarios.sort(Comparator.naturalOrder());
        return BuildSample.some(testClass.getName() + "/" + topic, scenarios, 1).get(0);
    }

    /** The topic {@code method} is a scenario of, or null. */
    private static String topic(Method method) {
        GeneratedScenario generated = method.getAnnotation(GeneratedScenario.class);
        if (generated != null) {
            return generated.value();
        }
        HandWrittenScenario handWritten = method.getAnnotation(HandWrittenScenario.class);
        return handWritten == null ? null : handWritten.value();
    }
}
