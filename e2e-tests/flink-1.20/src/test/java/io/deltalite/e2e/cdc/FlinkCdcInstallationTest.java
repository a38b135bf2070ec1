package io.deltalite.e2e.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.e2e.FlinkDistribution;
import io.deltalite.flink.cdc.MiniClusterPipeline;
import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.testing.Rows;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the README tells a Flink CDC user to do: put deltalite's pipeline bundle jar in Flink CDC's
 * {@code lib/}. A pipeline runs as Flink CDC's command line runs one with {@code
 * --use-mini-cluster}: one JVM whose class path is Flink 1.20's {@code lib/} and Flink CDC's {@code
 * lib/} (Flink CDC's runtime with its libraries, and the bundle), the sink found by its identifier,
 * its jar shipped to the tasks as a job jar ({@link MiniClusterPipeline}). The bundle is the only
 * deltalite code there: it must hold everything the sink needs and clash with nothing Flink, Flink
 * CDC or Flink CDC's PostgreSQL jar bring.
 */
class FlinkCdcInstallationTest {
    private static final long SEED = 20261205L;
    private static final int CHANGES_PER_PHASE = 150;

    @TempDir Path dir;

    @Test
    void aPipelineWithTheBundleInFlinkCdcLibWritesEveryTable() throws Exception {
        FlinkDistribution flink = FlinkDistribution.assembledByTheBuild();
        List<String> classPath = new ArrayList<>();
        for (Path jar : flink.jars(flink.lib())) {
            // Flink's lib/ as the README leaves it for a pipeline: deltalite's SQL drop-in jar is
            // not needed there (the bundle holds it), Flink CDC's PostgreSQL jar may well be.
            if (!jar.getFileName().toString().startsWith("deltalite")) {
                classPath.add(jar.toString());
            }
        }
        List<String> flinkCdcLib = flinkCdcLib();
        assertThat(flinkCdcLib)
                .filteredOn(jar -> jar.contains("deltalite"))
                .extracting(jar -> Paths.get(jar).getFileName().toString())
                .as("deltalite jars in Flink CDC's lib/: the bundle, and the composer's stand-in")
                .hasSize(2)
                .anyMatch(jar -> jar.endsWith("-bundle.jar"))
                .anyMatch(jar -> jar.endsWith("-tests.jar"));
        classPath.addAll(flinkCdcLib);

        Path root = dir.resolve("lake");
        List<String> command = new ArrayList<>();
        command.add(FlinkDistribution.javaBinary());
        command.addAll(FlinkDistribution.jvmOptions());
        command.addAll(
                List.of(
                        "-cp",
                        String.join(File.pathSeparator, classPath),
                        MiniClusterPipeline.class.getName(),
                        root.toString(),
                        Long.toString(SEED),
                        Integer.toString(CHANGES_PER_PHASE)));
        Path output = dir.resolve("pipeline.log");
        Process pipeline =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(output.toFile())
                        .start();
        boolean finished = pipeline.waitFor(3, TimeUnit.MINUTES);
        if (!finished) {
            pipeline.destroyForcibly().waitFor();
        }
        String log = Files.readString(output);
        assertThat(finished).as("the pipeline finished; its output:%n%s", log).isTrue();
        assertThat(pipeline.exitValue()).as("exit code; output:%n%s", log).isZero();

        Map<String, Collection<Object[]>> expected =
                MiniClusterPipeline.expectedTables(SEED, CHANGES_PER_PHASE);
        assertThat(expected).hasSize(3);
        for (Map.Entry<String, Collection<Object[]>> table : expected.entrySet()) {
            assertThat(table.getValue())
                    .as("rows of %s in the script", table.getKey())
                    .isNotEmpty();
            assertThat(
                            Rows.sorted(
                                    KernelTableReader.readAll(
                                            root.resolve(table.getKey()).toString())))
                    .as("rows of %s", table.getKey())
                    .isEqualTo(Rows.sorted(table.getValue()));
        }
    }

    /** The class path ./flink-cdc-home wrote: Flink CDC's lib/ of this test. */
    private static List<String> flinkCdcLib() throws Exception {
        String file = System.getProperty("flink.cdc.classpath");
        assertThat(file).as("system property flink.cdc.classpath (set by the build)").isNotNull();
        return Arrays.asList(Files.readString(Paths.get(file)).trim().split(File.pathSeparator));
    }
}
