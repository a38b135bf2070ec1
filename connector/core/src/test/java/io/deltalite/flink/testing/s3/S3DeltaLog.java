package io.deltalite.flink.testing.s3;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.deltalite.flink.testing.DeltaHistory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Reads the commit files of a table on S3 directly, as {@link DeltaHistory} does for local tables.
 */
public final class S3DeltaLog {
    private static final ObjectMapper JSON = new ObjectMapper();

    private S3DeltaLog() {}

    /** Every commit in the table's {@code _delta_log}, in version order. */
    public static List<DeltaHistory.Commit> commits(
            String location, Map<String, String> hadoopOptions) {
        Configuration conf = new Configuration();
        hadoopOptions.forEach(conf::set);
        Path log = new Path(location, "_delta_log");
        List<DeltaHistory.Commit> commits = new ArrayList<>();
        try {
            FileSystem fs = log.getFileSystem(conf);
            FileStatus[] files = fs.listStatus(log);
            Arrays.sort(files, Comparator.comparing(file -> file.getPath().getName()));
            for (FileStatus file : files) {
                String name = file.getPath().getName();
                if (name.matches("\\d{20}\\.json")) {
                    commits.add(commit(Long.parseLong(name.substring(0, 20)), read(fs, file)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the log of " + location + " failed", e);
        }
        return commits;
    }

    /** The names of the files in the table's {@code _delta_log}, in name order. */
    public static List<String> logFileNames(String location, Map<String, String> hadoopOptions) {
        Configuration conf = new Configuration();
        hadoopOptions.forEach(conf::set);
        Path log = new Path(location, "_delta_log");
        List<String> names = new ArrayList<>();
        try {
            for (FileStatus file : log.getFileSystem(conf).listStatus(log)) {
                names.add(file.getPath().getName());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("listing the log of " + location + " failed", e);
        }
        names.sort(null);
        return names;
    }

    /** The text of the commit file of {@code version}. */
    public static String commitText(
            String location, long version, Map<String, String> hadoopOptions) {
        Configuration conf = new Configuration();
        hadoopOptions.forEach(conf::set);
        Path file = new Path(location, String.format("_delta_log/%020d.json", version));
        try {
            FileSystem fs = file.getFileSystem(conf);
            return read(fs, fs.getFileStatus(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(FileSystem fs, FileStatus file) throws IOException {
        try (InputStream in = fs.open(file.getPath())) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static DeltaHistory.Commit commit(long version, String text) throws IOException {
        String appId = null;
        long txnVersion = -1;
        int adds = 0;
        int removes = 0;
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode action = JSON.readTree(line);
            if (action.has("txn")) {
                appId = action.get("txn").get("appId").asText();
                txnVersion = action.get("txn").get("version").asLong();
            } else if (action.has("add")) {
                adds++;
            } else if (action.has("remove")) {
                removes++;
            }
        }
        return new DeltaHistory.Commit(version, appId, txnVersion, adds, removes);
    }
}
