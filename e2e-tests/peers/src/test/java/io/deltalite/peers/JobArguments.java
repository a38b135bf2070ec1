package io.deltalite.peers;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * What the harness tells a child JVM ({@code key=value} arguments) and what the child reports back
 * (a properties file): plain strings both ways, so the harness needs no system's classes.
 */
final class JobArguments {
    private final Map<String, String> values;

    JobArguments(Map<String, String> values) {
        this.values = new LinkedHashMap<>(values);
    }

    static JobArguments parse(String[] args) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String arg : args) {
            int equals = arg.indexOf('=');
            if (equals < 0) {
                throw new IllegalArgumentException("expected key=value, got " + arg);
            }
            values.put(arg.substring(0, equals), arg.substring(equals + 1));
        }
        return new JobArguments(values);
    }

    List<String> toArgs() {
        List<String> args = new ArrayList<>();
        values.forEach((key, value) -> args.add(key + "=" + value));
        return args;
    }

    JobArguments with(String key, Object value) {
        JobArguments copy = new JobArguments(values);
        copy.values.put(key, String.valueOf(value));
        return copy;
    }

    String get(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("argument " + key + " missing from " + values);
        }
        return value;
    }

    long getLong(String key) {
        return Long.parseLong(get(key));
    }

    double getDouble(String key) {
        return Double.parseDouble(get(key));
    }

    Path getPath(String key) {
        return Path.of(get(key));
    }

    /** Writes a child's results where the harness reads them. */
    static void report(Path file, Map<String, Object> results) {
        Properties properties = new Properties();
        results.forEach((key, value) -> properties.setProperty(key, String.valueOf(value)));
        try (Writer out = Files.newBufferedWriter(file)) {
            properties.store(out, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JobArguments readReport(Path file) {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> values = new LinkedHashMap<>();
        properties
                .stringPropertyNames()
                .forEach(key -> values.put(key, properties.getProperty(key)));
        return new JobArguments(values);
    }

    /** The JVM's peak resident set so far ({@code VmHWM}), or -1 where /proc is missing. */
    static long peakRssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }
}
