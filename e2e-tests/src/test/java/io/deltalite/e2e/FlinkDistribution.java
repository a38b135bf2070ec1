package io.deltalite.e2e;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The Flink "distribution" the build assembles under {@code target/flink-dist} from Maven Central:
 * Flink's own jars in {@code lib/} (plus deltalite's drop-in SQL jar) and {@code opt/}, as in a
 * downloaded Flink.
 */
public final class FlinkDistribution {
    private final Path home;

    private FlinkDistribution(Path home) {
        this.home = home;
    }

    public static FlinkDistribution assembledByTheBuild() {
        String dist = System.getProperty("flink.dist");
        if (dist == null || !Files.isDirectory(Paths.get(dist, "lib"))) {
            throw new IllegalStateException(
                    "No Flink distribution at "
                            + dist
                            + "; run the tests through Maven ("
                            + "the build assembles it in generate-test-resources).");
        }
        return new FlinkDistribution(Paths.get(dist));
    }

    public Path lib() {
        return home.resolve("lib");
    }

    Path opt() {
        return home.resolve("opt");
    }

    public List<Path> jars(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The class path of lib/ and of the given opt/ jars. */
    String classPath(String... optJarPrefixes) {
        List<String> entries = new ArrayList<>();
        jars(lib()).forEach(jar -> entries.add(jar.toString()));
        for (Path jar : jars(opt())) {
            for (String prefix : optJarPrefixes) {
                if (jar.getFileName().toString().startsWith(prefix)) {
                    entries.add(jar.toString());
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    public static String javaBinary() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    static List<String> jvmOptions() {
        return List.of(
                "-Xmx1g",
                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--add-opens=java.base/java.util=ALL-UNNAMED",
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");
    }
}
