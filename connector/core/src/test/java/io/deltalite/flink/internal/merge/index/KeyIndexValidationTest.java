package io.deltalite.flink.internal.merge.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.deltalite.flink.exceptions.DeltaLiteKeyIndexDisagreementException;
import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.ParquetCompression;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.DeltaHistory;
import io.deltalite.flink.testing.UpsertHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code key-index.validate} checks every answer of the index against the exact probe. Where they
 * differ the merge fails with {@link DeltaLiteKeyIndexDisagreementException}, before anything is
 * written from the index's answer. A correct index meets a difference only when the table changed
 * behind the Delta log; here two data files swap their contents after the index read them (Delta
 * forbids rewriting a file in place). Without the check, that merge would mark or drop the rows now
 * at the positions the index remembers: another key's rows. Each difference is counted for the JVM
 * ({@link KeyIndex#disagreementsInThisJvm}): the failed checkpoint restarts the job, whose writers
 * build their indexes afresh, so the Flink tests that validate assert the count stayed put.
 */
class KeyIndexValidationTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(
            value = WriteMode.class,
            names = {"COPY_ON_WRITE", "DELETION_VECTORS"})
    void filesSwappedBehindTheLogFailTheValidatedMergeBeforeItWritesAnything(WriteMode mode)
            throws IOException {
        // Uncompressed and never compacted: the two files stay apart and of one size.
        MergeOptions validated =
                MergeOptions.DEFAULTS
                        .withWriteMode(mode)
                        .withCompaction(CompactionOptions.DISABLED)
                        .withCompression(ParquetCompression.UNCOMPRESSED)
                        .withKeyIndex(new KeyIndexOptions(KeyIndexMode.ON, 64L << 20, true));
        try (UpsertHarness writer =
                UpsertHarness.open(dir.toString(), KeyIndexTest.items(mode), validated)) {
            // Two files of ten rows: ids 0-9, then 10-19.
            for (long first = 0; first < 20; first += 10) {
                for (long id = first; id < first + 10; id++) {
                    writer.upsert(id, "initial");
                }
                writer.commit();
            }
            // A merge that touches neither brings the index to both: it reads the files it has
            // not seen when it next follows the partition (this merge's own file at the next).
            writer.upsert(100L, "elsewhere");
            writer.commit();
            assertThat(writer.writer().keyIndex().stats().keys()).isEqualTo(20);

            Path low = fileHolding(0L);
            Path high = fileHolding(10L);
            assertThat(Files.size(low))
                    .as("equal sizes, so that both still read as valid Parquet once swapped")
                    .isEqualTo(Files.size(high));
            Path swap = dir.resolve("swap.tmp");
            Files.move(low, swap);
            Files.move(high, low);
            Files.move(swap, high, StandardCopyOption.ATOMIC_MOVE);
            int versions = DeltaHistory.commits(dir).size();

            long disagreementsBefore = KeyIndex.disagreementsInThisJvm();
            writer.upsert(5L, "changed");
            assertThatThrownBy(writer::commit)
                    .isInstanceOf(DeltaLiteKeyIndexDisagreementException.class)
                    .hasMessageContaining(dir.toString())
                    .hasMessageContaining("disagrees with the exact probe")
                    .hasMessageContaining(low.getFileName().toString())
                    .hasMessageContaining("key-index = off");
            // Counted, for the tests that validate: a restarted job would recover from it unseen.
            assertThat(KeyIndex.disagreementsInThisJvm()).isEqualTo(disagreementsBefore + 1);
            assertThat(DeltaHistory.commits(dir)).hasSize(versions);
            assertThat(DeltaHistory.uncommittedDataFiles(dir)).isEmpty();
        }
    }

    /** The live file whose key statistics start at {@code id}. */
    private Path fileHolding(long id) throws IOException {
        for (JsonNode add : DeltaHistory.liveAdds(dir)) {
            JsonNode stats = JSON.readTree(add.get("stats").asText());
            if (stats.get("minValues").get("id").asLong() == id
                    && stats.get("numRecords").asLong() == 10) {
                return dir.resolve(add.get("path").asText());
            }
        }
        throw new AssertionError("no live file of ten rows starts at id " + id);
    }
}
