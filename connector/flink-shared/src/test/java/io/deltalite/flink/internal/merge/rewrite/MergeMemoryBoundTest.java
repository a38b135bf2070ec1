package io.deltalite.flink.internal.merge.rewrite;

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
 * The memory of a merge does not grow with the partition: a JVM with a 160 MiB heap merges a
 * partition of about 500 MiB of incompressible data, rewriting every file of it (see {@link
 * LargePartitionMerge}, which runs in that JVM).
 */
class MergeMemoryBoundTest {
    /**
     * 128 MiB sufficed for uncompressed files; with zstd (the default) the codec's buffers and its
     * JNI critical regions made runs at 128 MiB fail now and then on a loaded machine
     * (BENCHMARKS.md §9), so the bound is 160 MiB — still a third of the partition.
     */
    private static final String HEAP = "160m";

    private static final long ROWS = 500_000;
    private static final int UPSERTS = 5_000;

    @TempDir Path dir;

    @Test
    void aPartitionSeveralTimesLargerThanTheHeapIsMergedInIt()
            throws IOException, InterruptedException {
        String output =
                runInHeap(
                        HEAP,
                        LargePartitionMerge.class,
                        dir.resolve("table").toString(),
                        Long.toString(ROWS),
                        Integer.toString(UPSERTS));
        // The table really is several times larger than the heap.
        assertThat(output).containsPattern("wrote 500000 rows in \\d+ files, (4|5|6)\\d\\d MiB");
        assertThat(output).contains("verified 500000 rows");
    }

    /**
     * One checkpoint deletes millions of keys with the default knobs in a small heap, and is merged
     * again from its staged keys: the deleted keys live in files, not in state or in memory. The
     * full-size run (20 million keys in a 1 GiB heap) is {@code -Ddeletes.rows=20000000
     * -Ddeletes.heap=1g}.
     */
    @Test
    void aCheckpointDeletingMillionsOfKeysRunsWithTheDefaultKnobsInASmallHeap()
            throws IOException, InterruptedException {
        long rows = Long.getLong("deletes.rows", 2_000_000);
        String output =
                runInHeap(
                        System.getProperty("deletes.heap", "256m"),
                        ManyDeletesMerge.class,
                        dir.resolve("deletes").toString(),
                        Long.toString(rows));
        System.out.println(output);
        assertThat(output).contains("verified " + (rows + 999) / 1000 + " rows");
    }

    /** Runs {@code main} in a JVM with heap {@code heap}; fails unless it exits with 0. */
    private String runInHeap(String heap, Class<?> main, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + heap);
        // An OutOfMemoryError in any thread ends the JVM instead of being swallowed.
        command.add("-XX:+ExitOnOutOfMemoryError");
        // zstd and snappy decompress inside JNI critical regions, which hold off the collector; on
        // JDK 17 an allocation that waits for them more than twice fails as "heap space" though
        // the heap is not full (the log says "Retried waiting for GCLocker too often"). This
        // test measures what the merge holds, so it lets allocations wait longer; README's
        // Memory section tells users what the default means for a nearly full heap.
        command.add("-XX:+UnlockDiagnosticVMOptions");
        command.add("-XX:GCLockerRetryAllocationCount=50");
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("--add-opens")) {
                command.add(argument);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        Path log = dir.resolve(main.getSimpleName() + ".txt");
        Process child =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        boolean finished = child.waitFor(15, TimeUnit.MINUTES);
        if (!finished) {
            child.destroyForcibly().waitFor();
        }
        String output = new String(java.nio.file.Files.readAllBytes(log), StandardCharsets.UTF_8);
        if (!finished || child.exitValue() != 0) {
            fail(
                    "%s in a JVM with -Xmx%s %s. Its output:%n%s",
                    main.getSimpleName(),
                    heap,
                    finished ? "exited with " + child.exitValue() : "did not finish in time",
                    output);
        }
        return output;
    }
}
