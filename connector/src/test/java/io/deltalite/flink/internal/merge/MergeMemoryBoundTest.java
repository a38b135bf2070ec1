package io.deltalite.flink.internal.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory of a merge does not grow with the partition: a JVM with a 128 MiB heap merges a
 * partition of about 500 MiB of incompressible data, rewriting every file of it (see {@link
 * LargePartitionMerge}, which runs in that JVM).
 */
class MergeMemoryBoundTest {
    private static final String HEAP = "128m";
    private static final long ROWS = 500_000;
    private static final int UPSERTS = 5_000;

    @TempDir Path dir;

    @Test
    void aPartitionSeveralTimesLargerThanTheHeapIsMergedInIt()
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + HEAP);
        // An OutOfMemoryError in any thread ends the JVM instead of being swallowed.
        command.add("-XX:+ExitOnOutOfMemoryError");
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("--add-opens")) {
                command.add(argument);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(LargePartitionMerge.class.getName());
        command.add(dir.resolve("table").toString());
        command.add(Long.toString(ROWS));
        command.add(Integer.toString(UPSERTS));

        Process child =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("output.txt").toFile())
                        .start();
        boolean finished = child.waitFor(5, TimeUnit.MINUTES);
        if (!finished) {
            child.destroyForcibly().waitFor();
        }
        String output =
                new String(
                        java.nio.file.Files.readAllBytes(dir.resolve("output.txt")),
                        StandardCharsets.UTF_8);
        if (!finished || child.exitValue() != 0) {
            fail(
                    "The merge in a JVM with -Xmx%s %s. Its output:%n%s",
                    HEAP,
                    finished ? "exited with " + child.exitValue() : "did not finish in 5 minutes",
                    output);
        }
        // The table really is several times larger than the heap.
        assertThat(output).containsPattern("wrote 500000 rows in \\d+ files, (4|5|6)\\d\\d MiB");
        assertThat(output).contains("verified 500000 rows");
    }
}
