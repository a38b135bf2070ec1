package io.deltalite.flink.internal.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.delta.table.KernelTableReader;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableSchema;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Field;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.sink.WriteMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MergeWarmUpTest {
    private static final int ROUNDS = 3;
    private static final int CHANGES = 2_000;

    @TempDir Path dir;

    /** A table of every type the engine writes, partitioned, with a key of two columns. */
    private static TableSchema everyType() {
        List<Field> columns = new ArrayList<>();
        columns.add(new Field("id", ValueType.of(Kind.BIGINT), false));
        columns.add(new Field("name", ValueType.of(Kind.STRING), false));
        columns.add(new Field("region", ValueType.of(Kind.STRING), true));
        for (Kind kind : Kind.values()) {
            columns.add(new Field("c_" + kind.name().toLowerCase(), ValueType.of(kind), true));
        }
        columns.add(new Field("small_decimal", new ValueType.Decimal(5, 2), true));
        columns.add(new Field("wide_decimal", new ValueType.Decimal(38, 10), true));
        columns.add(
                new Field(
                        "nested",
                        new ValueType.Struct(
                                List.of(
                                        new Field("a", ValueType.of(Kind.INT), true),
                                        new Field(
                                                "tags",
                                                new ValueType.Array(
                                                        ValueType.of(Kind.STRING), true),
                                                true))),
                        true));
        columns.add(
                new Field(
                        "attributes",
                        new ValueType.Map(
                                ValueType.of(Kind.STRING), ValueType.of(Kind.DOUBLE), true),
                        true));
        return new TableSchema(columns, List.of("id", "name", "region"), List.of("region"));
    }

    @Test
    void everyCheckpointOfMadeUpChangesIsMergedWithDeletionVectorsAndCommittedOnce() {
        Path table = dir.resolve("table");
        MergeWarmUp.Result result =
                MergeWarmUp.runIn(
                        table,
                        everyType(),
                        true,
                        MergeOptions.DEFAULTS.withWriteMode(WriteMode.DELETION_VECTORS),
                        () -> false,
                        ROUNDS,
                        CHANGES);

        assertThat(result.checkpoints()).isEqualTo(ROUNDS);
        assertThat(result.changes()).isEqualTo((long) ROUNDS * CHANGES);
        // the table's creation, then one commit per checkpoint
        assertThat(KernelTableReader.latestVersion(table.toString())).isEqualTo(ROUNDS);
        List<Object[]> rows = KernelTableReader.readAll(table.toString());
        Set<Long> ids = new HashSet<>();
        rows.forEach(row -> assertThat(ids.add((Long) row[0])).as("id %s once", row[0]).isTrue());
        // 2,000 inserts, then about 800 new keys and 200 deletes in each later round
        assertThat(rows.size()).isBetween(2_500, 4_500);
        // updates marked old rows instead of rewriting their files
        assertThat(filesNamed(table, "deletion_vector_")).isNotEmpty();
    }

    @Test
    void copyOnWriteAndAnAppendOnlyTableAreWarmedUpToo() {
        TableSchema appendOnly =
                new TableSchema(
                        List.of(
                                new Field("event", ValueType.of(Kind.STRING), false),
                                new Field("at", ValueType.of(Kind.TIMESTAMP), true)),
                        List.of(),
                        List.of());
        MergeWarmUp.Result appended =
                MergeWarmUp.runIn(
                        dir.resolve("append-only"),
                        appendOnly,
                        false,
                        MergeOptions.DEFAULTS,
                        () -> false,
                        ROUNDS,
                        CHANGES);
        MergeWarmUp.Result copied =
                MergeWarmUp.runIn(
                        dir.resolve("copy-on-write"),
                        everyType(),
                        false,
                        MergeOptions.DEFAULTS.withWriteMode(WriteMode.COPY_ON_WRITE),
                        () -> false,
                        ROUNDS,
                        CHANGES);

        assertThat(KernelTableReader.readAll(dir.resolve("append-only").toString()))
                .hasSize(ROUNDS * CHANGES);
        assertThat(appended.checkpoints()).isEqualTo(ROUNDS);
        assertThat(copied.checkpoints()).isEqualTo(ROUNDS);
        assertThat(filesNamed(dir.resolve("copy-on-write"), "deletion_vector_")).isEmpty();
    }

    @Test
    void theSinksFirstCheckpointStopsItBeforeItsNextCommitAndNothingIsLeftBehind()
            throws IOException {
        AtomicInteger asked = new AtomicInteger();
        // asked before each round and after buffering it: the fourth answer stops round 2
        MergeWarmUp.Result result =
                MergeWarmUp.run(
                        dir,
                        everyType(),
                        true,
                        MergeOptions.DEFAULTS,
                        () -> asked.incrementAndGet() > 3,
                        ROUNDS,
                        CHANGES);

        assertThat(result.checkpoints()).isEqualTo(1);
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("what the warm-up left in its parent directory").isEmpty();
        }
    }

    @Test
    void aWarmUpThatRanToTheEndLeavesNothingBehind() throws IOException {
        MergeWarmUp.Result result =
                MergeWarmUp.run(
                        dir,
                        everyType(),
                        true,
                        MergeOptions.DEFAULTS,
                        () -> false,
                        ROUNDS,
                        CHANGES);

        assertThat(result.checkpoints()).isEqualTo(ROUNDS);

        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void directoriesThatADeadJvmLeftAreDeletedAfterAnHourAndNothingElse() throws IOException {
        long twoHoursAgo = System.currentTimeMillis() - 2 * 3_600_000L;
        Path left = Files.createDirectories(dir.resolve(MergeWarmUp.DIRECTORY_PREFIX + "1/table"));
        Files.writeString(left.resolve("part-0.parquet"), "made up");
        Files.setLastModifiedTime(left.getParent(), FileTime.fromMillis(twoHoursAgo));
        Path running = Files.createDirectories(dir.resolve(MergeWarmUp.DIRECTORY_PREFIX + "2"));
        Path someoneElses = Files.createDirectories(dir.resolve("deltalite-table"));
        Files.setLastModifiedTime(someoneElses, FileTime.fromMillis(twoHoursAgo));

        MergeWarmUp.deleteLeftBehind(dir);

        assertThat(left.getParent()).doesNotExist();
        assertThat(running).exists();
        assertThat(someoneElses).exists();
    }

    private static List<Path> filesNamed(Path table, String prefix) {
        try (Stream<Path> files = Files.walk(table)) {
            return files.filter(path -> path.getFileName().toString().startsWith(prefix)).toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
