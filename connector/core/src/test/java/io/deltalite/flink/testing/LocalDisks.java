package io.deltalite.flink.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Real size-limited local file systems (tmpfs) for tests, where the machine allows a mount. */
public final class LocalDisks {
    private LocalDisks() {}

    /** Mounts a tmpfs with {@code options} (for example {@code size=1m}) at {@code where}. */
    public static boolean mount(Path where, String options) throws Exception {
        return run("mount", "-t", "tmpfs", "-o", options, "tmpfs", where.toString());
    }

    /** Unmounts {@code where}, detaching it lazily if it is busy: no mount outlives its test. */
    public static void unmount(Path where) throws Exception {
        if (!run("umount", where.toString())) {
            run("umount", "-l", where.toString());
        }
    }

    /** Runs {@code command}; true if it exited with 0 within 30 seconds. */
    public static boolean run(String... command) throws Exception {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** The files this JVM holds open below {@code folder} (empty where /proc is missing). */
    public static List<String> openFilesUnder(Path folder) throws IOException {
        List<String> open = new ArrayList<>();
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return open;
        }
        String prefix = folder.toRealPath().toString();
        try (Stream<Path> links = Files.list(fds)) {
            for (Path link : (Iterable<Path>) links::iterator) {
                try {
                    String target = Files.readSymbolicLink(link).toString();
                    if (target.startsWith(prefix)) {
                        open.add(target);
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor closed while listing
                }
            }
        }
        return open;
    }
}
