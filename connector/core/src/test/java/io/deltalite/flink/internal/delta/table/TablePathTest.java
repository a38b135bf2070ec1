package io.deltalite.flink.internal.delta.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.storage.StorageSettings;
import io.deltalite.flink.testing.Rows;
import io.deltalite.flink.testing.UpsertHarness;
import io.deltalite.flink.testing.s3.S3ProxyExtension;
import io.deltalite.flink.testing.s3.S3UpsertHarness;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Table locations with spaces, non-ASCII characters and percent signs mean what they mean to
 * Hadoop, and so to Delta and Spark: the string is a path, {@code sp%20ace} a folder named so. The
 * log, every data file and the partition folders lie inside that folder, and the log names files by
 * relative paths.
 */
class TablePathTest {
    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final TableDefinition ORDERS =
            new TableDefinition(
                    List.of(
                            new ValueType.Field("id", ValueType.of(Kind.BIGINT), false),
                            new ValueType.Field("day", ValueType.of(Kind.STRING), true),
                            new ValueType.Field("amount", ValueType.of(Kind.INT), true)),
                    List.of("id"),
                    List.of("day"),
                    Map.of());

    private static final Pattern ADD_PATH = Pattern.compile("\"add\":\\{\"path\":\"([^\"]*)\"");

    @TempDir Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "/plain/t",
                "/sp ace ünï✓/t",
                "file:///sp ace/t",
                "file:///sp%20ace2",
                "file:///ünï✓/t"
            })
    void aLocalTableAtAnUnusualPathRoundTrips(String suffix) throws IOException {
        String location =
                suffix.startsWith("file://")
                        ? "file://" + dir + suffix.substring("file://".length())
                        : dir + suffix;
        Path folder = Path.of(new org.apache.hadoop.fs.Path(location).toUri().getPath());
        try (UpsertHarness harness = UpsertHarness.open(location, ORDERS, MergeOptions.DEFAULTS)) {
            twoCommits(harness);
            assertThat(Rows.sorted(harness.read())).isEqualTo(Rows.sorted(expected()));
            assertThat(harness.table().latestSnapshot().commitsAfter(0))
                    .hasValueSatisfying(commits -> assertThat(commits).hasSize(2));
        }
        assertThat(folder.resolve("_delta_log")).isDirectory();
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> data =
                    files.filter(file -> file.toString().endsWith(".parquet"))
                            .filter(file -> !file.toString().contains("_delta_log"))
                            .toList();
            assertThat(data).isNotEmpty().allMatch(file -> file.startsWith(folder));
            assertThat(data)
                    .as("partition folders are named as Spark names them")
                    .anyMatch(file -> file.getParent().getFileName().toString().equals("day=d 1"));
        }
        List<String> addPaths = new ArrayList<>();
        try (Stream<Path> commits = Files.list(folder.resolve("_delta_log"))) {
            for (Path commit :
                    commits.filter(f -> f.getFileName().toString().matches("\\d{20}\\.json"))
                            .toList()) {
                addPaths.addAll(addPaths(Files.readString(commit)));
            }
        }
        assertRelative(addPaths);
    }

    @ParameterizedTest(name = "s3a://bucket{0}")
    @ValueSource(strings = {"/sp ace/t", "/sp%20ace2", "/ünï✓/t"})
    void anS3TableAtAnUnusualPathRoundTrips(String suffix) throws IOException {
        String bucket = S3.server().createBucket();
        String location = "s3a://" + bucket + suffix;
        Map<String, String> options = S3.server().hadoopOptions();
        try (S3UpsertHarness harness =
                S3UpsertHarness.open(
                        location,
                        StorageSettings.of(options),
                        ORDERS,
                        MergeOptions.DEFAULTS,
                        "harness")) {
            harness.upsert(1L, "d 1", 10);
            harness.upsert(2L, "d2", 20);
            harness.commit();
            harness.upsert(1L, "d 1", 11);
            harness.delete(2L, "d2", null);
            harness.upsert(3L, "d2", 30);
            harness.commit();
        }
        assertThat(Rows.sorted(KernelTableReader.readAll(location, options)))
                .isEqualTo(Rows.sorted(expected()));
        Configuration conf = new Configuration();
        options.forEach(conf::set);
        org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path("s3a://" + bucket + "/");
        FileSystem fs = root.getFileSystem(conf);
        String tableKey = new org.apache.hadoop.fs.Path(location).toUri().getPath();
        List<String> addPaths = new ArrayList<>();
        RemoteIterator<LocatedFileStatus> objects = fs.listFiles(root, true);
        while (objects.hasNext()) {
            org.apache.hadoop.fs.Path object = objects.next().getPath();
            String key = object.toUri().getPath();
            assertThat(key).as("every object lies under the table").startsWith(tableKey + "/");
            if (key.matches(".*_delta_log/\\d{20}\\.json")) {
                try (InputStream in = fs.open(object)) {
                    addPaths.addAll(
                            addPaths(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
                }
            }
        }
        assertRelative(addPaths);
    }

    private static void twoCommits(UpsertHarness harness) {
        harness.upsert(1L, "d 1", 10);
        harness.upsert(2L, "d2", 20);
        harness.commit();
        harness.upsert(1L, "d 1", 11);
        harness.delete(2L, "d2", null);
        harness.upsert(3L, "d2", 30);
        harness.commit();
    }

    private static List<Object[]> expected() {
        return List.of(new Object[] {1L, "d 1", 11}, new Object[] {3L, "d2", 30});
    }

    private static List<String> addPaths(String commit) {
        List<String> paths = new ArrayList<>();
        Matcher matcher = ADD_PATH.matcher(commit);
        while (matcher.find()) {
            paths.add(matcher.group(1));
        }
        return paths;
    }

    private static void assertRelative(List<String> addPaths) {
        assertThat(addPaths)
                .isNotEmpty()
                .allMatch(path -> !path.contains(":") && !path.startsWith("/"), "relative")
                .noneMatch(path -> path.contains("%25"));
    }
}
