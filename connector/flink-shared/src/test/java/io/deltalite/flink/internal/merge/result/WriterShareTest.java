package io.deltalite.flink.internal.merge.result;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.value.DataFile;
import io.deltalite.flink.internal.merge.value.KeyGroups;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How writers sharing partitions tell files apart, and who compacts a shared file. */
class WriterShareTest {
    private static final String SCHEME = "0123abcd";

    /**
     * Files written at {@code before} writers, read by {@code after}: each file is own to exactly
     * one writer, or shared by several of which exactly one compacts it — never compacted by
     * nobody, never by two. Also files with no range (written before the sink was keyed).
     */
    @ParameterizedTest(name = "{0} writers, then {1}")
    @CsvSource({"2, 4", "2, 3", "4, 3", "3, 2", "1, 4"})
    void everyFileIsCompactedByExactlyOneWriterAfterARescale(int before, int after) {
        List<WriterShare> writers = writers(after);
        List<DataFile> files = new ArrayList<>();
        for (int writer = 0; writer < before; writer++) {
            KeyGroups range = range(writer, before);
            for (int n = 0; n < 50; n++) {
                files.add(DataFile.atPath("file:/t/day=a/" + range.folder() + "/" + name()));
            }
        }
        for (int n = 0; n < 50; n++) {
            files.add(DataFile.atPath("file:/t/day=a/" + name()));
        }
        for (DataFile file : files) {
            long compacting =
                    writers.stream()
                            .filter(
                                    writer ->
                                            writer.accessTo(file) == WriterShare.Access.OWN
                                                    || (writer.accessTo(file)
                                                                    == WriterShare.Access.SHARED
                                                            && writer.compactsShared(file)))
                            .count();
            assertThat(compacting).as("writers compacting %s", file.path()).isEqualTo(1);
        }
    }

    private static List<WriterShare> writers(int count) {
        List<WriterShare> writers = new ArrayList<>();
        for (int writer = 0; writer < count; writer++) {
            writers.add(WriterShare.keysIn(range(writer, count)));
        }
        return writers;
    }

    private static KeyGroups range(int writer, int writers) {
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(128, writers, writer);
        return new KeyGroups(SCHEME, range.getStartKeyGroup(), range.getEndKeyGroup(), 128);
    }

    private static String name() {
        return "part-" + UUID.randomUUID() + ".parquet";
    }
}
