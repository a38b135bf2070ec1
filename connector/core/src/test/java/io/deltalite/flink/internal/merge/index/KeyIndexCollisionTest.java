package io.deltalite.flink.internal.merge.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.deltalite.flink.internal.merge.options.CompactionOptions;
import io.deltalite.flink.internal.merge.options.KeyIndexOptions;
import io.deltalite.flink.internal.merge.options.MergeOptions;
import io.deltalite.flink.internal.merge.schema.TableDefinition;
import io.deltalite.flink.internal.merge.schema.ValueType;
import io.deltalite.flink.internal.merge.schema.ValueType.Kind;
import io.deltalite.flink.internal.merge.value.KeyIdentity;
import io.deltalite.flink.internal.merge.value.RowKey;
import io.deltalite.flink.sink.KeyIndexMode;
import io.deltalite.flink.sink.WriteMode;
import io.deltalite.flink.testing.UpsertHarness;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Whoever chooses key values can compute two keys with the same identity under an unkeyed hash
 * (MurmurHash3-x64-128 with any fixed seed: each block is an invertible step of its state, so one
 * solved block gives a second key with a chosen key's identity). FORGED is such a key for
 * "alice@example.com" under the hash the index used before. A deletion-vector merge marks the rows
 * the index locates without comparing their keys again, so such a pair would let one key's upsert
 * delete the other's row: identities are keyed per JVM instead ({@link KeyIdentity}).
 */
class KeyIndexCollisionTest {
    static final String VICTIM = "alice@example.com";
    static final String FORGED =
            "\u6D81\u4F8B\u6532\u4E83\u6072\u6467\u7874\u7A5B"
                    + "\u9B2F\u4888\u52A3\u8D25\uA379\uBE04\u7B31\u9969";

    @TempDir Path dir;

    @Test
    void aKeyForgedToCollideUnderAnUnkeyedHashHasItsOwnIdentity() {
        assertThat(FORGED).isNotEqualTo(VICTIM);
        assertThat(KeyIdentity.of(RowKey.ofValues(FORGED), false))
                .isNotEqualTo(KeyIdentity.of(RowKey.ofValues(VICTIM), false));
    }

    @ParameterizedTest
    @EnumSource(
            value = KeyIndexMode.class,
            names = {"OFF", "AUTO", "ON"})
    void insertingAKeyWhoseIdentityCollidesKeepsTheOtherKeysRow(KeyIndexMode mode) {
        TableDefinition users =
                new TableDefinition(
                        List.of(
                                new ValueType.Field("email", ValueType.of(Kind.STRING), false),
                                new ValueType.Field("v", ValueType.of(Kind.STRING), true)),
                        List.of("email"),
                        List.of(),
                        Map.of("delta.enableDeletionVectors", "true"));
        MergeOptions options =
                MergeOptions.DEFAULTS
                        .withWriteMode(WriteMode.DELETION_VECTORS)
                        // small test files would be rewritten (exactly) instead of marked;
                        // production files are larger than compaction.small-file-size
                        .withCompaction(CompactionOptions.DISABLED)
                        .withKeyIndex(new KeyIndexOptions(mode, 64L << 20, false));
        try (UpsertHarness writer = UpsertHarness.open(dir.toString(), users, options)) {
            writer.upsert(VICTIM, "alice");
            for (int i = 0; i < 20; i++) {
                writer.upsert("user" + i + "@example.com", "other");
            }
            writer.commit();
            writer.upsert("user0@example.com", "touched"); // a merge of the partition
            writer.commit();

            writer.upsert(FORGED, "mallory"); // a new key: must replace nothing
            writer.commit();

            assertThat(writer.read()).hasSize(22);
            assertThat(writer.read()).anyMatch(row -> VICTIM.equals(row[0]));
        }
    }
}
